// The read math of distributions (src/bucket/distribution-stats.js): the
// names a stat is asked by, tiers merged over a planned range with
// evaluatePlan's null and documents rules, one stat of the merged tier, and
// percentiles planned from the quarter-hours up. Documents are built the way
// the writer's updates leave them (test/helpers/distribution-documents.js).
import { describe, expect, it } from 'vitest'
import {
  MAX_STAT_LENGTH, STAT_NAMES, addTierInto, bucketsIn, evaluateDistributionPlan, mergeTiers, histogramHoldsCount, minuteHoldsDay, parseStat, statValue
} from '../../src/bucket/distribution-stats.js'
import { bucketIndex, createMapping, histogramOf, quantile } from '../../src/bucket/distribution-sketch.js'
import { evaluatePlan, planRanges } from '../../src/bucket/range-plan.js'
import { planLocalSeries } from '../../src/bucket/local-plans.js'
import { timeZone } from '../../src/bucket/time-zone.js'
import { distributionDocumentsOf } from '../helpers/distribution-documents.js'

const mapping = createMapping(0.01)
const MIN = 60_000
const DAY = 86_400_000
const stat = (text) => parseStat(text).stat

describe('parseStat', () => {
  it('names count, sum, mean, min and max', () => {
    expect(STAT_NAMES).toEqual(['count', 'sum', 'mean', 'min', 'max'])
    for (const name of STAT_NAMES) expect(parseStat(name)).toEqual({ stat: { name, kind: name } })
  })

  it('reads a percentile as written, with decimals, or in Graphite\'s form (p999 is the 99.9th)', () => {
    const q = (text) => parseStat(text).stat?.q
    expect(Object.fromEntries(['p0', 'p1', 'p5', 'p50', 'p90', 'p99', 'p100', 'p0.5', 'p99.9', 'p99.99', 'p100.0', 'p12.50'].map(t => [t, q(t)]))).toEqual({
      p0: 0, p1: 0.01, p5: 0.05, p50: 0.5, p90: 0.9, p99: 0.99, p100: 1, 'p0.5': 0.005, 'p99.9': 0.999, 'p99.99': 0.9999, 'p100.0': 1, 'p12.50': 0.125
    })
    // Graphite's form: the digits after the first two are decimals
    expect(Object.fromEntries(['p999', 'p9999', 'p9990', 'p995', 'p750', 'p150'].map(t => [t, q(t)]))).toEqual({
      p999: 0.999, p9999: 0.9999, p9990: 0.999, p995: 0.995, p750: 0.75, p150: 0.15
    })
    // read as decimals, not divided: the q of p99.9 is the double nearest 0.999, as the rank rule needs
    expect(q('p99.9')).toBe(0.999)
    expect(q('p57')).toBe(0.57)
    expect(parseStat('p99.9')).toEqual({ stat: { name: 'p99.9', kind: 'percentile', q: 0.999 } })
  })

  it('refuses anything else, saying what is accepted', () => {
    for (const text of ['', 'p', 'p-1', 'pabc', 'p1000.5', 'p100.5', 'p101', 'p1000', 'p05', 'p00', 'P99', 'p99.', 'p.5', 'p 99', 'p99 ', 'avg', 'median', 'p1e2', 'p0x10', 'constructor', '__proto__']) {
      const { stat, problem } = parseStat(text)
      expect(stat, text).toBeUndefined()
      expect(problem, text).toMatch(/count, sum, mean, min, max, or a percentile: p0 to p100 \(p50, p99\), with decimals \(p99\.9\), or in Graphite's form/)
    }
    expect(parseStat('p05').problem).toMatch(/no leading zero: p5, or p0\.5/)
    expect(parseStat('p1000').problem).toMatch(/ambiguous: 10\.00 % in Graphite's form, yet it reads as 1000 %: write p10\.00, or p100/)
    expect(parseStat(99).problem).toMatch(/^stat must be text/)
    expect(parseStat(undefined).problem).toMatch(/^stat must be text/)
  })

  it('refuses text over MAX_STAT_LENGTH characters without echoing all of it', () => {
    expect(parseStat('p99.99999999').stat.q).toBe(0.9999999999) // 12 characters
    const { problem } = parseStat('p99.999999999')
    expect(problem).toMatch(`longer than ${MAX_STAT_LENGTH} characters`)
    expect(parseStat('p'.repeat(10_000)).problem.length).toBeLessThan(400)
  })
})

describe('mergeTiers', () => {
  const a = histogramOf(mapping, [3, 0, -2, 87])
  const b = histogramOf(mapping, [1e-12, 5, 87, 1000])

  it('merges two stored tiers as one tier holding both', () => {
    const before = structuredClone([a, b])
    expect(mergeTiers(a, b)).toEqual(histogramOf(mapping, [3, 0, -2, 87, 1e-12, 5, 87, 1000]))
    expect([a, b]).toEqual(before)
  })

  it('takes undefined or null as nothing: the empty tier, or a copy of the other', () => {
    expect(mergeTiers(undefined, null)).toEqual({ count: 0, sum: 0, zero: 0, positive: {}, negative: {} })
    const copy = mergeTiers(null, a)
    expect(copy).toEqual(histogramOf(mapping, [3, 0, -2, 87]))
    expect(copy.positive).not.toBe(a.positive)
    expect(mergeTiers(b, undefined)).toEqual(histogramOf(mapping, [1e-12, 5, 87, 1000]))
    // a preallocated tier: count and sum by 0
    expect(mergeTiers({ count: 0, sum: 0 }, { count: 0, sum: 0 })).toEqual({ count: 0, sum: 0, zero: 0, positive: {}, negative: {} })
  })

  it('merges a minute tier (no histogram) into count, sum, min and max only', () => {
    const merged = mergeTiers(a, { count: 2, sum: -7, min: -9, max: 2 })
    expect(merged).toMatchObject({ count: 6, sum: 81, min: -9, max: 87 })
    expect(merged.positive).toEqual(a.positive)
    expect(merged.negative).toEqual(a.negative)
  })

  it('refuses a node that is not a tier, or holds what a tier cannot (a document is read, not trusted)', () => {
    for (const bad of [5, 'x', [], true, { count: -1 }, { count: Infinity }, { count: '2' }, { sum: NaN }, { sum: '3' }, { min: Infinity }, { count: 1, positive: { '01': 1 } }, { count: 1, positive: JSON.parse('{"__proto__":1}') }, { count: 1, zero: -1 }]) {
      expect(() => mergeTiers(a, bad), JSON.stringify(bad)).toThrow(TypeError)
    }
  })
})

describe('addTierInto', () => {
  it('adds each node into the one tier it made, as mergeTiers merges them, leaving the nodes unchanged', () => {
    const nodes = [histogramOf(mapping, [3, 0, -2, 87]), undefined, { count: 2, sum: -7, min: -9, max: 2 }, histogramOf(mapping, [1e-12, 5, 87, 1000])]
    const before = structuredClone(nodes)
    const total = addTierInto(null, nodes[0])
    expect(total.positive).not.toBe(nodes[0].positive)
    // in place: a piece costs its own buckets, not a copy of the range's so far
    for (const node of nodes.slice(1)) expect(addTierInto(total, node)).toBe(total)
    expect(total).toEqual(nodes.reduce((a, b) => mergeTiers(a, b), null))
    expect(nodes).toEqual(before)
  })

  it('refuses what mergeTiers refuses', () => {
    for (const bad of [5, [], { count: -1 }, { count: 1, positive: JSON.parse('{"__proto__":1}') }]) {
      expect(() => addTierInto(null, bad), JSON.stringify(bad)).toThrow(TypeError)
    }
  })
})

describe('evaluateDistributionPlan', () => {
  const start = Date.UTC(2026, 0, 27)
  const events = [
    { metric: 'm', value: 2, time: start + 10 * MIN },
    { metric: 'm', value: 40, time: start + 10 * MIN + 30_000 },
    { metric: 'm', value: 3, time: start + DAY + 5 * MIN },
    { metric: 'm', value: 7, time: start + 40 * DAY }
  ]
  const docs = distributionDocumentsOf(events, mapping)
  // Jan 27, Jan 28, Jan 29 (no value, but January's document holds the month: an empty tier), 60 days, an April day (no document: null)
  const ranges = [{ from: start, to: start + DAY }, { from: start + DAY, to: start + 2 * DAY }, { from: start + 2 * DAY, to: start + 3 * DAY }, { from: start, to: start + 60 * DAY }, { from: Date.UTC(2026, 3, 20), to: Date.UTC(2026, 3, 21) }]
  const plan = planRanges('m', ranges, {})

  it('merges each range\'s pieces, with evaluatePlan\'s null and documents', () => {
    const results = evaluateDistributionPlan(plan, docs)
    expect(results.map(r => r.value?.count ?? null)).toEqual([2, 1, 0, 4, null])
    expect(results[0].value).toEqual(histogramOf(mapping, [2, 40]))
    expect(results[3].value).toEqual(histogramOf(mapping, [2, 40, 3, 7]))
    expect(results[2].value).toEqual({ count: 0, sum: 0, zero: 0, positive: {}, negative: {} })
    // the documents used are the ones the counters' sum uses, for the same plan and documents
    expect(results.map(r => r.documents)).toEqual(evaluatePlan(plan, docs).map(r => r.documents))
    expect(results.map(r => r.documents)).toEqual([1, 1, 1, 2, 0])
  })

  it('with strictDays reads a month\'s day only where it has a daily document, as a day series does', () => {
    expect(evaluateDistributionPlan(plan, docs, { strictDays: true }).map(r => r.value?.count ?? null)).toEqual([2, 1, null, 4, null])
  })

  it('merges hours, quarter-hours and minutes of an edge day, and the whole days and months between', () => {
    const from = Date.UTC(2026, 0, 30, 22, 44)
    const to = Date.UTC(2026, 2, 2, 1, 30)
    const values = [[from - MIN, 1000], [from, 1], [from + MIN, 2], [Date.UTC(2026, 0, 31, 5), 3], [Date.UTC(2026, 1, 14), 4], [Date.UTC(2026, 2, 1, 23, 59), 5], [to - 1, 6], [to, 2000]]
    const docs = distributionDocumentsOf(values.map(([time, value]) => ({ metric: 'm', value, time })), mapping)
    const [{ value, documents }] = evaluateDistributionPlan(planRanges('m', [{ from, to }], {}), docs)
    expect(value).toMatchObject({ count: 6, sum: 21, min: 1, max: 6 })
    // a minute piece holds no histogram in its day document: the merged tier counts values its buckets do not, and has no percentile
    expect(statValue(value, stat('p50'), mapping)).toBe(null)
    expect(documents).toBe(5) // Jan 30, January, February, March, Mar 2
  })
})

describe('statValue', () => {
  const values = [0.5, 3, 7, 12, 40, 87, 87, 1000]
  const tier = histogramOf(mapping, values)

  it('answers count, sum, mean, min, max and percentiles of a tier', () => {
    expect(statValue(tier, stat('count'), mapping)).toBe(8)
    expect(statValue(tier, stat('sum'), mapping)).toBe(1236.5)
    expect(statValue(tier, stat('mean'), mapping)).toBe(1236.5 / 8)
    expect(statValue(tier, stat('min'), mapping)).toBe(0.5)
    expect(statValue(tier, stat('max'), mapping)).toBe(1000)
    // p0 and p100 are the minimum and the maximum, exactly (ranks 0 and n−1)
    expect(statValue(tier, stat('p0'), mapping)).toBe(0.5)
    expect(statValue(tier, stat('p100'), mapping)).toBe(1000)
    // p50: rank floor(0.5 · 7) = 3, the value 12, within 1 %
    expect(statValue(tier, stat('p50'), mapping)).toBe(quantile(tier, mapping, 0.5))
    expect(Math.abs(statValue(tier, stat('p50'), mapping) - 12)).toBeLessThanOrEqual(0.12)
    expect(statValue(tier, stat('p999'), mapping)).toBe(quantile(tier, mapping, 0.999))
  })

  it('answers null for every stat where no document holds the range', () => {
    for (const text of [...STAT_NAMES, 'p50', 'p100']) {
      expect(statValue(null, stat(text), mapping), text).toBeNull()
      expect(statValue(undefined, stat(text), mapping), text).toBeNull()
    }
  })

  it('answers count and sum 0 where a document holds the range but nothing was written to it, and null for the rest', () => {
    const empty = mergeTiers(null, undefined)
    expect(Object.fromEntries([...STAT_NAMES, 'p50', 'p0', 'p100'].map(t => [t, statValue(empty, stat(t), mapping)]))).toEqual({
      count: 0, sum: 0, mean: null, min: null, max: null, p50: null, p0: null, p100: null
    })
  })

  it('gives no percentile (null) of a tier whose histogram does not hold exactly the values it counts', () => {
    const minute = { count: 2, sum: 5, min: 2, max: 3 }
    expect(statValue(minute, stat('p50'), mapping)).toBe(null)
    expect(statValue(mergeTiers(tier, minute), stat('p99'), mapping)).toBe(null)
    expect(histogramHoldsCount(mergeTiers(tier, minute))).toBe(false)
    // buckets holding more than the count (a minute's histogram written, its day's count not): null too
    const over = { ...minute, positive: { [bucketIndex(mapping, 2)]: 2, [bucketIndex(mapping, 3)]: 1 } }
    expect(histogramHoldsCount(over)).toBe(false)
    expect(statValue(over, stat('p50'), mapping)).toBe(null)
    const whole = { ...minute, positive: { [bucketIndex(mapping, 2)]: 1, [bucketIndex(mapping, 3)]: 1 } }
    expect(histogramHoldsCount(whole)).toBe(true)
    expect(statValue(whole, stat('p100'), mapping)).toBe(3)
    expect(statValue(mergeTiers(tier, minute), stat('max'), mapping)).toBe(1000)
    expect(statValue(mergeTiers(tier, minute), stat('count'), mapping)).toBe(10)
  })

  it('refuses a stat it does not know', () => {
    expect(() => statValue(tier, { kind: 'median' }, mapping)).toThrow(/unknown stat kind "median"/)
  })
})

describe('a local series in zones off the hour by 45 and 30 minutes needs no minute', () => {
  it('plans hours, days and months in Kathmandu and St John\'s without a minute piece, even with no minute on any day', () => {
    const opts = { maxPoints: 2000, horizons: { minuteFrom: Infinity } }
    for (const tz of ['Asia/Kathmandu', 'America/St_Johns']) {
      for (const step of ['hour', 'day', 'month']) {
        const planned = planLocalSeries('m', timeZone(tz), Date.UTC(2026, 0, 1), Date.UTC(2026, 2, 1), step, opts)
        expect(planned.plan.ranges.flat().map(p => p.path[0]), `${tz} ${step}`).not.toContain('minute')
      }
    }
  })
})

describe('bucketsIn: what walking a tier or a stored histogram costs', () => {
  it('counts both sides\' buckets, not the zero bucket or the totals, and reads anything else as none', () => {
    expect(bucketsIn({ count: 6, sum: 1, zero: 1, positive: { 3: 2, 4: 1 }, negative: { 2: 2 } })).toBe(3)
    expect(bucketsIn({ count: 1, zero: 1 })).toBe(0)
    expect(bucketsIn(null)).toBe(0)
    expect(bucketsIn({ positive: 7, negative: 'x' })).toBe(0)
  })
})

describe('minuteHoldsDay: the one rule the read and the check take a minute histogram by', () => {
  it('holds where count, sum and bucketed total all match the day\'s minute; not where any differs or is missing', () => {
    const m = createMapping(0.01)
    const day = { count: 3, sum: 111, min: 1, max: 100 }
    const hour = { count: 3, sum: 111, positive: { [bucketIndex(m, 1)]: 1, [bucketIndex(m, 10)]: 1, [bucketIndex(m, 100)]: 1 } }
    expect(minuteHoldsDay(hour, day)).toBe(true)
    expect(minuteHoldsDay({ ...hour, sum: 111 * (1 + 1e-12) }, day)).toBe(true) // another order of additions
    expect(minuteHoldsDay({ ...hour, count: 4 }, day)).toBe(false)
    expect(minuteHoldsDay({ ...hour, sum: 1110 }, day)).toBe(false) // equal counts of other values
    expect(minuteHoldsDay({ ...hour, zero: 1 }, day)).toBe(false) // buckets over the count
    const { count, ...noCount } = hour
    expect(count).toBe(3)
    expect(minuteHoldsDay(noCount, day)).toBe(false) // written before count and sum were kept
    expect(() => minuteHoldsDay({ ...hour, positive: { '01': 3 } }, day)).toThrow(TypeError)
  })
})

describe('fractional counts (StatsD sample rates)', () => {
  it('reads a tier whose counts are fractional, and its percentiles, as whole ones', () => {
    const m = createMapping(0.01)
    const w = 1 / 0.3
    const tier = { count: 3 * w, sum: (1 + 10 + 100) * w, min: 1, max: 100, positive: { [bucketIndex(m, 1)]: w, [bucketIndex(m, 10)]: w, [bucketIndex(m, 100)]: w } }
    const merged = mergeTiers(tier, tier)
    expect(statValue(merged, parseStat('count').stat, m)).toBeCloseTo(6 * w, 9)
    expect(statValue(merged, parseStat('p50').stat, m)).toBeCloseTo(10, 0)
    expect(statValue(merged, parseStat('p100').stat, m)).toBe(100)
  })
})
