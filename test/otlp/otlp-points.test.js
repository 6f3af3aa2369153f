// The pure parts of POST /v1/metrics: points → events (src/otlp/otlp-points.js),
// a histogram's buckets (histogram-buckets.js), cumulative histograms across a
// downscale (against OpenTelemetry's bucketing written out again), the
// cumulative baselines' bound, a distribution event's summary in the bucket
// math, OTLP_RESOURCE_TAGS.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ExportMetricsServiceRequest, decodeRequest } from '../../src/otlp/otlp-codec.js'
import { findInvalidEvent } from '../../src/bucket/event-rules.js'
import { checkTags, findInvalidSeries, formatSeriesName } from '../../src/tags/series-name.js'
import { KINDS } from '../../src/kinds/index.js'
import { pointsOf, seriesOf } from '../../src/otlp/otlp-points.js'
import { bucketError, downscaledPlace, histogramBuckets } from '../../src/otlp/histogram-buckets.js'
import { quantileAccuracy } from '../../src/bucket/distribution-stats.js'
import { VALUES_PER_SERIES, createCumulativeBaselines } from '../../src/otlp/cumulative-baselines.js'
import { buildDistributionUnit, distributionEventUpdates } from '../../src/bucket/distribution-increments.js'
import { createMapping } from '../../src/bucket/distribution-sketch.js'
import { loadConfig } from '../../src/config.js'

const NOW = Date.UTC(2026, 10, 21, 12, 0, 30)
const nanos = (ms) => String(BigInt(ms) * 1_000_000n)
const config = { maxFutureMs: 300_000, maxAgeDays: 400 }
const attr = (key, value) => ({ key, value: { stringValue: value } })
const request = (metrics, resource = [attr('service.name', 'shop')]) => ExportMetricsServiceRequest.fromObject({ resourceMetrics: [{ resource: { attributes: resource }, scopeMetrics: [{ metrics }] }] })
const map = (metrics, { baselines, resourceTags = [['service.name', 'service']] } = {}) => pointsOf(request(metrics), { now: NOW, config, resourceTags, baselines })
const sum = (name, dataPoints, temporality = 1, isMonotonic = true) => ({ name, sum: { aggregationTemporality: temporality, isMonotonic, dataPoints } })

