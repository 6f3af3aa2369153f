// settleLimited (src/slos/settle-limited.js): every outcome in the items'
// order, never more than `limit` calls in flight, and nothing begun after an
// outcome that stops all — checked against random durations and failures.
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { settleLimited } from '../../src/slos/settle-limited.js'

const tick = () => new Promise(resolve => setImmediate(resolve))

describe('settleLimited', () => {
  it('random items, delays and failures: outcomes in order, at most `limit` in flight, all begun without a stop', async () => {
    await fc.assert(fc.asyncProperty(
      fc.array(fc.record({ ticks: fc.integer({ min: 1, max: 4 }), fails: fc.boolean() }), { maxLength: 40 }), fc.integer({ min: 1, max: 9 }),
      async (items, limit) => {
        let inFlight = 0
        let most = 0
        const outcomes = await settleLimited(items, limit, async ({ ticks, fails }, i) => {
          most = Math.max(most, ++inFlight)
          for (let t = 0; t < ticks; t++) await tick()
          inFlight--
          if (fails) throw new Error(`item ${i}`)
          return i
        })
        expect(most).toBeLessThanOrEqual(limit)
        expect(most).toBe(Math.min(limit, items.length)) // they did run side by side
        expect(outcomes).toEqual(items.map(({ fails }, i) => (fails ? { status: 'rejected', reason: new Error(`item ${i}`) } : { status: 'fulfilled', value: i })))
      }), { numRuns: 200 })
  })

  it('an outcome that stops all: the items not begun are skipped, those in flight end', async () => {
    const begun = []
    const outcomes = await settleLimited([0, 1, 2, 3, 4, 5], 2, async (item) => {
      begun.push(item)
      await tick()
      if (item === 1) throw Object.assign(new Error('down'), { fatal: true })
      return item
    }, { stopsAll: err => err.fatal === true })
    expect(begun).toEqual([0, 1, 2]) // 2 began when 0 ended, before 1 failed
    expect(outcomes.map(o => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'skipped', 'skipped', 'skipped'])
  })

  it('no items: no call; a limit that is not a whole number ≥ 1 is refused', async () => {
    expect(await settleLimited([], 3, () => { throw new Error('called') })).toEqual([])
    await expect(settleLimited([1], 0, x => x)).rejects.toThrow(/limit must be a whole number ≥ 1, got 0/)
  })
})
