// OTLP/HTTP's two encodings of ExportMetricsService (docs/otlp.md): binary
// protobuf decoded by protobufjs against the official definitions
// (./proto/, opentelemetry-proto v1.11.0, Apache-2.0, kept as published, in
// one folder), and OTLP JSON (lowerCamelCase fields, 64-bit integers as
// strings or numbers, enums as numbers) read through the same definitions'
// fromObject. Both give the request as protobufjs messages; the answer
// (ExportMetricsServiceResponse, or google.rpc.Status for an error) is
// encoded as the request was. Pure but for
// reading the definitions once, when the module is first loaded.
import path from 'node:path'
import protobuf from 'protobufjs'

const PROTO_DIR = path.join(import.meta.dirname, 'proto')
const root = new protobuf.Root()
// the definitions import each other by their path in opentelemetry-proto; here they share one folder
root.resolvePath = (origin, target) => path.join(PROTO_DIR, path.basename(target))

/** Every message type under a namespace */
const typesIn = (ns) => (ns.nestedArray ?? []).flatMap(n => [...(n instanceof protobuf.Type ? [n] : []), ...typesIn(n)])

// protobufjs's oneof accessors (a point's value, an attribute's, a metric's data, proto3 optionals) delete the
// other members on every set and list the message's keys on every get: the decoder sets one for each member it
// reads, which turns each message into a slow dictionary. These types' accessors, made with their constructors
// here, once, keep the name of the member read last instead (protobufjs's would answer it too) and answer it; a
// message built by fromObject, which sets none, is answered as protobufjs does.
const { oneOfGetter, oneOfSetter } = protobuf.util
const slots = new WeakMap() // a oneof's member names (one array, given to its getter and setter) → its slot
const slotOf = (names) => slots.get(names) ?? slots.set(names, Symbol(names.join())).get(names)
protobuf.util.oneOfGetter = (names) => {
  const listed = oneOfGetter(names)
  const slot = slotOf(names)
  return function () { return this[slot] ?? listed.call(this) }
}
protobuf.util.oneOfSetter = (names) => {
  const slot = slotOf(names)
  return function (name) { this[slot] = name }
}
// 64-bit integers decoded as numbers, as the service reads them (toNumber): a Long object for each one made a
// 2 MiB body of 2,000,000 bucket counts take 300 ms to decode, 65 ms as numbers (docs/adr/0090-otlp-count-before-decode.md)
protobuf.util.Long = null
protobuf.configure()
try {
  root.loadSync('metrics_service.proto', { keepCase: false })
  root.resolveAll()
  for (const type of typesIn(root)) if (!type.ctor) throw new Error(`no constructor for ${type.name}`)
} finally {
  protobuf.util.oneOfGetter = oneOfGetter
  protobuf.util.oneOfSetter = oneOfSetter
}

export const ExportMetricsServiceRequest = root.lookupType('opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest')
export const ExportMetricsServiceResponse = root.lookupType('opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceResponse')

// OTLP/HTTP's error body in protobuf: google.rpc.Status (google/rpc/status.proto: code 1, message 2; details
// 3, a list of Any, never sent here). Not among opentelemetry-proto's files, so its two fields are declared here.
const Status = new protobuf.Type('Status')
  .add(new protobuf.Field('code', 1, 'int32'))
  .add(new protobuf.Field('message', 2, 'string'))
root.define('google.rpc').add(Status)

// an HTTP status as google.rpc.Code (google/rpc/code.proto)
const RPC_CODES = new Map([[400, 3], [401, 16], [403, 7], [404, 5], [413, 8], [415, 3], [429, 8], [500, 13], [503, 14], [504, 4]])

/** An error answer (its HTTP status and message) as OTLP/HTTP sends it in protobuf: a google.rpc.Status */
export function encodeStatus (httpStatus, message) {
  return Buffer.from(Status.encode({ code: RPC_CODES.get(httpStatus) ?? 2, message }).finish()) // 2: UNKNOWN
}

/** A Status in protobuf → { code, message } */
export const decodeStatus = (bytes) => Status.toObject(Status.decode(bytes))

export const PROTOBUF = 'application/x-protobuf'
export const JSON_TYPE = 'application/json'

// how deep OTLP JSON may nest: a request is 7 levels to a point's attribute,
// an attribute's value (arrays and key-value lists of values) a few more
export const MAX_JSON_DEPTH = 32