describe('points → events', () => {
  it('a delta sum adds to a counter at the point\'s time, tagged by its attributes and the resource\'s service', () => {
    const out = map([sum('web/hits', [{ asInt: '3', timeUnixNano: nanos(NOW - 1000), attributes: [attr('route', '/a')] }])])
    expect(out.events).toEqual([{ metric: 'web-hits;route=/a;service=shop', value: 3, time: NOW - 1000 }])
    expect([...out.renamed]).toEqual([['web/hits', 'web-hits']])
  })

  it('a point\'s own attribute wins over the resource\'s tag of the same key; no time is the time of receipt', () => {
    const out = map([{ name: 'g', gauge: { dataPoints: [{ asDouble: 1.5, attributes: [attr('service', 'mine')] }] } }])
    expect(out.events).toEqual([{ metric: 'g;service=mine', value: 1.5, time: NOW, kind: 'gauge' }])
  })

  it('a cumulative non-monotonic sum is a gauge level', () => {
    expect(map([sum('q', [{ asInt: '-4' }], 2, false)], { resourceTags: [] }).events).toEqual([{ metric: 'q', value: -4, time: NOW, kind: 'gauge' }])
  })

  it('a cumulative monotonic sum adds from its baseline; a new start or a lower value starts over', () => {
    const baselines = createCumulativeBaselines({ max: 10 })
    const send = (value, t, start = '1') => {
      const out = map([sum('c', [{ asInt: String(value), startTimeUnixNano: start, timeUnixNano: nanos(NOW - 60_000 + t) }], 2)], { baselines, resourceTags: [] })
      baselines.keep(out.baselineUpdates)
      return out.events.map(e => e.value)
    }
    expect(send(100, 0)).toEqual([0])
    expect(send(130, 1000)).toEqual([30])
    expect(send(130, 2000)).toEqual([])
    expect(send(10, 3000)).toEqual([0]) // lower: a reset
    expect(send(15, 4000)).toEqual([5])
    expect(send(7, 5000, '2')).toEqual([0]) // a new start
    expect(send(9, 6000, '2')).toEqual([2])
  })

  it('two senders of one cumulative series (instances of a service, or scopes) each add from their own previous point', () => {
    const baselines = createCumulativeBaselines({ max: 10 })
    const from = (instance, scope, value, start, at) => ({ resource: { attributes: [attr('service.name', 'shop'), attr('service.instance.id', instance)] }, scopeMetrics: [{ scope: { name: scope }, metrics: [sum('c1', [{ asInt: String(value), startTimeUnixNano: start, timeUnixNano: nanos(at) }], 2)] }] })
    const send = (...resourceMetrics) => {
      const out = pointsOf(ExportMetricsServiceRequest.fromObject({ resourceMetrics }), { now: NOW, config, resourceTags: [['service.name', 'service']], baselines })
      baselines.keep(out.baselineUpdates)
      return out.events.map(e => [e.metric, e.value])
    }
    expect(send(from('A', 'm', 100, '1000', NOW - 3000), from('B', 'm', 10, '2000', NOW - 3000), from('A', 'other', 7, '1000', NOW - 3000))).toEqual([['c1;service=shop', 0], ['c1;service=shop', 0], ['c1;service=shop', 0]])
    expect(send(from('A', 'm', 150, '1000', NOW - 2000), from('B', 'm', 20, '2000', NOW - 2000), from('A', 'other', 9, '1000', NOW - 2000))).toEqual([['c1;service=shop', 50], ['c1;service=shop', 10], ['c1;service=shop', 2]])
    expect(send(from('B', 'm', 30, '2000', NOW - 1000), from('A', 'm', 200, '1000', NOW - 1000))).toEqual([['c1;service=shop', 10], ['c1;service=shop', 50]])
  })

  it('a cumulative point the time rules refuse is no baseline: the points after it add from the one before', () => {
    const baselines = createCumulativeBaselines({ max: 10 })
    const send = (value, at) => {
      const out = map([sum('c3', [{ asInt: String(value), startTimeUnixNano: '1', timeUnixNano: nanos(at) }], 2)], { baselines, resourceTags: [] })
      baselines.keep(out.baselineUpdates)
      return [out.events.map(e => e.value), [...out.rejected.values()]]
    }
    expect(send(100, NOW - 3000)).toEqual([[0], []])
    expect(send(110, NOW + 86_400_000)).toEqual([[], [expect.stringMatching(/MAX_FUTURE_MS/)]])
    expect(send(120, NOW - 2000)).toEqual([[20], []])
    expect(send(130, NOW - 1000)).toEqual([[10], []])
  })

  it('a sum or gauge point without a value (neither asInt nor asDouble) is rejected, not stored as 0', () => {
    const out = map([sum('nv', [{ timeUnixNano: nanos(NOW) }]), { name: 'gv', gauge: { dataPoints: [{ timeUnixNano: nanos(NOW) }, { asDouble: 0 }] } }], { resourceTags: [] })
    expect([...out.rejected.values()]).toEqual([expect.stringMatching(/holds no value/), expect.stringMatching(/holds no value/)])
    expect(out.events).toEqual([{ metric: 'gv', value: 0, time: NOW, kind: 'gauge' }])
  })

  it('rejects the points that break a rule alone, each with its reason', () => {
    const out = map([
      sum('ok', [{ asInt: '1' }, { asInt: '1', attributes: [attr('k', 'x'.repeat(200))] }]),
      sum('bad name!!', [{ asInt: '1' }]),
      sum('far', [{ asInt: '1', timeUnixNano: nanos(NOW + 3_600_000) }]),
      { name: 's', summary: { dataPoints: [{ count: '1' }] } },
      sum('u', [{ asInt: '1' }], 0),
      sum('wide', [{ asInt: '1', attributes: Array.from({ length: 100_000 }, (_, i) => attr(`k${i}`, 'v')) }])
    ])
    expect(out.events.map(e => e.metric)).toEqual(['ok;service=shop', 'bad_name;service=shop'])
    expect([...out.rejected.values()]).toEqual([
      expect.stringMatching(/longer than 128 characters/),
      expect.stringMatching(/MAX_FUTURE_MS/),
      expect.stringMatching(/Summary/),
      expect.stringMatching(/aggregationTemporality is unspecified/),
      expect.stringMatching(/100000 attributes: a series has at most 16 tags/)
    ])
    expect(out.points).toBe(7)
  })

  it('an attribute of arrays nested deep is judged at the length of a tag value, not built: a 196-byte export is not seconds of CPU', () => {
    let nested = { stringValue: 'x' }
    for (let i = 0; i < 40; i++) nested = { arrayValue: { values: [nested] } }
    const wide = { kvlistValue: { values: Array.from({ length: 5000 }, (_, i) => ({ key: `k${i}`, value: nested })) } }
    // 40 levels made ~2^40 characters before: this map did not end
    const out = map([sum('deep', [{ asInt: '1', attributes: [{ key: 'a', value: nested }] }, { asInt: '1', attributes: [{ key: 'b', value: wide }] }, { asInt: '1', attributes: [{ key: 'c', value: { arrayValue: { values: [{ stringValue: 'x' }, { intValue: 2 }] } } }] }])])
    expect([...out.rejected.values()]).toEqual([expect.stringMatching(/longer than 128 characters/), expect.stringMatching(/longer than 128 characters/)])
    // a short one is its JSON, as before
    expect(out.events.map(e => e.metric)).toEqual(['deep;c=["x","2"];service=shop'])
  })

  it('skips a point flagged as holding no value, and counts exemplars', () => {
    const out = map([sum('x', [{ asInt: '1', flags: 1 }, { asInt: '2', exemplars: [{ asDouble: 1 }, { asDouble: 2 }] }])], { resourceTags: [] })
    expect(out.events).toEqual([{ metric: 'x', value: 2, time: NOW }])
    expect(out.exemplars).toBe(2)
  })

  it('a delta histogram is a distribution\'s values carrying the point\'s exact sum, min and max, and each bucket\'s worst relative error', () => {
    const out = map([{ name: 'rt', histogram: { aggregationTemporality: 1, dataPoints: [{ count: '4', sum: 123.5, min: 0.5, max: 100, explicitBounds: [1, 10], bucketCounts: ['1', '2', '1'] }] } }], { resourceTags: [] })
    const summary = { min: 0.5, max: 100 }
    // [0.5, 1] at 0.5: 1 is 50 % off; (1, 10] at 5.5: 1 is 450 % off; (10, 100] at 100: 10 is 900 % off
    expect(out.events).toEqual([
      { metric: 'rt', value: 0.5, time: NOW, kind: 'distribution', weight: 1, summary: { sum: 123.5, ...summary, bucketError: 0.5 } },
      { metric: 'rt', value: 5.5, time: NOW, kind: 'distribution', weight: 2, summary: { sum: 0, ...summary, bucketError: 4.5 } },
      { metric: 'rt', value: 100, time: NOW, kind: 'distribution', weight: 1, summary: { sum: 0, ...summary, bucketError: 9 } }
    ])
  })
})

