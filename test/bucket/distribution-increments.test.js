import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { BSON } from 'mongodb'
import { DistributionTiers, MAX_BSON_DOCUMENT_BYTES, buildDistributionUnit, distributionEventUpdates, distributionValuesOf, largestDailyDocumentBytes, largestMinuteHourDocumentBytes, mergeDistributionUnits } from '../../src/bucket/distribution-increments.js'
import { MIN_INDEXED_VALUE, bucketIndex, createMapping, emptyHistogram, histogramOf, mergeHistograms, quantiles } from '../../src/bucket/distribution-sketch.js'
import { QUARTER_HOUR_DETAIL } from '../../src/bucket/increments.js'
import { HOUR_MS, parseHourId, startOfDay } from '../../src/bucket/time.js'
import { createThresholds, parseThresholdRules, thresholdKey } from '../../src/bucket/distribution-thresholds.js'
import { updateOfTiers } from '../../src/bucket/tiered-document.js'

const mapping = createMapping(0.01)
const KINDS = ['inc', 'min', 'max']

// A document as MongoDB would hold it after { $inc, $min, $max } (dotted paths nest; $min/$max set a missing field)
function applyUpdate (doc, update) {
  const apply = (path, f) => {
    const parts = path.split('.')
    let node = doc
    for (const p of parts.slice(0, -1)) node = node[p] ??= {}
    node[parts.at(-1)] = f(node[parts.at(-1)])
  }
  for (const [path, v] of Object.entries(update.inc)) apply(path, old => (old ?? 0) + v)
  for (const [path, v] of Object.entries(update.min)) apply(path, old => (old === undefined ? v : Math.min(old, v)))
  for (const [path, v] of Object.entries(update.max)) apply(path, old => (old === undefined ? v : Math.max(old, v)))
  return doc
}

const start = Date.UTC(2026, 0, 30) // days on both sides of a month's end
const value = fc.oneof(
  fc.double({ min: -9, max: 15, noNaN: true }).map(e => 10 ** e),
  fc.double({ min: -9, max: 15, noNaN: true }).map(e => -(10 ** e)),
  fc.constantFrom(0, -0, 1e-12, -Number.MIN_VALUE, 87, 87)
)
const event = (values) => fc.record({
  metric: fc.constantFrom('api.latency', 'db:query', 'x'),
  value: values,
  time: fc.integer({ min: start, max: start + 4 * 86_400_000 - 1 })
})
const horizon = fc.option(fc.integer({ min: start, max: start + 4 * 86_400_000 }), { nil: undefined })
// minutes kept from `horizon` on for 'api.latency' only (none: every day keeps them)
const retention = (h) => (h === undefined
  ? {}
  : { keepsMinutes: (metric, dayStart) => metric !== 'api.latency' || dayStart >= h, keepsMinuteHistograms: (metric, dayStart) => metric !== 'db:query' || dayStart >= h })

