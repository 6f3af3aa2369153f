// The probabilistic preallocator alone (src/jobs/preallocator.js), with an
// injected clock and random source and recording collections.
import { describe, expect, it } from 'vitest'
import { createPreallocator } from '../../src/jobs/preallocator.js'

const silent = { info () {}, warn () {}, error () {}, debug () {} }

function recordingCollection () {
  const calls = []
  const script = []
  return {
    calls,
    next (fn) { script.push(fn) },
    async updateOne (filter, update, options) {
      calls.push({ filter, update, options })
      const fn = script.shift()
      if (fn) return fn()
      return { acknowledged: true }
    }
  }
}

/** An event batch's draw, then its hits preallocated, as ingest does around its write */
const consider = (preallocator, events) => preallocator.preallocateDrawn(preallocator.draw(events))

function setup ({ now, random = () => 0, probability = 0.5, groupOf } = {}) {
  const collections = { daily: recordingCollection(), monthly: recordingCollection() }
  const published = []
  const preallocator = createPreallocator(collections, {
    clock: { now: () => now },
    random,
    probability,
    logger: silent,
    telemetry: { publish: (name, data) => published.push([name, data]) },
    groupOf
  })
  return { collections, preallocator, published }
}

describe('preallocator', () => {
  it('ensures the next day zero-filled with an upsert of $inc by 0, then its day field (and total) in its month, creating the next month on a month end', async () => {
    const now = Date.UTC(2026, 10, 30, 12)
    const { collections, preallocator, published } = setup({ now })
    consider(preallocator, [{ metric: 'a', value: 1, time: now }])
    await preallocator.idle()
    expect(collections.daily.calls.map(c => c.filter._id)).toEqual(['a/20261201'])
    const { update, options } = collections.daily.calls[0]
    expect(options).toEqual({ upsert: true })
    expect(Object.values(update.$inc).every(v => v === 0)).toBe(true)
    expect(update.$inc.daily).toBe(0)
    expect(collections.monthly.calls.map(c => c.filter._id)).toEqual(['a/202612'])
    // the month's day field only: `daily.D` exists exactly when day D has a daily document
    expect(collections.monthly.calls[0].update.$inc).toEqual({ monthly: 0, 'daily.1': 0 })
    expect(collections.monthly.calls[0].update.$setOnInsert).toEqual({ metric: 'a', date: new Date('2026-12-01T00:00:00Z') })
    expect(collections.monthly.calls[0].options).toEqual({ upsert: true })
    expect(published).toEqual([
      ['preallocated', { kind: 'probabilistic', collection: 'daily' }],
      ['preallocated', { kind: 'probabilistic', collection: 'monthly' }]
    ])
  })

  it('does nothing when the draw misses, for a day more than one ahead of the clock, or for a day already ensured', async () => {
    const now = Date.UTC(2026, 10, 21, 12)
    const draws = [0.9, 0, 0, 0]
    const { collections, preallocator } = setup({ now, random: () => draws.shift() })
    consider(preallocator, [
      { metric: 'miss', value: 1, time: now }, // 0.9 ≥ p
      { metric: 'ahead', value: 1, time: now + 2 * 86_400_000 }, // its next day is 3 days ahead
      { metric: 'a', value: 1, time: now },
      { metric: 'a', value: 1, time: now + 60_000 } // same next day: remembered
    ])
    await preallocator.idle()
    expect(collections.daily.calls.map(c => c.filter._id)).toEqual(['a/20261122'])
    // a day inside a month: its day field in that month's document, nothing else
    expect(collections.monthly.calls.map(c => [c.filter._id, c.update.$inc])).toEqual([['a/202611', { monthly: 0, 'daily.22': 0 }]])
  })

  it('draws only for the events `keep` admits (a request\'s counters), one draw each, and asks keep nothing where no event can hit', async () => {
    const now = Date.UTC(2026, 10, 21, 12)
    const draws = [0, 0.9]
    const asked = []
    const keep = (e) => { asked.push(e.metric); return e.metric !== 'gauge' }
    const { preallocator } = setup({ now, random: () => draws.shift() })
    const events = [{ metric: 'gauge', time: now }, { metric: 'a', time: now }, { metric: 'gauge', time: now }, { metric: 'b', time: now }]
    expect(preallocator.draw(events, keep)).toEqual([{ metric: 'a', time: now }])
    expect(asked).toEqual(['gauge', 'a', 'gauge', 'b'])
    expect(draws).toEqual([])
    // probability 0: no draw, no question
    asked.length = 0
    const off = setup({ now, probability: 0, random: () => { throw new Error('drew') } }).preallocator
    expect(off.draw(events, keep)).toEqual([])
    expect(asked).toEqual([])
  })

  it('an event draws once: a hit preallocates its series, then its name and rollup; a name, or a rollup, already ensured is left out; a rollup, or a name with series, is never alone', async () => {
    const now = Date.UTC(2026, 10, 21, 12)
    const draws = [0, 0, 0.9, 0, 0, 0, 0]
    // as preallocation-plugin.js's: `w` has series
    const groupOf = (metric) => (metric.startsWith('w;~') || metric === 'w' ? [] : metric.startsWith('w;') ? [metric, 'w', `w;~r;${metric.slice(2)}`] : [metric])
    const { collections, preallocator } = setup({ now, random: () => draws.shift(), groupOf })
    consider(preallocator, [
      { metric: 'w;r=/a', value: 1, time: now }, // 0: the group
      { metric: 'w;r=/a', value: 1, time: now + 60_000 }, // 0: the same series and day: all ensured
      { metric: 'w;r=/c', value: 1, time: now }, // 0.9: nothing
      { metric: 'w;r=/b', value: 1, time: now }, // 0: its series and rollup, its name ensured
      { metric: 'w', value: 1, time: now }, // 0: a name with series, untagged: nothing alone
      { metric: 'w;~r;r=/d', value: 1, time: now }, // 0: a rollup: nothing alone
      { metric: 'plain', value: 1, time: now } // 0
    ])
    await preallocator.idle()
    expect(collections.daily.calls.map(c => c.filter._id)).toEqual(['w;r=%2Fa/20261122', 'w/20261122', 'w;~r;r=%2Fa/20261122', 'w;r=%2Fb/20261122', 'w;~r;r=%2Fb/20261122', 'plain/20261122'])
    expect(draws).toEqual([])
  })

  it('a failure in a group leaves the metrics after it (no name or rollup without its series) and forgets them: a later event tries them again', async () => {
    const now = Date.UTC(2026, 10, 21, 12)
    const groupOf = (metric) => [metric, 'w', 'w;~r;r=/a']
    const { collections, preallocator } = setup({ now, groupOf })
    const reset = () => { throw Object.assign(new Error('connection reset'), { code: 6 }) }
    collections.daily.next(reset)
    consider(preallocator, [{ metric: 'w;r=/a', value: 1, time: now }])
    await preallocator.idle()
    expect(collections.daily.calls.map(c => c.filter._id)).toEqual(['w;r=%2Fa/20261122'])
    expect(collections.monthly.calls).toEqual([])
    // the name fails after its series was written: the rollup is left; the series stays ensured
    collections.daily.next(() => ({ acknowledged: true }))
    collections.daily.next(reset)
    consider(preallocator, [{ metric: 'w;r=/a', value: 1, time: now }])
    await preallocator.idle()
    expect(collections.daily.calls.map(c => c.filter._id).slice(1)).toEqual(['w;r=%2Fa/20261122', 'w/20261122'])
    consider(preallocator, [{ metric: 'w;r=/a', value: 1, time: now }])
    await preallocator.idle()
    expect(collections.daily.calls.map(c => c.filter._id).slice(3)).toEqual(['w/20261122', 'w;~r;r=%2Fa/20261122'])
  })

  it('a concurrent upsert of the same new _id (E11000) is retried; after close nothing more is considered', async () => {
    const now = Date.UTC(2026, 10, 21, 12)
    const { collections, preallocator } = setup({ now })
    collections.daily.next(() => { throw Object.assign(new Error('E11000 duplicate key'), { code: 11000 }) })
    consider(preallocator, [{ metric: 'a', value: 1, time: now }])
    await preallocator.idle()
    expect(collections.daily.calls.map(c => c.filter._id)).toEqual(['a/20261122', 'a/20261122'])
    await preallocator.close()
    consider(preallocator, [{ metric: 'b', value: 1, time: now }])
    await preallocator.idle()
    expect(collections.daily.calls).toHaveLength(2)
  })
})