/** OpenTelemetry's exponential bucketing, written out again: v > 0 at scale s in bucket ⌈log2(v)·2^s⌉ − 1 → { offset, bucketCounts } */
function exponential (values, scale) {
  const counts = new Map()
  for (const v of values) {
    const i = Math.ceil(Math.log2(v) * 2 ** scale) - 1
    counts.set(i, (counts.get(i) ?? 0) + 1)
  }
  if (counts.size === 0) return { offset: 0, bucketCounts: [] }
  const offset = Math.min(...counts.keys())
  const bucketCounts = Array.from({ length: Math.max(...counts.keys()) - offset + 1 }, (_, k) => String(counts.get(offset + k) ?? 0))
  return { offset, bucketCounts }
}

describe('cumulative histograms from one point to the next', () => {
  const exp = (dataPoints) => [{ name: 'lat', exponentialHistogram: { aggregationTemporality: 2, dataPoints } }]
  const point = (values, scale, t, extra = {}) => ({ count: String(values.length), sum: values.reduce((a, b) => a + b, 0), scale, zeroCount: '0', positive: exponential(values, scale), startTimeUnixNano: '1', timeUnixNano: nanos(NOW - 60_000 + t), ...extra })
  const countsByValue = (events) => events.reduce((m, e) => m.set(e.value, (m.get(e.value) ?? 0) + e.weight), new Map())

  it('an exponential one whose scale went down (the SDK downscales as its values spread) adds exactly the values of the period, at the new scale', () => {
    fc.assert(fc.property(
      fc.array(fc.integer({ min: 1, max: 1_000_000 }), { minLength: 1, maxLength: 30 }),
      fc.array(fc.integer({ min: 1, max: 1_000_000 }), { minLength: 1, maxLength: 30 }),
      fc.integer({ min: -2, max: 8 }), fc.integer({ min: 0, max: 6 }),
      (before, period, scale, by) => {
        const baselines = createCumulativeBaselines({ max: 10 })
        baselines.keep(map(exp([point(before, scale, 0)]), { baselines, resourceTags: [] }).baselineUpdates)
        const out = map(exp([point([...before, ...period], scale - by, 1000)]), { baselines, resourceTags: [] })
        expect(out.rejected).toEqual(new Map())
        // the model: the period's values alone, bucketed at the new scale, as a delta point
        const alone = map([{ name: 'lat', exponentialHistogram: { aggregationTemporality: 1, dataPoints: [point(period, scale - by, 1000)] } }], { resourceTags: [] })
        expect(countsByValue(out.events)).toEqual(countsByValue(alone.events))
        expect(out.events.reduce((a, e) => a + e.summary.sum, 0)).toBe(period.reduce((a, b) => a + b, 0))
      }))
  })

  it('an exponential one whose scale went up under the same start is a reset: the new baseline, nothing added', () => {
    const baselines = createCumulativeBaselines({ max: 10 })
    baselines.keep(map(exp([point([5, 9], 2, 0)]), { baselines, resourceTags: [] }).baselineUpdates)
    const out = map(exp([point([5, 9, 30], 3, 1000)]), { baselines, resourceTags: [] })
    expect(out.events).toEqual([])
    baselines.keep(out.baselineUpdates)
    expect(map(exp([point([5, 9, 30, 31], 3, 2000)]), { baselines, resourceTags: [] }).events.map(e => e.weight)).toEqual([1])
  })

  it('an exponential one of zeros alone (the SDK says scale 0 until a value is not 0) then at a fine scale adds the period exactly', () => {
    const baselines = createCumulativeBaselines({ max: 10 })
    baselines.keep(map(exp([{ count: '3', sum: 0, scale: 0, zeroCount: '3', startTimeUnixNano: '1', timeUnixNano: nanos(NOW - 60_000) }]), { baselines, resourceTags: [] }).baselineUpdates)
    const out = map(exp([{ ...point([5], 20, 1000), count: '4', zeroCount: '3' }]), { baselines, resourceTags: [] })
    expect(out.events.map(e => [e.weight, e.summary.sum])).toEqual([[1, 5]])
  })

  it('one without buckets adds the period\'s count at the period\'s mean, inside the start\'s min and max', () => {
    const baselines = createCumulativeBaselines({ max: 10 })
    const bare = (count, sum, t) => [{ name: 'b', histogram: { aggregationTemporality: 2, dataPoints: [{ count: String(count), sum, min: 1, max: 90, startTimeUnixNano: '1', timeUnixNano: nanos(NOW - 60_000 + t) }] } }]
    baselines.keep(map(bare(10, 100, 0), { baselines, resourceTags: [] }).baselineUpdates)
    // 5 more values summing to 150: at 30, not at the start's mean 250 / 15; a value of [1, 90] may be 2,900 % off (1)
    const out = map(bare(15, 250, 1000), { baselines, resourceTags: [] })
    expect(out.events).toEqual([{ metric: 'b', value: 30, time: NOW - 59_000, kind: 'distribution', weight: 5, summary: { sum: 150, min: 30, max: 30, bucketError: 29 } }])
  })
})