/** The depth of nested arrays and objects in `text` (JSON), counted without parsing; stops past `limit` */
export function jsonDepth (text, limit) {
  let depth = 0
  let most = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92) i++ // \ escapes the next character
      else if (c === 34) inString = false
    } else if (c === 34) inString = true
    else if (c === 123 || c === 91) {
      if (++depth > most && (most = depth) > limit) return most
    } else if (c === 125 || c === 93) depth--
  }
  return most
}

// Where a request's data points are on the wire: ExportMetricsServiceRequest.resource_metrics →
// ResourceMetrics.scope_metrics → ScopeMetrics.metrics → each member of Metric's data (gauge, sum, histogram,
// exponential_histogram, summary) → its data_points; each a length-delimited field (wire type 2). Field numbers
// from the definitions: a data kind added to them is counted too
const fieldId = (type, name) => root.lookupType(type).fields[name].id
const DATA_MEMBERS = root.lookupType('opentelemetry.proto.metrics.v1.Metric').oneofs.data.fieldsArray
const POINT_PATH = [
  [fieldId('opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest', 'resourceMetrics')],
  [fieldId('opentelemetry.proto.metrics.v1.ResourceMetrics', 'scopeMetrics')],
  [fieldId('opentelemetry.proto.metrics.v1.ScopeMetrics', 'metrics')],
  DATA_MEMBERS.map(f => f.id),
  [...new Set(DATA_MEMBERS.map(f => f.resolvedType.fields.dataPoints.id))]
].map(ids => new Set(ids))
const LENGTH_DELIMITED = 2

/**
 * How many data points `bytes` (an ExportMetricsServiceRequest in protobuf)
 * encodes, read from tags and lengths alone, nothing decoded; stops at
 * `stopPast` + 1. Every point of every data field counts: protobufjs
 * decodes them all (it merges a repeated message field, and keeps each
 * member of a oneof), so no decoded request holds more. null: not protobuf
 * as far as it reads (the decoder says how).
 */
export function pointsOnWire (bytes, stopPast = Infinity) {
  let reader
  let points = 0
  // the fields of one message, from reader.pos to `end`, at `depth` of POINT_PATH; true once past stopPast
  function walk (end, depth) {
    while (reader.pos < end) {
      const tag = reader.uint32()
      const wire = tag & 7
      if (wire !== LENGTH_DELIMITED || !POINT_PATH[depth].has(tag >>> 3)) {
        reader.skipType(wire)
        continue
      }
      const length = reader.uint32()
      const next = reader.pos + length
      if (next > end) throw new RangeError('index out of range')
      if (depth === POINT_PATH.length - 1) {
        if (++points > stopPast) return true
      } else if (walk(next, depth + 1)) return true
      reader.pos = next
    }
    if (reader.pos !== end) throw new RangeError('index out of range')
    return false
  }
  try {
    reader = protobuf.Reader.create(bytes)
    walk(bytes.length, 0)
    return points
  } catch {
    return null
  }
}

const list = (v) => (Array.isArray(v) ? v : [])
// a Metric's data, the oneof's members (their names as a message and JSON have them)
const DATA_FIELDS = DATA_MEMBERS.map(f => f.name)

/** How many data points a decoded request holds, every member of every metric's data */
function decodedPoints (request) {
  let points = 0
  for (const rm of request.resourceMetrics) for (const sm of rm.scopeMetrics) for (const m of sm.metrics) for (const data of DATA_FIELDS) points += m[data]?.dataPoints?.length ?? 0
  return points
}

/** How many data points a JSON request (parsed) holds: every data field's, as fromObject builds them all */
function pointsInJson (object) {
  let points = 0
  for (const rm of list(object.resourceMetrics)) {
    for (const sm of list(rm?.scopeMetrics)) {
      for (const metric of list(sm?.metrics)) {
        for (const data of DATA_FIELDS) points += list(metric?.[data]?.dataPoints).length
      }
    }
  }
  return points
}

/**
 * The body (a Buffer, already inflated) of `type` → { request } (an
 * ExportMetricsServiceRequest message), { problem } (a message naming what
 * is wrong: not protobuf, not JSON, too deep, a field of the wrong type) or
 * { tooManyPoints } (more than maxPoints data points: refused before they
 * are decoded, at most the first maxPoints + 1 counted)
 */
