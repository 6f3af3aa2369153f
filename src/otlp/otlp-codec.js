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
// unknown fields skipped, not kept (a Buffer each, which countOnWire does not count): protobufjs's default, held here
protobuf.Reader.discardUnknown = true
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

// What decoding a request makes, as the definitions say: a message for each field whose type is one (at any
// depth: resources, scopes, metrics, their data, points, attributes' KeyValue and AnyValue and the ArrayValue
// and KeyValueList an AnyValue holds, exemplars, buckets, quantile values, entity refs...), a Buffer for each
// bytes field (trace and span ids, an AnyValue's bytes), and among the messages the data points: each member of
// a Metric's data (gauge, sum, histogram, exponential_histogram, summary)'s data_points. Read from the
// definitions: a field or a data kind added to them is counted too
const DATA_MEMBERS = root.lookupType('opentelemetry.proto.metrics.v1.Metric').oneofs.data.fieldsArray
const DATA_TYPES = new Set(DATA_MEMBERS.map(f => f.resolvedType))
const LENGTH_DELIMITED = 2

/**
 * The plan of a message type: { byNumber: field number → field, messages: its message fields }, a field being
 * { name, repeated, plan (its type's; null for a byte string), point }. Types holding each other share plans
 */
function planOf (type, plans = new Map()) {
  if (plans.has(type)) return plans.get(type)
  const plan = { byNumber: new Map(), messages: [] }
  plans.set(type, plan)
  for (const field of type.fieldsArray) {
    const isMessage = field.resolvedType instanceof protobuf.Type
    if (!isMessage && field.type !== 'bytes') continue
    // what the walk does not read: the definitions have none
    if (field.map || field.delimited) throw new Error(`${type.name}.${field.name}: a map or a group, which the wire walk does not read`)
    const planned = { name: field.name, repeated: field.repeated, plan: isMessage ? planOf(field.resolvedType, plans) : null, point: field.name === 'dataPoints' && DATA_TYPES.has(type) }
    plan.byNumber.set(field.id, planned)
    if (isMessage) plan.messages.push(planned)
  }
  return plan
}
const REQUEST_PLAN = planOf(ExportMetricsServiceRequest)

// a request may decode into this many messages (and as many byte strings) per data point it may hold
// (MAX_EVENTS_PER_REQUEST): an SDK's point with 10 attributes makes 21, a histogram's with 16 exemplars 37
// (docs/adr/0093-otlp-message-budget.md)
export const MESSAGES_PER_POINT = 64
// and never more than this many: what a 2 MiB body of an SDK's points holds (~6,000 points, 126,000 messages), of
// which as many empty ones decode in 20-40 ms; MAX_EVENTS_PER_REQUEST's default (10,000) would let through 640,000
export const MAX_MESSAGES = 131_072
// besides, whatever MAX_EVENTS_PER_REQUEST: a request's own (its resources' attributes, its scopes) for its first point
export const MESSAGES_PER_REQUEST = 1024

/**
 * What decoding `bytes` (an ExportMetricsServiceRequest in protobuf) makes,
 * read from tags and lengths alone, nothing decoded: { points, messages
 * (the request's own among them), byteStrings }. Every occurrence counts, as
 * protobufjs decodes each: every member of a oneof, every one of a
 * non-repeated message field (merged into one), so no decoding makes more.
 * Unknown fields, and known ones of another wire type, are skipped, as
 * protobufjs skips them. Stops once the points pass maxPoints, or the
 * messages or byte strings maxMessages, having counted one more. null: not
 * protobuf as far as it reads, or nested deeper than protobufjs decodes
 * (Reader.recursionLimit); it reads no stricter than the decoder, which
 * then fails where it stopped or before, and says how.
 */