describe('a histogram point of large values', () => {
  it('carries its whole sum on its buckets by weight where its first bucket\'s weight cannot: every event one the ingest rules take, the sum exact', () => {
    // 1 value under 1, 1,000 values of 3e12: a sum of 3e15, past what a weight of 1 carries (1e15)
    const p = { count: '1001', sum: 0.5 + 3e15, min: 0.5, max: 3e12, explicitBounds: [1], bucketCounts: ['1', '1000'] }
    const out = map([{ name: 'big', histogram: { aggregationTemporality: 1, dataPoints: [p] } }], { resourceTags: [] })
    expect(out.rejected).toEqual(new Map())
    expect(out.events.map(e => e.weight)).toEqual([1, 1000])
    expect(findInvalidEvent(out.events, NOW, config)).toBeNull()
    expect(KINDS.find(k => k.name === 'distribution').findInvalidEvents(out.events)).toBeNull()
    expect(out.events[0].summary.sum + out.events[1].summary.sum).toBe(p.sum)
    // shares by weight rounded past their bound (35/2,100 of 2,100e15 is 3.5000000000000004e16 > 35e15) are held to it
    const weights = [35, 50, 9, 910, 141, 724, 241]
    const total = weights.reduce((a, b) => a + b, 0)
    const edge = { count: String(total), sum: 1e15 * total, min: 1e15, max: 1e15, explicitBounds: weights.slice(1).map((_, i) => i + 1), bucketCounts: weights.map(String) }
    const held = map([{ name: 'edge', histogram: { aggregationTemporality: 1, dataPoints: [edge] } }], { resourceTags: [] })
    expect(held.rejected).toEqual(new Map())
    expect(held.events.map(e => e.weight)).toEqual(weights)
    expect(KINDS.find(k => k.name === 'distribution').findInvalidEvents(held.events)).toBeNull()
    // a mean past the largest value an event may carry is still refused
    const over = map([{ name: 'big', histogram: { aggregationTemporality: 1, dataPoints: [{ ...p, sum: 2e18, min: 0.5, max: 1e15 }] } }], { resourceTags: [] })
    expect([...over.rejected.values()]).toEqual([expect.stringMatching(/sum/)])
  })
})

describe('a point\'s series, judged once per name and pairs', () => {
  // the tags' own functions, uncached, are the model
  const model = (name, pairs) => {
    const { tags, problem } = checkTags(pairs)
    return problem ? { problem } : { series: formatSeriesName(name, tags) }
  }
  const text = fc.string({ unit: fc.constantFrom('a', 'b', ';', '=', '1', '\u0000', ':', '~'), maxLength: 4 })

  it('answers what checkTags and formatSeriesName answer, the first time and again, for any pairs (no two lists make one key)', () => {
    fc.assert(fc.property(fc.constantFrom('n', 'n:1', 'n1'), fc.array(fc.tuple(text, text), { maxLength: 4 }), (name, pairs) => {
      expect(seriesOf(name, pairs)).toEqual(model(name, pairs))
      expect(seriesOf(name, pairs)).toEqual(model(name, pairs))
    }), { numRuns: 2000 })
  })

  it('tells apart pairs whose parts join alike', () => {
    expect(seriesOf('n', [['a', 'b1:c'], ['d', 'e']])).toEqual({ series: 'n;a=b1:c;d=e' })
    expect(seriesOf('n', [['a', 'b'], ['c', 'd'], ['d', 'e']])).toEqual({ series: 'n;a=b;c=d;d=e' })
    expect(seriesOf('n', [['a', 'b1:c']]).series).toBe('n;a=b1:c')
  })
})

