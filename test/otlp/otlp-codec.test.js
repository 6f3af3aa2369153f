// The OTLP codec's count of data points on the wire (pointsOnWire), held
// against protobufjs's own decoding of the same bytes: messages of every
// data kind, merged (two encodings one after the other, as protobuf merges
// them), with members of the data oneof side by side, unknown fields, and
// a data field sent with the wrong wire type; and 64-bit integers decoded
// as numbers.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ExportMetricsServiceRequest, JSON_TYPE, PROTOBUF, decodeRequest, pointsOnWire } from '../../src/otlp/otlp-codec.js'

const DATA = ['gauge', 'sum', 'histogram', 'exponentialHistogram', 'summary']
const encode = (object) => Buffer.from(ExportMetricsServiceRequest.encode(ExportMetricsServiceRequest.fromObject(object)).finish())

/** Every data point protobufjs decoded, of every member of every metric's data */
function decodedPoints (bytes) {
  const request = ExportMetricsServiceRequest.decode(bytes)
  let n = 0
  for (const rm of request.resourceMetrics) for (const sm of rm.scopeMetrics) for (const m of sm.metrics) for (const d of DATA) n += m[d]?.dataPoints?.length ?? 0
  return n
}

const point = fc.record({ asInt: fc.constantFrom('1', '7'), attributes: fc.array(fc.record({ key: fc.constantFrom('a', 'b'), value: fc.record({ stringValue: fc.string({ maxLength: 3 }) }) }), { maxLength: 2 }) })
// a metric with one or more members of its data oneof (a sender may encode several; protobufjs decodes each)
const metric = fc.record({
  name: fc.string({ maxLength: 4 }),
  unit: fc.constantFrom('', 'ms'),
  data: fc.uniqueArray(fc.constantFrom(...DATA), { minLength: 1, maxLength: 3 }),
  points: fc.array(point, { maxLength: 4 })
}).map(({ name, unit, data, points }) => Object.fromEntries([['name', name], ['unit', unit], ...data.map(d => [d, { dataPoints: points }])]))
const request = fc.array(fc.record({
  resource: fc.record({ attributes: fc.array(fc.record({ key: fc.constant('service.name'), value: fc.record({ stringValue: fc.string({ maxLength: 3 }) }) }), { maxLength: 1 }) }),
  scopeMetrics: fc.array(fc.record({ scope: fc.record({ name: fc.string({ maxLength: 3 }) }), metrics: fc.array(metric, { maxLength: 3 }) }), { maxLength: 3 })
}), { maxLength: 3 }).map(resourceMetrics => ({ resourceMetrics }))

describe('pointsOnWire', () => {
  it('counts what protobufjs decodes, for one request or two merged, every member of a metric\'s data', () => {
    fc.assert(fc.property(request, request, (a, b) => {
      for (const bytes of [encode(a), Buffer.concat([encode(a), encode(b)])]) {
        expect(pointsOnWire(bytes)).toBe(decodedPoints(bytes))
      }
    }), { numRuns: 300 })
  })

  it('stops once past stopPast, having counted one more', () => {
    const bytes = encode({ resourceMetrics: [{ scopeMetrics: [{ metrics: [{ name: 'm', gauge: { dataPoints: Array(50).fill({ asDouble: 1 }) } }] }] }] })
    expect(pointsOnWire(bytes)).toBe(50)
    expect(pointsOnWire(bytes, 50)).toBe(50)
    expect(pointsOnWire(bytes, 10)).toBe(11)
  })

  it('skips a data field of another wire type, as protobufjs does (an unknown field)', () => {
    // Metric { name: 'm' (field 1), gauge (field 5) sent as a varint, then a gauge of one empty point }
    const metricBytes = Buffer.from([0x0a, 0x01, 0x6d, 0x28, 0x07, 0x2a, 0x02, 0x0a, 0x00])
    const bytes = Buffer.concat([Buffer.from([0x0a, metricBytes.length + 4, 0x12, metricBytes.length + 2, 0x12, metricBytes.length]), metricBytes])
    expect(decodedPoints(bytes)).toBe(1)
    expect(pointsOnWire(bytes)).toBe(1)
  })

  it('is null for bytes that are not protobuf, which the decoder then names', () => {
    const bytes = encode({ resourceMetrics: [{ scopeMetrics: [{ metrics: [{ name: 'm', gauge: { dataPoints: [{ asDouble: 1 }] } }] }] }] })
    for (const bad of [bytes.subarray(0, bytes.length - 3), Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f]), Buffer.from([0x0a, 0x05, 0x12])]) {
      expect(pointsOnWire(bad)).toBeNull()
      expect(decodeRequest(bad, PROTOBUF).problem).toMatch(/not an OTLP ExportMetricsServiceRequest in protobuf/)
    }
  })
})

describe('decodeRequest', () => {
  it('refuses more than maxPoints before decoding, in protobuf and in JSON, and decodes up to it', () => {
    const object = { resourceMetrics: [{ scopeMetrics: [{ metrics: [{ name: 'm', sum: { dataPoints: Array(20).fill({ asInt: '1' }) } }, { name: 'g', gauge: { dataPoints: Array(5).fill({ asDouble: 1 }) } }] }] }] }
    expect(decodeRequest(encode(object), PROTOBUF, { maxPoints: 24 })).toEqual({ tooManyPoints: 25 })
    expect(decodeRequest(Buffer.from(JSON.stringify(object)), JSON_TYPE, { maxPoints: 24 })).toEqual({ tooManyPoints: 25 })
    expect(decodeRequest(encode(object), PROTOBUF, { maxPoints: 25 }).request.resourceMetrics[0].scopeMetrics[0].metrics).toHaveLength(2)
    expect(decodeRequest(Buffer.from(JSON.stringify(object)), JSON_TYPE, { maxPoints: 25 }).request.resourceMetrics[0].scopeMetrics[0].metrics).toHaveLength(2)
  })

  it('reads 64-bit integers as numbers, past 2^53 as the nearest double, in protobuf and JSON alike', () => {
    const nanos = '1764500000123456789'
    const object = { resourceMetrics: [{ scopeMetrics: [{ metrics: [{ name: 'h', histogram: { dataPoints: [{ timeUnixNano: nanos, count: '3', bucketCounts: ['1', '2'], explicitBounds: [5] }] } }] }] }] }
    for (const [body, type] of [[encode(object), PROTOBUF], [Buffer.from(JSON.stringify(object)), JSON_TYPE]]) {
      const p = decodeRequest(body, type).request.resourceMetrics[0].scopeMetrics[0].metrics[0].histogram.dataPoints[0]
      expect(p.timeUnixNano).toBe(Number(BigInt(nanos)))
      expect(p.count).toBe(3)
      expect(p.bucketCounts).toEqual([1, 2])
    }
  })
})