export function countOnWire (bytes, { maxPoints = Infinity, maxMessages = Infinity } = {}) {
  let reader
  const counts = { points: 0, messages: 1, byteStrings: 0 }
  // the fields of one message of `plan`, from reader.pos to `end`, `depth` below the request; true once past a limit
  function walk (end, plan, depth) {
    while (reader.pos < end) {
      const tag = reader.uint32()
      const wire = tag & 7
      const field = wire === LENGTH_DELIMITED ? plan.byNumber.get(tag >>> 3) : undefined
      if (field === undefined) {
        reader.skipType(wire)
        continue
      }
      const length = reader.uint32()
      const next = reader.pos + length
      if (next > end) throw new RangeError('index out of range')
      if (field.plan === null) {
        if (++counts.byteStrings > maxMessages) return true
      } else {
        if (++counts.messages > maxMessages || (field.point && ++counts.points > maxPoints)) return true
        // where protobufjs stops: the decoder's own depth, so that neither blows the stack
        if (depth >= protobuf.Reader.recursionLimit) throw new Error('max depth exceeded')
        // a message of no message or bytes fields (a point's buckets, a quantile value) makes nothing more
        if (field.plan.byNumber.size > 0 && walk(next, field.plan, depth + 1)) return true
      }
      reader.pos = next
    }
    if (reader.pos !== end) throw new RangeError('index out of range')
    return false
  }
  try {
    reader = protobuf.Reader.create(bytes)
    walk(bytes.length, REQUEST_PLAN, 0)
    return counts
  } catch {
    return null
  }
}

/** How many data points `bytes` (an ExportMetricsServiceRequest in protobuf) encodes (countOnWire), stopping at `stopPast` + 1; null: not protobuf */
export const pointsOnWire = (bytes, stopPast = Infinity) => countOnWire(bytes, { maxPoints: stopPast })?.points ?? null

/**
 * How many messages a request as objects (parsed from JSON, or decoded)
 * makes or holds, its own among them: every object where the definitions
 * have a message, at any depth (JSON nests at most MAX_JSON_DEPTH, a decoded
 * request Reader.recursionLimit); stops past `stopPast`
 */
export function messagesIn (object, stopPast = Infinity) {
  let messages = 0
  const isObject = (v) => typeof v === 'object' && v !== null
  // one message of `plan`; true once past stopPast
  function walk (message, plan) {
    if (++messages > stopPast) return true
    for (const field of plan.messages) {
      const value = message[field.name]
      if (!isObject(value)) continue
      // fromObject makes a message of each object, and refuses a repeated field not an array
      const values = !field.repeated ? [value] : Array.isArray(value) ? value : []
      for (const v of values) if (isObject(v) && walk(v, field.plan)) return true
    }
    return false
  }
  walk(object, REQUEST_PLAN)
  return messages
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

/** What `counts` (of points, messages, byte strings) is over: { tooManyPoints }, { tooManyMessages } or null */
function over ({ points, messages, byteStrings = 0 }, maxPoints, maxMessages) {
  if (points > maxPoints) return { tooManyPoints: points }
  if (messages > maxMessages || byteStrings > maxMessages) return { tooManyMessages: maxMessages }
  return null
}

/**
 * The body (a Buffer, already inflated) of `type` → { request } (an
 * ExportMetricsServiceRequest message), { problem } (a message naming what
 * is wrong: not protobuf, not JSON, too deep, a field of the wrong type),
 * { tooManyPoints } (more than maxPoints data points: refused before they
 * are decoded, at most the first maxPoints + 1 counted) or { tooManyMessages }
 * (maxMessages, which the messages or byte strings it would decode into
 * pass, by default MESSAGES_PER_POINT a point of maxPoints and
 * MESSAGES_PER_REQUEST, at most MAX_MESSAGES: refused before any is
 * decoded, at most maxMessages + 1 counted)
 */
export function decodeRequest (body, type, { maxPoints = Infinity, maxMessages = Math.min(MESSAGES_PER_POINT * maxPoints + MESSAGES_PER_REQUEST, MAX_MESSAGES) } = {}) {
  if (type === PROTOBUF) {
    const counts = countOnWire(body, { maxPoints, maxMessages })
    const refused = counts && over(counts, maxPoints, maxMessages)
    if (refused) return refused
    try {
      const request = ExportMetricsServiceRequest.decode(body)
      // the wire was not read through (the decoder took what the walk did not): counted as decoded
      const decoded = counts ?? { points: decodedPoints(request), messages: messagesIn(request, maxMessages) }
      return over(decoded, maxPoints, maxMessages) ?? { request }
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
  // before fromObject makes them: each object where the definitions have a message
  if (messagesIn(object, maxMessages) > maxMessages) return { tooManyMessages: maxMessages }
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
