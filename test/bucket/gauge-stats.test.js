// The read math of gauges (src/bucket/gauge-stats.js): tiers merged over a
// planned range with evaluatePlan's null and documents rules, last by the
// latest (t, v), one stat of the merged tier, and stored nodes read, never
// trusted. Documents are built the way the writer's updates leave them
// (test/helpers/gauge-documents.js).
import { describe, expect, it } from 'vitest'
import { GAUGE_DEFAULT_STAT, GAUGE_STAT_NAMES, evaluateGaugePlan, gaugeStatValue, isGaugeStat, mergeGaugeTiers } from '../../src/bucket/gauge-stats.js'
import { parseStat } from '../../src/bucket/distribution-stats.js'
import { evaluatePlan, planRanges } from '../../src/bucket/range-plan.js'
import { gaugeDocumentsOf } from '../helpers/gauge-documents.js'
import { documentsOf } from '../helpers/documents.js'

const MIN = 60_000
const DAY = 86_400_000
const T = Date.UTC(2026, 10, 21, 9)
const stat = (text) => parseStat(text).stat
const tier = (count, sum, min, max, t, v) => ({ count, sum, min, max, last: { t: new Date(t), v } })

describe('the stats a gauge answers', () => {
  it('are last (the default), min, max, mean, count and sum; parseStat reads last; percentiles are not a gauge\'s', () => {
    expect(GAUGE_STAT_NAMES).toEqual(['last', 'min', 'max', 'mean', 'count', 'sum'])
    expect(parseStat('last')).toEqual({ stat: { name: 'last', kind: 'last' } })
    expect(GAUGE_DEFAULT_STAT).toEqual(parseStat('last').stat)
    for (const name of GAUGE_STAT_NAMES) expect(isGaugeStat(stat(name)), name).toBe(true)
    for (const name of ['p50', 'p99.9', 'p0']) expect(isGaugeStat(stat(name)), name).toBe(false)
  })
})

describe('mergeGaugeTiers', () => {
  const a = tier(3, 12, 1, 7, T + 5000, 2)
  const b = tier(2, -4, -5, 1, T + 9000, -5)

  it('adds counts and sums, keeps the min of the mins, the max of the maxes and the last of the latest (t, v); the inputs unchanged', () => {
    const before = structuredClone([a, b])
    const merged = { count: 5, sum: 8, min: -5, max: 7, last: { t: new Date(T + 9000), v: -5 } }
    expect(mergeGaugeTiers(a, b)).toEqual(merged)
    expect(mergeGaugeTiers(b, a)).toEqual(merged)
    expect([a, b]).toEqual(before)
  })

  it('on equal times keeps the larger v, as BSON orders { t, v }', () => {
    const c = tier(1, 3, 3, 3, T, 3)
    const d = tier(1, 8, 8, 8, T, 8)
    expect(mergeGaugeTiers(c, d).last.v).toBe(8)
    expect(mergeGaugeTiers(d, c).last.v).toBe(8)
  })

  it('takes undefined or null as nothing: the empty tier, or the other one', () => {
    expect(mergeGaugeTiers(null, undefined)).toEqual({ count: 0, sum: 0 })
    expect(mergeGaugeTiers(null, a)).toEqual(a)
    expect(mergeGaugeTiers(b, undefined)).toEqual(b)
    expect(mergeGaugeTiers({ count: 0, sum: 0 }, null)).toEqual({ count: 0, sum: 0 })
  })

  it('refuses a stored node that is not a gauge tier', () => {
    for (const node of [5, 'x', [1], { count: -1 }, { count: 1.5 }, { count: 1, sum: NaN }, { count: 1, min: 'a' }, { count: 1, last: 5 }, { count: 1, last: { t: 5, v: 1 } }, { count: 1, last: { t: new Date(T), v: Infinity } }, { count: 1, last: { t: new Date(NaN), v: 1 } }, { count: 1, last: null }]) {
      expect(() => mergeGaugeTiers(null, node), JSON.stringify(node)).toThrow(TypeError)
    }
  })
})