describe('one value', () => {
  it('counts at every tier, with min and max; its bucket at the quarter-hour, hour, day, month and day of month', () => {
    const time = Date.UTC(2026, 10, 21, 13, 7, 45)
    const { daily, monthly } = distributionEventUpdates({ metric: 'api.latency', value: 87, time }, mapping)
    const bucket = `positive.${bucketIndex(mapping, 87)}`
    expect(bucket).toBe('positive.224') // ceil(ln 87 / ln(1.01 / 0.99)) = ceil(223.3)
    expect(daily).toEqual({
      id: 'api.latency/20261121',
      date: Date.UTC(2026, 10, 21),
      inc: {
        'daily.count': 1,
        'daily.sum': 87,
        [`daily.${bucket}`]: 1,
        'hourly.13.count': 1,
        'hourly.13.sum': 87,
        [`hourly.13.${bucket}`]: 1,
        'quarterHourly.13.0.count': 1,
        'quarterHourly.13.0.sum': 87,
        [`quarterHourly.13.0.${bucket}`]: 1,
        'minute.13.7.count': 1,
        'minute.13.7.sum': 87
      },
      min: { 'daily.min': 87, 'hourly.13.min': 87, 'quarterHourly.13.0.min': 87, 'minute.13.7.min': 87 },
      max: { 'daily.max': 87, 'hourly.13.max': 87, 'quarterHourly.13.0.max': 87, 'minute.13.7.max': 87 }
    })
    expect(monthly).toEqual({
      id: 'api.latency/202611',
      date: Date.UTC(2026, 10, 1),
      inc: { 'monthly.count': 1, 'monthly.sum': 87, [`monthly.${bucket}`]: 1, 'daily.21.count': 1, 'daily.21.sum': 87, [`daily.21.${bucket}`]: 1 },
      min: { 'monthly.min': 87, 'daily.21.min': 87 },
      max: { 'monthly.max': 87, 'daily.21.max': 87 }
    })
  })

  it('zero and −0 in the zero bucket, stored as 0; a negative value on the negative side', () => {
    const time = Date.UTC(2026, 10, 21, 0, 0)
    const zero = distributionEventUpdates({ metric: 'm', value: -0, time }, mapping).daily
    expect(zero.inc['quarterHourly.0.0.zero']).toBe(1)
    expect(Object.is(zero.inc['daily.sum'], 0) && Object.is(zero.min['daily.min'], 0) && Object.is(zero.max['daily.max'], 0)).toBe(true)
    expect(distributionEventUpdates({ metric: 'm', value: -2, time }, mapping).daily.inc[`hourly.0.negative.${bucketIndex(mapping, 2)}`]).toBe(1)
  })

  it('past the minute horizon: no minute, and the day says so', () => {
    const time = Date.UTC(2026, 10, 21, 13, 7)
    const { daily } = distributionEventUpdates({ metric: 'm', value: 1, time }, mapping, { keepsMinutes: () => false })
    expect(Object.keys({ ...daily.inc, ...daily.min, ...daily.max }).filter(p => p.startsWith('minute.'))).toEqual([])
    expect(daily.detail).toBe(QUARTER_HOUR_DETAIL)
  })

  it('counts its bucket in its minute\'s histogram, in its hour\'s document, while the day keeps minutes', () => {
    const time = Date.UTC(2026, 10, 21, 13, 7, 45)
    expect(distributionEventUpdates({ metric: 'api.latency', value: 87, time, weight: 2.5 }, mapping).minutes).toEqual({
      id: 'api.latency/2026112113', date: Date.UTC(2026, 10, 21, 13), inc: { 'minute.7.count': 2.5, 'minute.7.sum': 87 * 2.5, 'minute.7.positive.224': 2.5 }
    })
    expect(distributionEventUpdates({ metric: 'm', value: -0, time }, mapping).minutes.inc).toEqual({ 'minute.7.count': 1, 'minute.7.sum': 0, 'minute.7.zero': 1 })
    expect(Object.is(distributionEventUpdates({ metric: 'm', value: -0, time }, mapping).minutes.inc['minute.7.sum'], 0)).toBe(true)
    expect(distributionEventUpdates({ metric: 'm', value: -87, time }, mapping).minutes.inc).toEqual({ 'minute.7.count': 1, 'minute.7.sum': -87, 'minute.7.negative.224': 1 })
    expect(distributionEventUpdates({ metric: 'm', value: 1, time }, mapping, { keepsMinutes: () => false }).minutes).toBeNull()
    // past MINUTE_HISTOGRAM_DAYS: the minute keeps count, sum, min and max, not its histogram
    const past = distributionEventUpdates({ metric: 'm', value: 1, time }, mapping, { keepsMinuteHistograms: () => false })
    expect(past.minutes).toBeNull()
    expect(past.daily.inc['minute.13.7.count']).toBe(1)
    // and never a histogram for a minute that is not kept
    expect(distributionEventUpdates({ metric: 'm', value: 1, time }, mapping, { keepsMinutes: () => false, keepsMinuteHistograms: () => true }).minutes).toBeNull()
  })
})