describe('protobuf oneofs (a point\'s value, a metric\'s data)', () => {
  it('name the member read last, as protobufjs\'s own accessors do, decoded or built from JSON', () => {
    // asDouble (field 4, 1.5) then asInt (field 6, 7) on the wire in one NumberDataPoint: the last read wins
    const dp = Buffer.concat([Buffer.from([0x21]), Buffer.from(new Float64Array([1.5]).buffer), Buffer.from([0x31, 7, 0, 0, 0, 0, 0, 0, 0])])
    const gauge = Buffer.concat([Buffer.from([0x0a, dp.length]), dp])
    const metric = Buffer.concat([Buffer.from([0x0a, 1, 0x67, 0x2a, gauge.length]), gauge]) // name "g", gauge (field 5)
    const sm = Buffer.concat([Buffer.from([0x12, metric.length]), metric])
    const rm = Buffer.concat([Buffer.from([0x12, sm.length]), sm])
    const whole = Buffer.concat([Buffer.from([0x0a, rm.length]), rm])
    const { request: decoded } = decodeRequest(whole, 'application/x-protobuf')
    const m = decoded.resourceMetrics[0].scopeMetrics[0].metrics[0]
    expect(m.data).toBe('gauge')
    expect(m.gauge.dataPoints[0].value).toBe('asInt')
    expect(pointsOf(decoded, { now: NOW, config, resourceTags: [], baselines: null }).events).toEqual([{ metric: 'g', value: 7, time: NOW, kind: 'gauge' }])
    const built = request([{ name: 'g', gauge: { dataPoints: [{ asDouble: 2.5 }] } }])
    expect(built.resourceMetrics[0].scopeMetrics[0].metrics[0].data).toBe('gauge')
    expect(built.resourceMetrics[0].scopeMetrics[0].metrics[0].gauge.dataPoints[0].value).toBe('asDouble')
  })
})

describe('a bucket\'s worst relative error', () => {
  it('bounds |r − x| / |x| for every x of the bucket inside [min, max], and is reached at one of its ends', () => {
    const finite = fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true })
    fc.assert(fc.property(fc.array(finite, { minLength: 4, maxLength: 4 }), fc.double({ min: 0, max: 1, noNaN: true }), (four, t) => {
      const [lo, min, max, hi] = [...four].sort((a, b) => a - b) // min, max inside (lo, hi]: a bucket and the point's range
      fc.pre(lo < hi && min <= max && lo < min)
      const r = min + (max - min) * 0.37 // the representative: inside [min, max]
      // any value of the bucket the point may hold: inside [min, max] (min + (max − min)·t may round past max, by
      // 1e-9 of x where x is 1e7 times nearer 0 than min)
      const x = Math.min(max, Math.max(min, min + (max - min) * t))
      const e = bucketError(r, lo, hi, min, max)
      if (x !== 0) expect(Math.abs(r - x) / Math.abs(x)).toBeLessThanOrEqual(e * (1 + 1e-9) + 1e-12) // x = min + (max − min)·t rounds
      const atEnds = [min, max].filter(v => v !== 0).map(v => Math.abs(r - v) / Math.abs(v))
      if (Number.isFinite(e)) expect(atEnds.length ? Math.max(...atEnds) : 0).toBeCloseTo(e, 9) // min = max = 0: one value, 0 off
      else expect((min <= 0 && max >= 0) || Math.max(...atEnds) === Infinity).toBe(true) // reaching 0, or past doubles
    }), { numRuns: 3000 })
  })

  it('is Infinity for an open bucket with no min or max to close it, 0 for a bucket of one value', () => {
    expect(bucketError(5, null, 10, null, null)).toBe(Infinity)
    expect(bucketError(7, 5, 10, 7, 7)).toBe(0)
  })

  it('says what limits a quantile: the buckets where their error passes α, else the sketch', () => {
    expect(quantileAccuracy({ count: 3 }, 0.01)).toEqual({ relativeError: 0.01, limitedBy: 'sketch' })
    expect(quantileAccuracy({ count: 3, bucketError: 0.005 }, 0.01)).toEqual({ relativeError: 1.005 * 1.01 - 1, limitedBy: 'sketch' })
    expect(quantileAccuracy({ count: 3, bucketError: 0.25 }, 0.01)).toEqual({ relativeError: 1.25 * 1.01 - 1, limitedBy: 'buckets' })
    expect(quantileAccuracy({ count: 3, bucketError: Infinity }, 0.01)).toEqual({ relativeError: null, limitedBy: 'buckets' })
  })
})