export function decodeRequest (body, type, { maxPoints = Infinity } = {}) {
  if (type === PROTOBUF) {
    const points = pointsOnWire(body, maxPoints)
    if (points !== null && points > maxPoints) return { tooManyPoints: points }
    try {
      const request = ExportMetricsServiceRequest.decode(body)
      // the wire was not read through (the decoder took what the walk did not): counted as decoded
      const decoded = points === null ? decodedPoints(request) : 0
      if (decoded > maxPoints) return { tooManyPoints: decoded }
      return { request }
    } catch (err) {
      return { problem: `the body is not an OTLP ExportMetricsServiceRequest in protobuf: ${err instanceof RangeError && !/index out of range/.test(err.message) ? 'nested too deep' : err.message}` }
    }
  }
  const text = body.toString('utf8')
  const depth = jsonDepth(text, MAX_JSON_DEPTH)
  if (depth > MAX_JSON_DEPTH) return { problem: `the JSON nests deeper than ${MAX_JSON_DEPTH} levels, more than an OTLP ExportMetricsServiceRequest needs` }
  let object
  try {
    object = JSON.parse(text)
  } catch (err) {
    return { problem: `the body is not JSON: ${err.message}` }
  }
  if (typeof object !== 'object' || object === null || Array.isArray(object)) return { problem: 'the body is not an OTLP ExportMetricsServiceRequest in JSON: an object { resourceMetrics: [...] } is expected' }
  const points = pointsInJson(object)
  if (points > maxPoints) return { tooManyPoints: points }
  const loose = looseInteger(object)
  if (loose !== null) return { problem: `the body is not an OTLP ExportMetricsServiceRequest in JSON: ${loose}` }
  try {
    return { request: ExportMetricsServiceRequest.fromObject(object) }
  } catch (err) {
    return { problem: `the body is not an OTLP ExportMetricsServiceRequest in JSON: ${err.message}` }
  }
}

// A data point's 64-bit integers in JSON: a decimal string or a whole number (protobufjs would read
// "1e3" as 1, "12abc" as 12, 1.9 as 1, and {} as 0, each stored silently)
const SIGNED = /^-?[0-9]{1,20}$/
const UNSIGNED = /^[0-9]{1,20}$/
const POINT_INTEGERS = [['timeUnixNano', UNSIGNED], ['startTimeUnixNano', UNSIGNED], ['asInt', SIGNED], ['count', UNSIGNED], ['zeroCount', UNSIGNED]]
const isInteger64 = (v, form) => (typeof v === 'number' ? Number.isInteger(v) && (form === SIGNED || v >= 0) : typeof v === 'string' && form.test(v))

/** The first 64-bit integer of a data point in a JSON request that is none, named by its path, or null */
function looseInteger (object) {
  const at = (path, v, form) => (v === undefined || v === null || isInteger64(v, form) ? null : `${path}: ${JSON.stringify(v).slice(0, 40)} is not a 64-bit integer (a decimal string or a whole number)`)
  for (const [r, rm] of list(object.resourceMetrics).entries()) {
    for (const [s, sm] of list(rm?.scopeMetrics).entries()) {
      for (const [m, metric] of list(sm?.metrics).entries()) {
        for (const data of DATA_FIELDS) {
          for (const [d, p] of list(metric?.[data]?.dataPoints).entries()) {
            const path = `resourceMetrics[${r}].scopeMetrics[${s}].metrics[${m}].${data}.dataPoints[${d}]`
            for (const [field, form] of POINT_INTEGERS) {
              const problem = at(`${path}.${field}`, p?.[field], form)
              if (problem) return problem
            }
            for (const [field, counts] of [['bucketCounts', p?.bucketCounts], ['positive.bucketCounts', p?.positive?.bucketCounts], ['negative.bucketCounts', p?.negative?.bucketCounts]]) {
              for (const [i, v] of list(counts).entries()) {
                const problem = at(`${path}.${field}[${i}]`, v, UNSIGNED)
                if (problem) return problem
              }
            }
          }
        }
      }
    }
  }
  return null
}

/** An OTLP 64-bit integer (a number as decoded, or a decimal string) as a number */
export function toNumber (v) {
  if (typeof v === 'number') return v
  if (v === null || v === undefined) return 0
  if (typeof v === 'string') return Number(v)
  return typeof v.toNumber === 'function' ? v.toNumber() : Number(v)
}

/** The answer { partialSuccess? } encoded as the request was: a Buffer (protobuf) or an object (JSON) */
export function encodeResponse (answer, type) {
  if (type !== PROTOBUF) return answer
  return Buffer.from(ExportMetricsServiceResponse.encode(ExportMetricsServiceResponse.fromObject(answer)).finish())
}
