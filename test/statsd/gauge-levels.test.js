// The gauges' levels the StatsD doors hold (src/statsd/gauge-levels.js):
// bounded, least recently used forgotten; the stored level read once per
// name at a time; and a door's resolver applying deltas in arrival order,
// parking a name while its stored level is read.
import { describe, expect, it } from 'vitest'
import { MAX_LEAD_MS, applyDelta, createGaugeLevels, createGaugeResolver } from '../../src/statsd/gauge-levels.js'

const level = (metric, value) => ({ metric, value, kind: 'gauge' })
const delta = (metric, value) => ({ metric, value, kind: 'gauge', delta: true })

const tick = () => new Promise(resolve => setImmediate(resolve))

/** A stored level read that answers when told */
function slowStore (stored = {}) {
  const pending = []
  const reads = []
  return {
    reads,
    storedLevel: (name) => { reads.push(name); return new Promise((resolve, reject) => pending.push({ name, resolve, reject })) },
    // after the reads asked so far have started (a read starts a tick after load())
    async answer (name) { await tick(); const i = pending.findIndex(p => p.name === name); pending.splice(i, 1)[0].resolve(stored[name] ?? null) },
    async fail (name) { await tick(); const i = pending.findIndex(p => p.name === name); pending.splice(i, 1)[0].reject(new Error('down')) }
  }
}

function resolverOn (levels) {
  const released = []
  const drops = {}
  const resolver = createGaugeResolver({
    levels,
    release: (sample, time) => released.push([sample.metric, sample.value, time]),
    drop: (reason, values) => { drops[reason] = (drops[reason] ?? 0) + values }
  })
  return { resolver, released, drops }
}

describe('createGaugeLevels', () => {
  it('holds at most maxNames levels, forgetting the least recently used', () => {
    const levels = createGaugeLevels({ maxNames: 3, storedLevel: async () => null })
    for (const [name, v] of [['a', 1], ['b', 2], ['c', 3]]) levels.set(name, v)
    expect(levels.get('a')).toBe(1) // a used: b is now the oldest
    levels.set('d', 4)
    expect([levels.peek('a'), levels.peek('b'), levels.peek('c'), levels.peek('d')]).toEqual([1, undefined, 3, 4])
    for (let i = 0; i < 1000; i++) levels.set(`n${i}`, i)
    expect(levels.size).toBe(3)
  })

  it('reads a stored level once per name at a time; 0 where none is stored', async () => {
    const store = slowStore({ a: 40 })
    const levels = createGaugeLevels({ maxNames: 10, storedLevel: store.storedLevel })
    const [x, y] = [levels.load('a'), levels.load('a')]
    await tick()
    expect(store.reads).toEqual(['a'])
    await store.answer('a')
    expect(await Promise.all([x, y])).toEqual([40, 40])
    const z = levels.load('none')
    await store.answer('none')
    expect(await z).toBe(0)
  })

  it('stamp gives a name\'s events strictly later times, within one millisecond too; nextTime says it without recording; set keeps the latest', () => {
    const levels = createGaugeLevels({ maxNames: 10, storedLevel: async () => null })
    expect(levels.stamp('q', 100)).toBe(100) // not held: as it is, nothing kept
    levels.set('q', 5)
    expect(levels.stamp('q', 100)).toBe(100)
    expect(levels.stamp('q', 100)).toBe(101)
    expect(levels.nextTime('q', 100)).toBe(102)
    expect(levels.nextTime('q', 100)).toBe(102)
    expect(levels.stamp('q', 500)).toBe(500)
    levels.set('q', 6, 450) // an older stamp does not move it back
    expect(levels.nextTime('q', 500)).toBe(501)
    levels.set('q', 7, 900)
    expect(levels.nextTime('q', 500)).toBe(901)
    expect(levels.get('q')).toBe(7)
  })

  it(`never stamps an event more than MAX_LEAD_MS (${MAX_LEAD_MS} ms) past its arrival, however many levels a sender sends a millisecond`, () => {
    const levels = createGaugeLevels({ maxNames: 10, storedLevel: async () => null })
    levels.set('q', 5)
    // 2,000 levels a second for 300 s, as a hostile or busy sender: each one stamped and recorded
    let lead = 0
    for (let i = 0; i < 600_000; i++) {
      const now = Math.floor(i / 2)
      const t = levels.nextTime('q', now)
      levels.set('q', i, t)
      lead = Math.max(lead, t - now)
    }
    expect(lead).toBe(MAX_LEAD_MS)
    expect(levels.stamp('q', 1_000_000)).toBe(1_000_000) // a later arrival is its own time again
  })

  it('applyDelta: the new level, −0 as 0, null past 1e15', () => {
    expect(applyDelta(5, -2)).toBe(3)
    expect(Object.is(applyDelta(2, -2), 0)).toBe(true)
    expect(applyDelta(1e15, 1)).toBe(null)
    expect(applyDelta(-1e15, -1e15)).toBe(null)
    expect(applyDelta(1e15, -1)).toBe(1e15 - 1)
  })
})