/** The sum of each value's updates (distributionEventUpdates) in the order they come, each [event, its options]: { daily, monthly, minutes } */
function sumOfValueUpdates (valuesWithOptions) {
  const expected = { daily: new Map(), monthly: new Map(), minutes: new Map() }
  for (const [e, options] of valuesWithOptions) {
    const updates = distributionEventUpdates(e, mapping, options)
    if (updates.minutes) {
      const doc = expected.minutes.get(updates.minutes.id) ?? { metric: e.metric, date: updates.minutes.date, inc: {} }
      for (const [path, v] of Object.entries(updates.minutes.inc)) doc.inc[path] = (doc.inc[path] ?? 0) + v
      expected.minutes.set(updates.minutes.id, doc)
    }
    for (const kind of ['daily', 'monthly']) {
      const { id, date, detail, ...update } = updates[kind]
      const doc = expected[kind].get(id) ?? { metric: e.metric, date, inc: {}, min: {}, max: {} }
      for (const [path, v] of Object.entries(update.inc)) doc.inc[path] = (doc.inc[path] ?? 0) + v
      for (const [path, v] of Object.entries(update.min)) doc.min[path] = Math.min(doc.min[path] ?? Infinity, v)
      for (const [path, v] of Object.entries(update.max)) doc.max[path] = Math.max(doc.max[path] ?? -Infinity, v)
      if (detail) doc.detail = detail
      expected[kind].set(id, doc)
    }
  }
  return expected
}

