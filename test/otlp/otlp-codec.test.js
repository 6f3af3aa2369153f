// The OTLP codec's count of data points on the wire (pointsOnWire), held
// against protobufjs's own decoding of the same bytes: messages of every
// data kind, merged (two encodings one after the other, as protobuf merges
// them), with members of the data oneof side by side, unknown fields, and
// a data field sent with the wrong wire type; and 64-bit integers decoded
// as numbers. Its count of every message and byte string (countOnWire, and
// messagesIn for JSON) never below what protobufjs makes, for random wire
// bytes read through the definitions; a body of a million empty messages
// of any kind refused without decoding it (docs/adr/0093-otlp-message-budget.md).
import fc from 'fast-check'
import protobuf from 'protobufjs'
import { describe, expect, it, vi } from 'vitest'
import { ExportMetricsServiceRequest, JSON_TYPE, MAX_MESSAGES, MESSAGES_PER_POINT, MESSAGES_PER_REQUEST, PROTOBUF, countOnWire, decodeRequest, messagesIn, pointsOnWire } from '../../src/otlp/otlp-codec.js'

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

const varint = (n) => { const out = []; for (; n > 127; n = Math.floor(n / 128)) out.push((n % 128) | 128); out.push(n); return Buffer.from(out) }
const delimited = (id, bytes) => Buffer.concat([varint(id * 8 + 2), varint(bytes.length), bytes])
// a field of each wire type: a varint, 8 bytes, a length-delimited run (`bytes`), 4 bytes
const fieldOf = (id, wire, bytes = Buffer.from('ab')) => (wire === 2 ? delimited(id, bytes) : Buffer.concat([varint(id * 8 + wire), { 0: varint(300), 1: Buffer.alloc(8, 1), 5: Buffer.alloc(4, 1) }[wire]]))
const isMessage = (field) => field.resolvedType instanceof protobuf.Type

/** What protobufjs made of a request (decoded, or by fromObject): its messages, its own among them, and the byte strings it kept, walked by reflection */
function made (message, type = ExportMetricsServiceRequest, n = { messages: 0, byteStrings: 0 }) {
  n.messages++
  for (const field of type.fieldsArray) {
    if (!Object.hasOwn(message, field.name)) continue // unset: the prototype's default, nothing made
    const values = field.repeated ? message[field.name] : [message[field.name]]
    if (isMessage(field)) for (const v of values) made(v, field.resolvedType, n)
    else if (field.type === 'bytes') n.byteStrings += values.length
  }
  return n
}

// what a length-delimited field of the definitions holds: a message nothing, or an unknown varint field, or now
// and then a few random bytes (most often not protobuf); a string or bytes '' or 'ab'; a packed scalar nothing
const NOTHING = Buffer.alloc(0)
const AB = Buffer.from('ab')
const contents = (field) => {
  if (isMessage(field)) return fc.oneof({ arbitrary: fc.constantFrom(NOTHING, fieldOf(2000, 0)), weight: 10 }, { arbitrary: fc.uint8Array({ minLength: 1, maxLength: 3 }).map(b => Buffer.from(b)), weight: 1 })
  return fc.constant(field.type === 'string' || field.type === 'bytes' ? AB : NOTHING)
}
const wires = new Map()
/**
 * Random wire bytes of a message of `type`, nesting `depth` levels more at most: any fields of the definitions
 * in any number and order (a non-repeated message field again: merged; members of a oneof side by side), each
 * message field its own such bytes; fields of the definitions of any wire type (a message field of another
 * skipped), holding `contents` when length-delimited; unknown fields
 */
function wireOf (type, depth) {
  const key = `${type.fullName} ${depth}`
  if (!wires.has(key)) {
    const parts = [
      { arbitrary: fc.constantFrom(...type.fieldsArray).chain(f => fc.tuple(fc.constantFrom(0, 1, 2, 5), contents(f)).map(([wire, bytes]) => fieldOf(f.id, wire, bytes))), weight: 2 },
      { arbitrary: fc.tuple(fc.integer({ min: 50, max: 3000 }), fc.constantFrom(0, 1, 2, 5)).map(([id, wire]) => fieldOf(id, wire)), weight: 1 },
      // a message field most often, so that the bytes reach down to points, exemplars and attributes' values
      ...(depth === 0 ? [] : type.fieldsArray.filter(isMessage).map(f => ({ arbitrary: wireOf(f.resolvedType, depth - 1).map(bytes => delimited(f.id, bytes)), weight: 6 })))
    ]
    wires.set(key, fc.array(fc.oneof(...parts), { minLength: depth > 6 ? 1 : 0, maxLength: 3 }).map(list => Buffer.concat(list)))
  }
  return wires.get(key)
}