describe('a histogram\'s buckets', () => {
  it('explicit: the middle of (lo, hi], the open ends at min and max, each clamped to them', () => {
    expect(histogramBuckets('histogram', { count: 5, min: 2, max: 8, explicitBounds: [0, 3, 10], bucketCounts: [0, 2, 3, 0] }).buckets.map(b => b.slice(0, 2)))
      .toEqual([[2, 0], [2, 2], [6.5, 3], [8, 0]])
    expect(histogramBuckets('histogram', { count: 2, explicitBounds: [1], bucketCounts: [1, 2] }).problem).toMatch(/hold 3 values, the point's count is 2/)
    expect(histogramBuckets('histogram', { count: 1, explicitBounds: [1, 1], bucketCounts: [1, 0, 0] }).problem).toMatch(/increase/)
    // one bucket open on both sides, no min or max: at the mean, as a histogram without buckets
    expect(histogramBuckets('histogram', { count: 2, sum: 100, explicitBounds: [], bucketCounts: [2] }).buckets.map(b => b.slice(0, 2))).toEqual([[50, 2]])
    expect(histogramBuckets('histogram', { count: 2, sum: 100, explicitBounds: [] }).buckets.map(b => b.slice(0, 2))).toEqual([[50, 2]])
  })

  it('exponential at scale −10, the lowest (base 2^1024, past a double): its buckets from the base\'s log', () => {
    const h = histogramBuckets('exponentialHistogram', { count: 2, sum: 5, scale: -10, positive: { offset: 0, bucketCounts: [1] }, negative: { offset: -1, bucketCounts: [1] } })
    expect(h.problem).toBeUndefined()
    // (1, 2^1024] at 2·1/(1 + 2^−1024) = 2; −(2^−1024, 1] at −2·2^−1024/(1 + 2^−1024)
    expect(h.buckets.map(b => b.slice(0, 2))).toEqual([[2, 1], [-2 * Math.pow(2, -1024), 1]])
    expect(h.buckets.every(b => Number.isFinite(b[0]))).toBe(true)
    // scale −9 as before: base 2^512
    expect(histogramBuckets('exponentialHistogram', { count: 1, scale: -9, positive: { offset: 0, bucketCounts: [1] } }).buckets[0][0]).toBe(2 * Math.pow(2, 512) / (1 + Math.pow(2, 512)))
  })

  it('exponential: (b^i, b^(i+1)] at 2·b^(i+1)/(1+b), negative buckets mirrored, the zero bucket at 0', () => {
    const h = histogramBuckets('exponentialHistogram', { count: 4, scale: 0, zeroCount: 1, positive: { offset: 1, bucketCounts: [2] }, negative: { offset: 0, bucketCounts: [1] } })
    // scale 0: base 2; positive bucket 1 is (2, 4]: 2·4/3; negative bucket 0 is −(1, 2]: −2·2/3
    expect(h.buckets.map(b => b.slice(0, 2))).toEqual([[0, 1], [8 / 3, 2], [-4 / 3, 1]])
  })

  it('exponential: a zeroThreshold t puts values of [−t, t] at 0, each up to 100 % off (0 where min and max are 0); a bad one is refused', () => {
    const zero = (extra) => histogramBuckets('exponentialHistogram', { count: 3, scale: 0, zeroCount: 3, ...extra })
    expect(zero({}).buckets).toEqual([[0, 3, 'z', 0]])
    expect(zero({ zeroThreshold: 0.001 }).buckets).toEqual([[0, 3, 'z', 1]])
    expect(zero({ zeroThreshold: 0.001, min: 0, max: 0 }).buckets).toEqual([[0, 3, 'z', 0]])
    for (const bad of [-1, NaN, Infinity]) expect(zero({ zeroThreshold: bad }).problem).toMatch(/zeroThreshold/)
  })

  it('downscaledPlace: bucket i at scale s lies in bucket ⌊i / 2^by⌋ at scale s − by, on either side; the zero bucket stays', () => {
    expect(['5p', '-5n', '0n', '-1n', '7p', '-8p'].map(p => downscaledPlace(p, 1))).toEqual(['2p', '-2n', '0n', '0n', '3p', '-4p'])
    expect(downscaledPlace('z', 3)).toBe('z')
    expect(downscaledPlace('13p', 0)).toBe('13p')
  })
})

describe('the cumulative baselines', () => {
  it('hold at most `max` series, the least recently seen forgotten first', () => {
    const b = createCumulativeBaselines({ max: 2 })
    b.keep(new Map([['a', 1], ['b', 2]]))
    b.keep(new Map([['a', 3], ['c', 4]]))
    expect([b.get('a'), b.get('b'), b.get('c'), b.size]).toEqual([3, undefined, 4, 2])
  })

  it(`hold at most maxValues running totals (by default ${VALUES_PER_SERIES} a series), the least recently seen forgotten first; the newest is kept whatever it holds`, () => {
    const state = (n) => ({ values: new Map(Array.from({ length: n }, (_, i) => [String(i), i])) })
    const b = createCumulativeBaselines({ max: 100, maxValues: 10 })
    b.keep(new Map([['a', state(4)], ['b', state(4)]]))
    expect([b.size, b.values]).toEqual([2, 8])
    b.keep(new Map([['c', state(4)]])) // 12 > 10: a goes
    expect([b.get('a'), b.size, b.values]).toEqual([undefined, 2, 8])
    b.keep(new Map([['b', state(1)]])) // b replaced: its 4 give way to 1
    expect([b.size, b.values]).toEqual([2, 5])
    b.keep(new Map([['huge', state(16_000)]])) // alone over the bound: kept, the others go
    expect([b.get('b'), b.get('c'), b.size, b.values]).toEqual([undefined, undefined, 1, 16_000])
    const replaced = b.keep(new Map([['d', state(2)]]))
    expect([b.get('huge'), b.values]).toEqual([undefined, 2])
    b.giveBack(new Map([['d', b.get('d')]]), replaced)
    expect([b.size, b.values]).toEqual([0, 0])
    // the default: 16 a series (max 3: 48 values)
    const byDefault = createCumulativeBaselines({ max: 3 })
    byDefault.keep(new Map([['x', state(48)]]))
    expect(byDefault.size).toBe(1)
    byDefault.keep(new Map([['y', state(1)]]))
    expect([byDefault.get('x'), byDefault.size, byDefault.values]).toEqual([undefined, 1, 1])
  })

  it('give back what a request kept when its write did not happen, unless a later request kept its own since', () => {
    const b = createCumulativeBaselines({ max: 10 })
    b.keep(new Map([['a', 'a0']]))
    const first = new Map([['a', 'a1'], ['n', 'n1']])
    const replaced = b.keep(first)
    b.giveBack(first, replaced)
    expect([b.get('a'), b.get('n')]).toEqual(['a0', undefined])
    const again = b.keep(first)
    b.keep(new Map([['a', 'a2']]))
    b.giveBack(first, again)
    expect([b.get('a'), b.get('n')]).toEqual(['a2', undefined])
  })
})

describe('a distribution event\'s summary', () => {
  const mapping = createMapping(0.01)
  const time = Date.UTC(2026, 10, 21, 13, 7, 45)
  const events = [
    { metric: 'rt', value: 5.5, time, kind: 'distribution', weight: 2, summary: { sum: 123.5, min: 0.5, max: 100 } },
    { metric: 'rt', value: 100, time, kind: 'distribution', weight: 1, summary: { sum: 0, min: 0.5, max: 100 } }
  ]

  it('adds its sum and narrows min and max to its own, in the batch as in the one-event form', () => {
    const unit = buildDistributionUnit(events, mapping)
    const day = unit.daily.get('rt/20261121')
    const one = events.map(e => distributionEventUpdates(e, mapping).daily)
    expect(day.inc['daily.count']).toBe(3)
    expect(day.inc['daily.sum']).toBe(123.5)
    expect(day.min['daily.min']).toBe(0.5)
    expect(day.max['daily.max']).toBe(100)
    expect(one[0].inc['minute.13.7.sum'] + one[1].inc['minute.13.7.sum']).toBe(day.inc['minute.13.7.sum'])
    expect(unit.minutes.get('rt/2026112113').inc['minute.7.sum']).toBe(123.5)
  })
})

describe('OTLP_RESOURCE_TAGS', () => {
  it('is service.name → service by default; attribute=tag or attribute, comma-separated; a bad tag key refused by name', () => {
    expect(loadConfig({}).otlpResourceTags).toEqual([['service.name', 'service']])
    expect(loadConfig({ OTLP_RESOURCE_TAGS: 'service.name=svc, deployment.environment' }).otlpResourceTags).toEqual([['service.name', 'svc'], ['deployment.environment', 'deployment.environment']])
    expect(loadConfig({ OTLP_RESOURCE_TAGS: '' }).otlpResourceTags).toEqual([])
    expect(() => loadConfig({ OTLP_RESOURCE_TAGS: 'host.name=bad key' })).toThrow(/OTLP_RESOURCE_TAGS/)
  })
})

describe('hostile OTLP JSON', () => {
  // OTLP-shaped objects whose fields take any JSON value: the decoder answers a problem or a request, and the mapping never throws
  const anyJson = fc.letrec(tie => ({
    value: fc.oneof({ depthSize: 'small' }, fc.constant(null), fc.boolean(), fc.double(), fc.integer(), fc.string({ maxLength: 8 }), fc.constantFrom('1', '-1', '1e400', 'NaN', '9223372036854775807'), fc.array(tie('value'), { maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 4 }), tie('value'), { maxKeys: 3 }))
  })).value
  // a field of the right shape mostly, of any JSON sometimes
  const maybe = (arb) => fc.oneof({ weight: 30, arbitrary: arb }, { weight: 1, arbitrary: anyJson })
  const point = fc.record({
    asInt: maybe(fc.constantFrom('1', '7')),
    asDouble: maybe(fc.double()),
    timeUnixNano: maybe(fc.constant(nanos(NOW))),
    startTimeUnixNano: maybe(fc.constant('1')),
    count: maybe(fc.constantFrom('0', '2')),
    sum: maybe(fc.double()),
    min: maybe(fc.double()),
    max: maybe(fc.double()),
    explicitBounds: maybe(fc.array(fc.double(), { maxLength: 3 })),
    bucketCounts: maybe(fc.array(fc.constantFrom('0', '1'), { maxLength: 4 })),
    scale: maybe(fc.integer({ min: -12, max: 22 })),
    zeroCount: maybe(fc.constantFrom('0', '1')),
    positive: maybe(fc.record({ offset: fc.integer({ min: -2000, max: 2000 }), bucketCounts: fc.array(fc.constantFrom('0', '1', '3'), { maxLength: 4 }) })),
    attributes: maybe(fc.array(fc.record({ key: maybe(fc.constantFrom('k', 'service', 'bad key')), value: maybe(fc.record({ stringValue: fc.string({ maxLength: 5 }) })) }), { maxLength: 3 })),
    flags: maybe(fc.constantFrom(0, 0, 0, 1))
  }, { requiredKeys: [] })
  const data = (pts) => fc.oneof(
    fc.record({ sum: fc.record({ aggregationTemporality: maybe(fc.integer({ min: 0, max: 3 })), isMonotonic: maybe(fc.boolean()), dataPoints: pts }, { requiredKeys: [] }) }),
    fc.record({ gauge: fc.record({ dataPoints: pts }, { requiredKeys: [] }) }),
    fc.record({ histogram: fc.record({ aggregationTemporality: maybe(fc.integer({ min: 0, max: 3 })), dataPoints: pts }, { requiredKeys: [] }) }),
    fc.record({ exponentialHistogram: fc.record({ aggregationTemporality: maybe(fc.integer({ min: 0, max: 3 })), dataPoints: pts }, { requiredKeys: [] }) }),
    fc.record({ summary: fc.record({ dataPoints: pts }, { requiredKeys: [] }) })
  )
  const metric = fc.tuple(maybe(fc.constantFrom('m', 'a b', '')), data(maybe(fc.array(point, { maxLength: 3 })))).map(([name, d]) => ({ name, ...d }))
  const body = fc.record({ resourceMetrics: maybe(fc.array(fc.record({ resource: maybe(fc.record({ attributes: fc.constant([attr('service.name', 'x')]) })), scopeMetrics: maybe(fc.array(fc.record({ metrics: maybe(fc.array(metric, { maxLength: 3 })) }), { maxLength: 2 })) }, { requiredKeys: [] }), { maxLength: 2 })) }, { requiredKeys: [] })

  it('is answered with a problem or mapped to events, never a throw; every event one the ingest service takes', () => {
    const seen = { problems: 0, events: 0, rejected: 0 }
    fc.assert(fc.property(body, (object) => {
      const { request, problem } = decodeRequest(Buffer.from(JSON.stringify(object)), 'application/json')
      if (problem) { seen.problems++; return typeof problem === 'string' }
      const baselines = createCumulativeBaselines({ max: 100 })
      const out = pointsOf(request, { now: NOW, config, resourceTags: [['service.name', 'service']], baselines })
      baselines.keep(out.baselineUpdates)
      const invalid = findInvalidEvent(out.events, NOW, config) ?? findInvalidSeries(out.events) ?? KINDS.reduce((found, k) => found ?? k.findInvalidEvents(out.events), null)
      expect(invalid).toBeNull()
      expect(out.eventPoint.length).toBe(out.events.length)
      if (out.events.length > 0) seen.events++
      if (out.rejected.size > 0) seen.rejected++
      return true
    }), { numRuns: 1000 })
    // the runs reached each outcome: refused bodies, kept points, rejected points
    expect(Object.values(seen).every(n => n >= 10), JSON.stringify(seen)).toBe(true)
  })

  it('as protobuf, cut short or with bytes flipped: a problem or events, never a throw', () => {
    fc.assert(fc.property(body, fc.nat(), fc.nat(255), (object, at, byte) => {
      const { request } = decodeRequest(Buffer.from(JSON.stringify(object)), 'application/json')
      if (!request) return true
      const bytes = Buffer.from(ExportMetricsServiceRequest.encode(request).finish())
      if (bytes.length === 0) return true
      const flipped = Buffer.from(bytes)
      flipped[at % bytes.length] = byte
      for (const damaged of [bytes.subarray(0, at % bytes.length), flipped]) {
        const decoded = decodeRequest(damaged, 'application/x-protobuf')
        if (decoded.problem) continue
        pointsOf(decoded.request, { now: NOW, config, resourceTags: [], baselines: createCumulativeBaselines({ max: 10 }) })
      }
      return true
    }), { numRuns: 500 })
  })
})