describe('a batch', () => {
  it('is one update per document, equal to the sum of its values\' updates ($inc added, $min/$max narrowed)', () => {
    fc.assert(fc.property(fc.array(event(value), { minLength: 1, maxLength: 300 }), horizon, (events, h) => {
      const expected = sumOfValueUpdates(events.map(e => [e, retention(h)]))
      const unit = buildDistributionUnit(events, mapping, retention(h))
      expect(unit.daily).toEqual(expected.daily)
      expect(unit.monthly).toEqual(expected.monthly)
      expect(unit.minutes).toEqual(expected.minutes)
      expect(unit.events).toBe(events.length)
      for (const e of events) {
        const seen = unit.metrics.get(e.metric)
        expect(seen.firstSeen <= e.time && e.time <= seen.lastSeen).toBe(true)
      }
    }), { numRuns: 200 })
  })

  // a flush adds a minute's buckets once (DistributionTiers): values crowded into a few minutes across midnight
  // at a month's end, several requests each with its own horizons (a horizon passing between two of them) and
  // declared thresholds. Whole weights: every field exactly the sum of the values' updates
  it('a flush of requests crowded into a few minutes is the sum of their values\' updates, each value with its request\'s options', () => {
    const midnight = Date.UTC(2026, 1, 1) // Jan 31 → Feb 1
    const crowded = (weights) => fc.record({
      metric: fc.constantFrom('api.latency', 'db:query', 'x'),
      value,
      time: fc.integer({ min: midnight - 2 * 60_000, max: midnight + 2 * 60_000 - 1 }),
      weight: weights
    })
    const thresholds = createThresholds(parseThresholdRules('{"api.*": [1, 87, 1000]}').rules)
    // request by request: the first day's minutes (and their histograms) of db:query kept or not
    const optionsOf = ({ keepsMinutes, keepsHistograms }) => ({
      keepsMinutes: (metric, dayStart) => metric !== 'db:query' || dayStart >= midnight || keepsMinutes,
      keepsMinuteHistograms: (metric, dayStart) => metric !== 'x' || dayStart >= midnight || keepsHistograms,
      thresholdsOf: thresholds.of
    })
    const requests = (weights) => fc.array(fc.record({ events: fc.array(crowded(weights), { minLength: 1, maxLength: 200 }), keepsMinutes: fc.boolean(), keepsHistograms: fc.boolean() }), { minLength: 1, maxLength: 6 })
    const flushOf = (batches) => {
      const tiers = new DistributionTiers()
      for (const batch of batches) tiers.add(distributionValuesOf(batch.events, mapping), optionsOf(batch))
      const { daily, monthly, minutes } = tiers.documents()
      const updates = (docs) => new Map([...docs].map(([id, doc]) => [id, updateOfTiers(doc)]))
      return { daily: updates(daily), monthly: updates(monthly), minutes }
    }
    const expectedOf = (batches) => sumOfValueUpdates(batches.flatMap(batch => batch.events.map(e => [e, optionsOf(batch)])))
    fc.assert(fc.property(requests(fc.constantFrom(1, 1, 2, 10)), (batches) => {
      const flush = flushOf(batches)
      const expected = expectedOf(batches)
      for (const part of ['daily', 'monthly', 'minutes']) expect(flush[part]).toEqual(expected[part])
    }), { numRuns: 150 })
    // a sample rate's weight (1 / 0.3): a bucket's count is its values' weights added a minute at a time, which
    // may differ from adding them one by one in its last bits; every other field exactly the same
    fc.assert(fc.property(requests(fc.constantFrom(1, 1 / 0.3, 1 / 0.7)), (batches) => {
      const flush = flushOf(batches)
      const expected = expectedOf(batches)
      for (const part of ['daily', 'monthly', 'minutes']) {
        expect([...flush[part].keys()]).toEqual([...expected[part].keys()])
        for (const [id, doc] of flush[part]) {
          const want = expected[part].get(id)
          expect({ ...doc, inc: {} }).toEqual({ ...want, inc: {} })
          expect(Object.keys(doc.inc).sort()).toEqual(Object.keys(want.inc).sort())
          for (const [path, n] of Object.entries(want.inc)) {
            const bucket = /\.(zero|positive\.-?\d+|negative\.-?\d+)$/.test(path)
            if (bucket) expect(Math.abs(doc.inc[path] - n)).toBeLessThanOrEqual(1e-12 * n)
            else expect(doc.inc[path]).toBe(n)
          }
        }
      }
    }), { numRuns: 100 })
  })

  it('makes a flush\'s documents once: asked again, the same (its minutes not added twice); values added after refused', () => {
    const values = () => distributionValuesOf([{ metric: 'm', value: 87, time: start }, { metric: 'm', value: 87, time: start + 1 }], mapping)
    const tiers = new DistributionTiers().add(values())
    const day = () => updateOfTiers(tiers.documents().daily.get('m/20260130'))
    const first = day()
    expect(first.inc['daily.count']).toBe(2)
    expect(Object.entries(first.inc).filter(([path]) => path.startsWith('daily.positive.'))).toEqual([['daily.positive.224', 2]])
    expect(day()).toEqual(first)
    expect(() => tiers.add(values())).toThrow(/after its documents were made/)
    expect(day()).toEqual(first)
  })

  it('units merged (a flush) equal the unit of all their values; the units are not changed', () => {
    const integer = fc.integer({ min: -1_000_000, max: 1_000_000 }) // sums exact in any order
    fc.assert(fc.property(fc.array(event(integer), { minLength: 1, maxLength: 200 }), fc.array(fc.nat(200), { maxLength: 3 }), (events, cuts) => {
      const edges = [0, ...cuts.map(c => c % (events.length + 1)).sort((a, b) => a - b), events.length]
      const units = edges.slice(1).map((end, i) => buildDistributionUnit(events.slice(edges[i], end), mapping))
      const copies = structuredClone(units)
      const merged = mergeDistributionUnits(units)
      const whole = buildDistributionUnit(events, mapping)
      expect(merged.daily).toEqual(whole.daily)
      expect(merged.monthly).toEqual(whole.monthly)
      expect(merged.minutes).toEqual(whole.minutes)
      expect(merged.metrics).toEqual(whole.metrics)
      expect(merged.events).toBe(events.length)
      if (units.length > 1) expect(units).toEqual(copies)
    }), { numRuns: 200 })
  })

  it("writes valid field names only, no two paths of one update in conflict, no histogram in a day document below the quarter-hour, and minute histograms in their hours' documents", () => {
    fc.assert(fc.property(fc.array(event(value), { minLength: 1, maxLength: 200 }), horizon, (events, h) => {
      const unit = buildDistributionUnit(events, mapping, retention(h))
      for (const update of [...unit.daily.values(), ...unit.monthly.values()]) {
        const paths = KINDS.flatMap(kind => Object.keys(update[kind]))
        for (const path of paths) {
          // MongoDB field names: not empty, no '.' inside (it separates them), no leading '$', no NUL
          for (const name of path.split('.')) expect(name).toMatch(/^[^$.\0][^.\0]*$/)
          if (path.startsWith('minute.')) expect(path).toMatch(/^minute\.(\d+\.)?\d+\.(count|sum|min|max)$/)
        }
        // MongoDB refuses an update where one path is another or lies inside it
        const sorted = [...paths].sort()
        expect(new Set(sorted).size).toBe(sorted.length)
        for (let i = 1; i < sorted.length; i++) expect(sorted[i].startsWith(`${sorted[i - 1]}.`)).toBe(false)
      }
      for (const { inc } of unit.minutes.values()) {
        for (const path in inc) expect(path).toMatch(/^minute\.([1-5]?[0-9])\.(count|sum|zero|(positive|negative)\.(0|-?[1-9][0-9]*))$/)
      }
    }), { numRuns: 200 })
  })

  it('the documents it leaves are consistent: quarter-hours add up to hours, hours to the day, days to the month; each the sketch of its values', () => {
    fc.assert(fc.property(fc.array(event(value), { minLength: 1, maxLength: 1500, size: 'max' }), (events) => {
      const unit = buildDistributionUnit(events, mapping)
      const monthlyDocs = new Map([...unit.monthly].map(([id, update]) => [id, applyUpdate({}, update)]))
      const asHistogram = (tier) => mergeHistograms(emptyHistogram(), tier) // a stored tier, sparse parts filled in
      // the same counts, buckets, min and max; sums added in another order differ by rounding, which grows with Σ|v|
      const scale = events.reduce((s, e) => s + Math.abs(e.value), 0)
      const sameHistogram = (a, b) => {
        expect({ ...asHistogram(a), sum: 0 }).toEqual({ ...asHistogram(b), sum: 0 })
        expect(Math.abs(a.sum - b.sum)).toBeLessThanOrEqual(1e-12 * scale)
      }
      const sumOf = (tiers) => tiers.reduce((h, tier) => mergeHistograms(h, tier), emptyHistogram())
      for (const [id, update] of unit.daily) {
        const doc = applyUpdate({}, update)
        const values = events.filter(e => e.metric === update.metric && startOfDay(e.time) === update.date).map(e => e.value)
        sameHistogram(doc.daily, histogramOf(mapping, values))
        sameHistogram(sumOf(Object.values(doc.hourly)), doc.daily)
        for (const [hour, quarters] of Object.entries(doc.quarterHourly)) sameHistogram(sumOf(Object.values(quarters)), doc.hourly[hour])
        const minutes = Object.values(doc.minute).flatMap(hour => Object.values(hour))
        expect(minutes.reduce((n, m) => n + m.count, 0)).toBe(doc.daily.count)
        expect(Math.min(...minutes.map(m => m.min))).toBe(doc.daily.min)
        expect(Math.max(...minutes.map(m => m.max))).toBe(doc.daily.max)
        const month = monthlyDocs.get(`${update.metric}/${id.slice(-8, -2)}`)
        sameHistogram(month.daily[new Date(update.date).getUTCDate()], doc.daily)
        // the stored day answers its quantiles within α
        const sorted = values.sort((x, y) => x - y)
        const qs = [0, 0.5, 0.9, 0.99, 1]
        quantiles(doc.daily, mapping, qs).forEach((estimate, i) => {
          const exact = sorted[Math.floor(qs[i] * (sorted.length - 1))]
          expect(Math.abs(estimate - exact)).toBeLessThanOrEqual(Math.abs(exact) < MIN_INDEXED_VALUE ? MIN_INDEXED_VALUE : 0.01 * Math.abs(exact) * (1 + 1e-9))
        })
      }
      for (const month of monthlyDocs.values()) sameHistogram(sumOf(Object.values(month.daily)), month.monthly)
      // each minute's histogram (its hour's document) holds exactly the minute's values: its count, and its quarter-hour's buckets added up
      const days = new Map() // a day's document, built once for its 24 hours' (read only)
      for (const [id, update] of unit.minutes) {
        const { metric, date } = parseHourId(id)
        expect(update.date).toBe(date)
        const hourDoc = applyUpdate({}, { inc: update.inc, min: {}, max: {} })
        const dayId = `${metric}/${id.slice(-10, -2)}`
        if (!days.has(dayId)) days.set(dayId, applyUpdate({}, unit.daily.get(dayId)))
        const day = days.get(dayId)
        const hour = new Date(date).getUTCHours()
        for (const [m, histogram] of Object.entries(hourDoc.minute)) {
          const values = events.filter(e => e.metric === metric && Math.floor((e.time - date) / 60_000) === Number(m) && e.time < date + HOUR_MS).map(e => e.value)
          const buckets = ({ zero, positive, negative }) => ({ zero, positive, negative })
          expect(buckets(asHistogram(histogram))).toEqual(buckets(histogramOf(mapping, values)))
          expect(day.minute[hour][m].count).toBe(values.length)
          // the hour's minute repeats the day's count and sum: added in the same order, the same numbers
          expect(histogram.count).toBe(day.minute[hour][m].count)
          expect(histogram.sum).toBe(day.minute[hour][m].sum)
        }
      }
    }), { numRuns: 60 })
  })

  it('refuses a value a distribution may not hold, whatever else the batch holds', () => {
    for (const bad of [NaN, Infinity, -Infinity, 1e308]) {
      const events = [{ metric: 'm', value: 1, time: start }, { metric: 'm', value: bad, time: start }]
      expect(() => buildDistributionUnit(events, mapping)).toThrow(RangeError)
      expect(() => distributionEventUpdates(events[1], mapping)).toThrow(RangeError)
    }
  })
})