describe('countOnWire', () => {
  // a request to an exemplar's filtered attribute's array of values is 12 levels
  const wire = wireOf(ExportMetricsServiceRequest, 12)

  it('never counts fewer messages or byte strings than protobufjs makes, and the points it makes, reading no stricter than it', () => {
    let decoded = 0
    fc.assert(fc.property(wire, wire, (a, b) => {
      for (const bytes of [a, Buffer.concat([a, b])]) {
        const counts = countOnWire(bytes)
        let request
        try {
          request = ExportMetricsServiceRequest.decode(bytes)
        } catch {
          continue // not protobuf: the decoder says so
        }
        decoded++
        expect(counts).not.toBeNull() // the walk read what the decoder did
        const n = made(request)
        expect(counts.messages).toBeGreaterThanOrEqual(n.messages)
        expect(counts.byteStrings).toBeGreaterThanOrEqual(n.byteStrings)
        expect(counts.points).toBe(decodedPoints(bytes))
        // a budget below what it makes: refused, not decoded
        if (n.messages > 1) expect(decodeRequest(bytes, PROTOBUF, { maxMessages: n.messages - 1 }).tooManyMessages).toBe(n.messages - 1)
      }
    }), { numRuns: 400 })
    expect(decoded).toBeGreaterThan(200) // most are protobuf
  })

  it('counts in JSON the messages fromObject makes', () => {
    fc.assert(fc.property(request, (object) => {
      const parsed = JSON.parse(JSON.stringify(object))
      expect(messagesIn(parsed)).toBeGreaterThanOrEqual(made(ExportMetricsServiceRequest.fromObject(parsed)).messages)
    }), { numRuns: 200 })
  })

  /** A body of about 2 MiB: the request's fields along `path` (their names, from the request in), the last sent over and over, `inner` in each */
  function flood (path, inner = Buffer.alloc(0)) {
    let type = ExportMetricsServiceRequest
    const ids = path.map(name => { const f = type.fields[name]; type = f.resolvedType; return f.id })
    const one = delimited(ids.pop(), inner)
    const many = Buffer.alloc(Math.floor((2 * 1024 * 1024 - 64) / one.length) * one.length, one)
    return ids.reduceRight((bytes, id) => delimited(id, bytes), many)
  }
  const metric = ['resourceMetrics', 'scopeMetrics', 'metrics']
  const attribute = ['resourceMetrics', 'resource', 'attributes']
  const empty = Buffer.alloc(0)

  it.each([
    ['resources', ['resourceMetrics']],
    ['a resource, merged', ['resourceMetrics', 'resource']],
    ['scopes', ['resourceMetrics', 'scopeMetrics']],
    ['a scope, merged', ['resourceMetrics', 'scopeMetrics', 'scope']],
    ['scope attributes', ['resourceMetrics', 'scopeMetrics', 'scope', 'attributes']],
    ['metrics', metric],
    ['a metric\'s gauge, merged', [...metric, 'gauge']],
    ['metric metadata', [...metric, 'metadata']],
    ['resource attributes', attribute],
    ['resource attributes with a value', attribute, delimited(2, empty)],
    ['an attribute\'s value, merged', [...attribute, 'value']],
    ['array values', [...attribute, 'value', 'arrayValue', 'values']],
    ['key-value list values', [...attribute, 'value', 'kvlistValue', 'values']],
    ['entity refs', ['resourceMetrics', 'resource', 'entityRefs']],
    ['point attributes', [...metric, 'sum', 'dataPoints', 'attributes']],
    ['exemplars', [...metric, 'gauge', 'dataPoints', 'exemplars']],
    ['histogram exemplars', [...metric, 'histogram', 'dataPoints', 'exemplars']],
    ['exemplar attributes', [...metric, 'gauge', 'dataPoints', 'exemplars', 'filteredAttributes']],
    ['buckets, merged', [...metric, 'exponentialHistogram', 'dataPoints', 'positive']],
    ['quantile values', [...metric, 'summary', 'dataPoints', 'quantileValues']],
    ['span ids (byte strings)', [...metric, 'gauge', 'dataPoints', 'exemplars', 'spanId']],
    ['bytes values (byte strings)', [...attribute, 'value', 'bytesValue']]
  ])('stops past the budget in a body of a million empty %s, which is refused without decoding', (what, path, inner = empty) => {
    const bytes = flood(path, inner)
    const budget = MESSAGES_PER_POINT * 1000 + MESSAGES_PER_REQUEST
    const counts = countOnWire(bytes, { maxPoints: 1000, maxMessages: budget })
    expect(Math.max(counts.messages, counts.byteStrings)).toBe(budget + 1)
    const decode = vi.spyOn(ExportMetricsServiceRequest, 'decode')
    try {
      expect(decodeRequest(bytes, PROTOBUF, { maxPoints: 1000 }).tooManyMessages).toBe(budget)
      expect(decode).not.toHaveBeenCalled()
    } finally {
      decode.mockRestore()
    }
  })

  it('lets no request decode into more than MAX_MESSAGES, however many points MAX_EVENTS_PER_REQUEST admits (its default 10,000: 640,000)', () => {
    // the request, its resource metrics, their resource and its n empty attributes: n + 3 messages
    const resource = (n) => delimited(1, delimited(1, Buffer.alloc(n * 2, delimited(1, empty))))
    const most = resource(MAX_MESSAGES - 3)
    expect(countOnWire(most).messages).toBe(MAX_MESSAGES)
    expect(decodeRequest(most, PROTOBUF, { maxPoints: 10_000 }).request.resourceMetrics[0].resource.attributes).toHaveLength(MAX_MESSAGES - 3)
    const decode = vi.spyOn(ExportMetricsServiceRequest, 'decode')
    try {
      expect(decodeRequest(resource(MAX_MESSAGES - 2), PROTOBUF, { maxPoints: 10_000 })).toEqual({ tooManyMessages: MAX_MESSAGES })
      expect(decode).not.toHaveBeenCalled()
    } finally {
      decode.mockRestore()
    }
    const json = (n) => Buffer.from(JSON.stringify({ resourceMetrics: [{ resource: { attributes: Array.from({ length: n }, () => ({})) } }] }))
    expect(decodeRequest(json(MAX_MESSAGES - 3), JSON_TYPE, { maxPoints: 10_000 }).request).toBeDefined()
    expect(decodeRequest(json(MAX_MESSAGES - 2), JSON_TYPE, { maxPoints: 10_000 })).toEqual({ tooManyMessages: MAX_MESSAGES })
  })

  it('lets a request of one point carry its resource\'s attributes whatever MAX_EVENTS_PER_REQUEST (MESSAGES_PER_REQUEST besides its points\')', () => {
    const attributes = (n, prefix) => Array.from({ length: n }, (_, i) => ({ key: `${prefix}.${i}`, value: { stringValue: 'v' } }))
    const object = { resourceMetrics: [{ resource: { attributes: attributes(30, 'host') }, scopeMetrics: [{ metrics: [{ name: 'one', sum: { dataPoints: [{ asInt: 1, attributes: attributes(5, 'route') }] } }] }] }] }
    expect(countOnWire(encode(object)).messages).toBeGreaterThan(MESSAGES_PER_POINT) // 78: more than one point's share
    expect(decodeRequest(encode(object), PROTOBUF, { maxPoints: 1 }).request).toBeDefined()
    expect(decodeRequest(Buffer.from(JSON.stringify(object)), JSON_TYPE, { maxPoints: 1 }).request).toBeDefined()
  })

  /** A request whose resource attribute's value is an array of one value, `levels` times over (its innermost AnyValue `4 + 2 × levels` messages below the request) */
  function nested (levels) {
    const sizes = [0] // the innermost AnyValue's (empty), then by turns the ArrayValue and the AnyValue around it
    for (let i = 0; i < levels; i++) {
      const array = 1 + varint(sizes.at(-1)).length + sizes.at(-1) // values (1): the AnyValue
      sizes.push(array, 1 + varint(array).length + array) // array_value (5): the ArrayValue
    }
    const value = Buffer.alloc(sizes.at(-1))
    let at = 0
    for (let i = sizes.length - 1; i > 0; i--) at += Buffer.concat([varint((i % 2 === 0 ? 5 : 1) * 8 + 2), varint(sizes[i - 1])]).copy(value, at)
    return delimited(1, delimited(1, delimited(1, delimited(2, value))))
  }

  it('reads as deep as protobufjs decodes (Reader.recursionLimit), refuses deeper without overflowing the stack', () => {
    const deepest = (protobuf.Reader.recursionLimit - 4) / 2
    expect(countOnWire(nested(deepest)).messages).toBe(5 + 2 * deepest)
    expect(made(ExportMetricsServiceRequest.decode(nested(deepest))).messages).toBe(5 + 2 * deepest)
    for (const levels of [deepest + 1, 100_000]) {
      expect(countOnWire(nested(levels))).toBeNull()
      expect(decodeRequest(nested(levels), PROTOBUF, { maxPoints: 1000 }).problem).toMatch(/max depth exceeded/)
    }
  })
})