describe('createGaugeResolver', () => {
  it('levels pass and are held; a delta of a held level becomes the new level; other kinds pass untouched', () => {
    const levels = createGaugeLevels({ maxNames: 10, storedLevel: async () => null })
    const { resolver, drops } = resolverOn(levels)
    const counter = { metric: 'c', value: 1 }
    const ready = resolver.resolve([level('q', 10), delta('q', 3), counter, delta('q', -20)], 0)
    expect(ready).toEqual([level('q', 10), level('q', 13), counter, level('q', -7)])
    expect(levels.peek('q')).toBe(-7)
    expect(drops).toEqual({})
    const plain = [counter]
    expect(resolver.resolve(plain, 0)).toBe(plain) // nothing to turn: the input itself
  })

  it('a delta past 1e15 is a bad_value drop and the level stays', () => {
    const levels = createGaugeLevels({ maxNames: 10, storedLevel: async () => null })
    const { resolver, drops } = resolverOn(levels)
    expect(resolver.resolve([level('q', 9e14), delta('q', 2e14), delta('q', 1e14)], 0)).toEqual([level('q', 9e14), level('q', 1e15)])
    expect(drops).toEqual({ bad_value: 1 })
    expect(levels.peek('q')).toBe(1e15)
  })

  it('parks a name whose level is not held until its stored level is read, then releases its values in arrival order', async () => {
    const store = slowStore({ q: 100 })
    const levels = createGaugeLevels({ maxNames: 10, storedLevel: store.storedLevel })
    const { resolver, released, drops } = resolverOn(levels)
    expect(resolver.wouldPark(delta('q', 1))).toBe(true)
    expect(resolver.wouldPark(level('q', 1))).toBe(false)
    expect(resolver.resolve([delta('q', 1), level('other', 5)], 1000)).toEqual([level('other', 5)])
    // while parked, every value of q waits behind the first, levels included
    expect(resolver.wouldPark(level('q', 1))).toBe(true)
    expect(resolver.resolve([delta('q', 2), level('q', 50), delta('q', -5), delta('q', 1e15)], 2000)).toEqual([])
    expect(resolver.parked).toBe(5)
    expect(released).toEqual([])
    await store.answer('q')
    await resolver.idle()
    expect(released).toEqual([['q', 101, 1000], ['q', 103, 2000], ['q', 50, 2000], ['q', 45, 2000]])
    expect(drops).toEqual({ bad_value: 1 })
    expect(resolver.parked).toBe(0)
    expect(levels.peek('q')).toBe(45)
    // held now: no more reads
    expect(resolver.resolve([delta('q', 5)], 3000)).toEqual([level('q', 50)])
    expect(store.reads).toEqual(['q'])
  })

  it('a level set by another door while parked is the one the parked deltas start from', async () => {
    const store = slowStore({ q: 100 })
    const levels = createGaugeLevels({ maxNames: 10, storedLevel: store.storedLevel })
    const one = resolverOn(levels)
    const other = resolverOn(levels)
    one.resolver.resolve([delta('q', 1)], 0)
    expect(other.resolver.resolve([level('q', 7)], 0)).toEqual([level('q', 7)])
    await store.answer('q')
    await one.resolver.idle()
    expect(one.released).toEqual([['q', 8, 0]])
  })

  it('parked values whose stored level cannot be read are dropped as not_applied; the next delta reads again', async () => {
    const store = slowStore()
    const levels = createGaugeLevels({ maxNames: 10, storedLevel: store.storedLevel })
    const { resolver, released, drops } = resolverOn(levels)
    resolver.resolve([delta('q', 1), delta('q', 2)], 0)
    await store.fail('q')
    await resolver.idle()
    expect(drops).toEqual({ not_applied: 2 })
    expect(released).toEqual([])
    expect(resolver.parked).toBe(0)
    resolver.resolve([delta('q', 1)], 0)
    await tick()
    expect(store.reads).toEqual(['q', 'q'])
    await store.answer('q')
    await resolver.idle()
    expect(released).toEqual([['q', 1, 0]])
  })
})

describe('stored level reads', () => {
  it('at most maxReads at once; the rest wait their turn, in order', async () => {
    let inFlight = 0
    let most = 0
    const order = []
    const levels = createGaugeLevels({
      maxNames: 1000,
      maxReads: 3,
      storedLevel: async (name) => {
        order.push(name)
        most = Math.max(most, ++inFlight)
        await new Promise(resolve => setTimeout(resolve, 2))
        inFlight--
        return Number(name.slice(1))
      }
    })
    const names = Array.from({ length: 20 }, (_, i) => `n${i}`)
    expect(await Promise.all(names.map(n => levels.load(n)))).toEqual(names.map((_, i) => i))
    expect(most).toBe(3)
    expect(order).toEqual(names)
  })
})