describe('largestDailyDocumentBytes: the bound no distribution document can pass', () => {
  // the worst document itself: every histogram tier full on both sides, every minute, the longest name
  function fullDocument (m, keys = []) {
    const side = {}
    for (let i = m.minIndex; i <= m.maxIndex; i++) side[String(i)] = 0.5
    const le = keys.length ? { le: Object.fromEntries(keys.map(k => [k, 0.5])) } : {}
    const tier = () => ({ count: 0.5, sum: 0.5, min: 0.5, max: 0.5, zero: 0.5, positive: { ...side }, negative: { ...side }, ...le })
    const stats = () => ({ count: 0.5, sum: 0.5, min: 0.5, max: 0.5, ...le })
    const hours = (f) => Object.fromEntries(Array.from({ length: 24 }, (_, h) => [String(h), f(h)]))
    const name = 'n'.repeat(200)
    return {
      _id: `${name}/20261125`,
      metric: name,
      date: new Date(0),
      detail: QUARTER_HOUR_DETAIL,
      daily: tier(),
      hourly: hours(tier),
      quarterHourly: hours(() => Object.fromEntries([0, 1, 2, 3].map(q => [String(q), tier()]))),
      minute: hours(() => Object.fromEntries(Array.from({ length: 60 }, (_, i) => [String(i), stats()])))
    }
  }

  it.each([0.5, 0.05, 0.01])('is the BSON size of the fullest daily document at α = %s', (accuracy) => {
    const m = createMapping(accuracy)
    expect(largestDailyDocumentBytes(m)).toBe(BSON.calculateObjectSize(fullDocument(m)))
  })

  it('with every tier holding the threshold counts of DISTRIBUTION_THRESHOLDS (at most 16 thresholds in all)', () => {
    const keys = Array.from({ length: 16 }, (_, i) => thresholdKey(1.234567890123456e-7 * (i + 1)))
    const m = createMapping(0.02)
    expect(largestDailyDocumentBytes(m, { thresholdKeys: keys })).toBe(BSON.calculateObjectSize(fullDocument(m, keys)))
    expect(largestDailyDocumentBytes(m, { thresholdKeys: keys })).toBeGreaterThan(largestDailyDocumentBytes(m) + 1561 * 16 * 8)
  })

  // the fullest minute-hour document: 60 minute histograms full on both sides
  function fullMinuteHour (m) {
    const side = {}
    for (let i = m.minIndex; i <= m.maxIndex; i++) side[String(i)] = 0.5
    const name = 'n'.repeat(200)
    return {
      _id: `${name}/2026112523`,
      metric: name,
      date: new Date(0),
      minute: Object.fromEntries(Array.from({ length: 60 }, (_, i) => [String(i), { count: 0.5, sum: 0.5, zero: 0.5, positive: { ...side }, negative: { ...side } }]))
    }
  }

  it.each([0.5, 0.05, 0.01])('is, for a minute-hour document, the BSON size of the fullest one at α = %s', (accuracy) => {
    const m = createMapping(accuracy)
    expect(largestMinuteHourDocumentBytes(m)).toBe(BSON.calculateObjectSize(fullMinuteHour(m)))
  })

  it('bounds a minute-hour document below a day document at every accuracy, so the day\'s bound is the one that binds', () => {
    for (const accuracy of [0.5, 0.1, 0.02, 0.01, 0.0056, 0.001, 1e-4]) {
      const m = createMapping(accuracy)
      expect(largestMinuteHourDocumentBytes(m)).toBeLessThan(largestDailyDocumentBytes(m))
    }
  })

  it('stays under MongoDB\'s 16 MiB at the default accuracy, and passes it at 0.5 %', () => {
    expect(largestDailyDocumentBytes(createMapping(0.01))).toBeLessThan(MAX_BSON_DOCUMENT_BYTES)
    expect(largestDailyDocumentBytes(createMapping(0.005))).toBeGreaterThan(MAX_BSON_DOCUMENT_BYTES)
  })
})