describe('gaugeStatValue', () => {
  it('answers each stat of a tier', () => {
    const t = tier(4, 10, -1, 6, T, 3)
    expect(Object.fromEntries(GAUGE_STAT_NAMES.map(s => [s, gaugeStatValue(t, stat(s))]))).toEqual({ last: 3, min: -1, max: 6, mean: 2.5, count: 4, sum: 10 })
  })

  it('null where no document holds the range; count and sum 0 and the rest null where one does but no level was written', () => {
    for (const s of GAUGE_STAT_NAMES) expect(gaugeStatValue(null, stat(s)), s).toBe(null)
    expect(Object.fromEntries(GAUGE_STAT_NAMES.map(s => [s, gaugeStatValue({ count: 0, sum: 0 }, stat(s))]))).toEqual({ last: null, min: null, max: null, mean: null, count: 0, sum: 0 })
  })

  it('refuses a percentile', () => {
    expect(() => gaugeStatValue(tier(1, 1, 1, 1, T, 1), stat('p50'))).toThrow(/a gauge has no stat "percentile"/)
  })
})

describe('evaluateGaugePlan over stored documents', () => {
  // minutes 9:00..9:29 of two days, levels out of order; nothing on the day between
  const events = []
  for (const day of [0, 2]) {
    for (let m = 29; m >= 0; m--) events.push({ metric: 'g', value: (m * 7) % 11 - 3, time: T + day * DAY + m * MIN + ((m * 13) % 60) * 1000 })
  }
  const docs = gaugeDocumentsOf(events, { batch: 7 })
  const counted = documentsOf(events.map(e => ({ ...e, value: 1 })))
  const modelOf = (from, to) => {
    const inRange = events.filter(e => e.time >= from && e.time < to)
    if (inRange.length === 0) return null
    const latest = inRange.reduce((x, e) => (e.time > x.time || (e.time === x.time && e.value > x.value) ? e : x))
    return { count: inRange.length, min: Math.min(...inRange.map(e => e.value)), max: Math.max(...inRange.map(e => e.value)), last: latest.value }
  }

  it('answers ranges of minutes, quarter-hours, hours, days and a month as the levels say, with the counters\' null and 0 and documents', () => {
    const ranges = [
      { from: T + 3 * MIN, to: T + 17 * MIN },
      { from: T, to: T + 30 * MIN },
      { from: T - 9 * 3_600_000, to: T + 15 * 3_600_000 }, // the whole first day
      { from: T + DAY - 9 * 3_600_000, to: T + 2 * DAY - 9 * 3_600_000 }, // the quiet day
      { from: Date.UTC(2026, 10, 1), to: Date.UTC(2026, 11, 1) },
      { from: T + 2 * DAY + 29 * MIN, to: T + 2 * DAY + 31 * MIN },
      { from: Date.UTC(2026, 9, 5), to: Date.UTC(2026, 9, 6) } // no document
    ]
    const plan = planRanges('g', ranges, {})
    const values = evaluateGaugePlan(plan, docs)
    const counters = evaluatePlan(plan, counted)
    ranges.forEach(({ from, to }, i) => {
      const what = `[${new Date(from).toISOString()}, ${new Date(to).toISOString()})`
      expect(values[i].value?.count ?? null, what).toBe(counters[i].value)
      expect(values[i].documents, what).toBe(counters[i].documents)
      const truth = modelOf(from, to)
      if (truth === null) {
        expect(gaugeStatValue(values[i].value, stat('last')), what).toBe(null)
        return
      }
      for (const s of ['count', 'min', 'max', 'last']) expect(gaugeStatValue(values[i].value, stat(s)), `${what} ${s}`).toBe(truth[s])
    })
    // the quiet day: an empty tier of a month that exists, null with strictDays (a day series)
    expect(values[3].value).toEqual({ count: 0, sum: 0 })
    expect(evaluateGaugePlan(plan, docs, { strictDays: true })[3].value).toBe(null)
  })
})
