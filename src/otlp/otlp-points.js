// From a decoded OTLP ExportMetricsServiceRequest (./otlp-codec.js) to the
// ingest service's events, point by point (docs/adr/0063-otlp-mapping.md):
// the metric's name made valid as StatsD names are, the point's attributes
// and the chosen resource attributes as tags, its time as the event's time;
// delta sums → counter increments, monotonic cumulative sums → increments
// from the series' previous point (./cumulative-baselines.js), other
// cumulative sums and gauges → gauge levels, histograms → a distribution's
// values, each bucket's count at its representative value with the point's
// exact count, sum, min and max. A point that breaks a rule is rejected alone
// and named (OTLP's partial success); the others go on. Pure: the clock's
// reading and the baselines come in.
import { createHash } from 'node:crypto'
import { MAX_ABS_VALUE, findInvalidEvent, isEventValue, isMetricName } from '../bucket/event-rules.js'
import { DAY_MS } from '../bucket/time.js'
import { DISTRIBUTION_KIND, GAUGE_KIND } from '../bucket/metric-kinds.js'
import { kindNamed } from '../kinds/index.js'
import { sanitizeName } from '../statsd/line-parser.js'
import { MAX_TAGS, MAX_VALUE_LENGTH, checkTags, formatSeriesName } from '../tags/series-name.js'
import { bucketError, downscaledPlace, histogramBuckets } from './histogram-buckets.js'
import { toNumber } from './otlp-codec.js'

const DELTA = 1
const CUMULATIVE = 2
const NO_RECORDED_VALUE = 1 // DataPointFlags.FLAG_NO_RECORDED_VALUE

// Past the longest tag value (MAX_VALUE_LENGTH code points: at most twice as many UTF-16 units): a text this
// long is refused as too long whatever follows, so nothing past it is built. Nested arrays made their text
// twice as long a level (each level's JSON escapes the one inside): 28 levels of a 196-byte export took 3 s
const ATTRIBUTE_TEXT_CAP = 2 * MAX_VALUE_LENGTH + 1
const clipped = (text) => (text.length > ATTRIBUTE_TEXT_CAP ? text.slice(0, ATTRIBUTE_TEXT_CAP) : text)

/**
 * An attribute's AnyValue as a tag value: strings as they are, others as text (arrays and lists as JSON).
 * An array's or a list's text stops past ATTRIBUTE_TEXT_CAP characters (then refused as too long by the tag rules)
 */
export function attributeText (value) {
  if (value === null || value === undefined) return ''
  switch (value.value) {
    case 'stringValue': return value.stringValue
    case 'boolValue': return String(value.boolValue)
    case 'intValue': return String(value.intValue)
    case 'doubleValue': return String(value.doubleValue)
    case 'bytesValue': return Buffer.from(value.bytesValue).toString('hex')
    case 'arrayValue': {
      const texts = []
      let length = 2
      for (const v of value.arrayValue.values ?? []) {
        const text = clipped(attributeText(v))
        texts.push(text)
        length += text.length + 3
        if (length > ATTRIBUTE_TEXT_CAP) break
      }
      return clipped(JSON.stringify(texts))
    }
    case 'kvlistValue': {
      const entries = []
      let length = 2
      for (const kv of value.kvlistValue.values ?? []) {
        const text = clipped(attributeText(kv.value))
        entries.push([kv.key, text])
        length += String(kv.key).length + text.length + 6
        if (length > ATTRIBUTE_TEXT_CAP) break
      }
      return clipped(JSON.stringify(Object.fromEntries(entries)))
    }
    default: return ''
  }
}

/**
 * Who sent a scope's points: its resource's attributes, every one, and the scope's name and version,
 * as a short digest (a baseline's key holds it: a resource may have dozens of attributes)
 */
function sourceOf (resource, scope) {
  const attributes = (resource?.attributes ?? []).map(({ key, value }) => JSON.stringify([key, attributeText(value)])).sort()
  return createHash('sha256').update(JSON.stringify([attributes, scope?.name ?? '', scope?.version ?? ''])).digest('base64url').slice(0, 22)
}

/** The tags a resource gives its points: resourceTags [[attribute, tag]] (OTLP_RESOURCE_TAGS) found among its attributes */
function resourceTagsOf (resource, resourceTags) {
  if (resourceTags.length === 0 || !resource) return []
  const tags = []
  for (const { key, value } of resource.attributes ?? []) {
    for (const [attribute, tag] of resourceTags) if (attribute === key) tags.push([tag, attributeText(value)])
  }
  return tags
}

/**
 * The first problem the ingest service's rules find in a point's events (so
 * that it refuses none), or null: each value and time as findInvalidEvent
 * judges them (the name and tags are judged once, above), and a
 * distribution's weights and summaries by its kind's own rules
 */
function eventsProblem (events, now, config) {
  const e = events[0]
  if (events.length === 1 && e.kind === undefined) {
    // the common point, a counter's one event: no arrays walked
    if (isEventValue(e.value) && e.time <= now + config.maxFutureMs && e.time >= now - config.maxAgeDays * DAY_MS) return null
  }
  const invalid = findInvalidEvent(events, now, config) ?? (e.kind === undefined ? null : kindNamed(e.kind).findInvalidEvents(events))
  return invalid ? `${invalid.field}: ${invalid.message}` : null
}

// The series of a name and its tags' pairs, or its problem, as checkTags and formatSeriesName give them, kept for
// pairs short enough: an export names the same series again and again (per metric, per export), each judged once
const SERIES_KEPT = 10_000
const KEY_KEPT_CHARS = 2048
const seriesKept = new Map()

/** name and pairs [[key, value text]] → { series } or { problem } */
export function seriesOf (name, pairs) {
  // each part after its length: no two lists of parts make one key
  let key = `${name.length}:${name}`
  for (const [k, v] of pairs) key += `${k.length}:${k}${v.length}:${v}`
  const kept = key.length <= KEY_KEPT_CHARS ? seriesKept.get(key) : undefined
  if (kept !== undefined) return kept
  const { tags, problem } = checkTags(pairs)
  const found = problem ? { problem } : { series: formatSeriesName(name, tags) }
  if (key.length <= KEY_KEPT_CHARS) {
    if (seriesKept.size >= SERIES_KEPT) seriesKept.clear()
    seriesKept.set(key, found)
  }
  return found
}

const timeOf = (point, now) => {
  const nanos = toNumber(point.timeUnixNano)
  return nanos > 0 ? Math.floor(nanos / 1e6) : now
}

/** A number point's value, or undefined where it holds none (neither asInt nor asDouble: the proto calls it invalid) */
const pointValue = (p) => (p.value === 'asInt' ? toNumber(p.asInt) : p.value === 'asDouble' ? p.asDouble : undefined)
const NO_VALUE = 'the data point holds no value (asInt or asDouble)'

/**
 * request: an ExportMetricsServiceRequest message.
 * options: { now (epoch ms), config (maxFutureMs, maxAgeDays), resourceTags: [[attribute, tag]],
 *            baselines: ./cumulative-baselines.js (read here, kept by the caller), maxEvents: the most events built }
 * → { tooMany: n } past maxEvents, else
 * → { events, eventPoint: [point number of each event], points: n, rejected: Map point → reason,
 *     renamed: Map sent → stored, exemplars: n, baselineUpdates: Map key → state }
 */
export function pointsOf (request, { now, config, resourceTags, baselines, maxEvents = Infinity }) {
  const events = []
  const eventPoint = []
  const rejected = new Map()
  const renamed = new Map()
  const baselineUpdates = new Map()
  let points = 0
  let exemplars = 0
  const previousOf = (key) => baselineUpdates.has(key) ? baselineUpdates.get(key) : baselines?.get(key)

  for (const rm of request.resourceMetrics ?? []) {
    const fromResource = resourceTagsOf(rm.resource, resourceTags)
    for (const sm of rm.scopeMetrics ?? []) {
      // a cumulative series' baseline is its sender's: two instances of a service (or two scopes) writing one series
      // each add from their own previous point (OpenTelemetry's stream identity: resource, scope, metric, attributes)
      // (digested once a scope, and only for a cumulative point)
      let source = null
      const streamOf = (series) => `${series}\n${(source ??= sourceOf(rm.resource, sm.scope))}`
      for (const metric of sm.metrics ?? []) {
        const sent = metric.name ?? ''
        const name = sanitizeName(sent)
        if (name !== sent) renamed.set(sent, name)
        const kindOfData = metric.data
        const data = kindOfData ? metric[kindOfData] : null
        const dataPoints = data?.dataPoints ?? []
        const validName = isMetricName(name)
        for (const p of dataPoints) {
          const point = points++
          exemplars += p.exemplars?.length ?? 0
          const reject = (reason) => rejected.set(point, `metric ${JSON.stringify(sent.slice(0, 200))}: ${reason}`)
          if (!validName) { reject(`${JSON.stringify(name.slice(0, 60))} is not a metric name once made valid as StatsD names are (letters, digits, _ . -; at most 200 characters)`); continue }
          if ((p.flags & NO_RECORDED_VALUE) !== 0) continue // a point that says it has no value: nothing to keep
          const attributes = p.attributes ?? []
          // a series has at most MAX_TAGS tags: more attributes are refused before any is read (no quadratic walk of 100,000)
          if (attributes.length > MAX_TAGS) { reject(`${attributes.length} attributes: a series has at most ${MAX_TAGS} tags`); continue }
          const pairs = [...fromResource]
          for (const { key, value } of attributes) {
            const at = pairs.findIndex(([k]) => k === key)
            if (at !== -1) pairs.splice(at, 1) // a point's own attribute wins over a resource's
            pairs.push([key, attributeText(value)])
          }
          const { series, problem } = seriesOf(name, pairs)
          if (problem) { reject(problem); continue }
          const time = timeOf(p, now)
          // a time the ingest rules refuse is refused before a cumulative point becomes its series' baseline
          const timeProblem = eventsProblem([{ metric: series, value: 0, time }], now, config)
          if (timeProblem) { reject(timeProblem); continue }
          const built = eventsOfPoint(kindOfData, data, p, streamOf, series, time, previousOf, baselineUpdates)
          if (built.problem) { reject(built.problem); continue }
          if (built.events.length === 0) continue
          const invalid = eventsProblem(built.events, now, config)
          if (invalid) { reject(invalid); continue }
          for (const e of built.events) { events.push(e); eventPoint.push(point) }
          // a histogram is an event per non-empty bucket: the writer holds at most MAX_PENDING_EVENTS, so no more is built
          if (events.length > maxEvents) return { tooMany: events.length }
        }
      }
    }
  }
  return { events, eventPoint, points, rejected, renamed, exemplars, baselineUpdates }
}

/** The events of one point, or { problem } */
/** streamOf(series): the series and its sender, a cumulative point's baseline key */
function eventsOfPoint (kindOfData, data, p, streamOf, series, time, previousOf, baselineUpdates) {
  switch (kindOfData) {
    case 'sum': {
      const value = pointValue(p)
      if (value === undefined) return { problem: NO_VALUE }
      if (data.aggregationTemporality === DELTA) return { events: [{ metric: series, value, time }] }
      if (data.aggregationTemporality !== CUMULATIVE) return { problem: 'aggregationTemporality is unspecified: a sum is DELTA (1) or CUMULATIVE (2)' }
      if (!data.isMonotonic) return { events: [{ metric: series, value, time, kind: GAUGE_KIND }] }
      const d = sinceBaseline(`s\n${streamOf(series)}`, p, time, new Map([['count', value]]), previousOf, baselineUpdates)
      if (d.problem) return d
      // a baseline adds 0: the series is there from its first point on
      const added = d.delta?.get('count') ?? 0
      return { events: added === 0 && d.delta !== null ? [] : [{ metric: series, value: added, time }] }
    }
    case 'gauge': {
      const value = pointValue(p)
      return value === undefined ? { problem: NO_VALUE } : { events: [{ metric: series, value, time, kind: GAUGE_KIND }] }
    }
    case 'histogram':
    case 'exponentialHistogram': {
      const h = histogramBuckets(kindOfData, p)
      if (h.problem) return h
      if (data.aggregationTemporality === DELTA) return { events: distributionEvents(series, time, h) }
      if (data.aggregationTemporality !== CUMULATIVE) return { problem: 'aggregationTemporality is unspecified: a histogram is DELTA (1) or CUMULATIVE (2)' }
      // cumulative: the buckets' counts and the sum since the previous point; min and max are the period's, so bound only
      const values = new Map([['count', h.count], ['sum', h.sum ?? 0]])
      for (const [, n, place] of h.buckets) values.set(place, n)
      const d = sinceBaseline(`h\n${streamOf(series)}\n${h.shape}`, p, time, values, previousOf, baselineUpdates, h.scale)
      if (d.problem) return d
      if (d.delta === null || d.delta.get('count') === 0) return { events: [] }
      const buckets = []
      for (const [value, , place, error] of h.buckets) if (d.delta.get(place) > 0) buckets.push([value, d.delta.get(place), place, error])
      if (h.shape === 'none' && h.hasSum) {
        // no buckets: the period's values at their own mean (the point's is its whole start's), inside the start's min and max
        const mean = Math.min(h.max ?? Infinity, Math.max(h.min ?? -Infinity, d.delta.get('sum') / d.delta.get('count')))
        buckets[0] = [mean, buckets[0][1], buckets[0][2], bucketError(mean, null, null, h.min, h.max)]
      }
      return { events: distributionEvents(series, time, { buckets, sum: h.hasSum ? d.delta.get('sum') : null, min: null, max: null }) }
    }
    case 'summary':
      return { problem: 'a Summary\'s quantiles cannot be merged over time or series; send a Histogram or an ExponentialHistogram' }
    default:
      return { problem: 'the metric has no data (sum, gauge, histogram or exponentialHistogram)' }
  }
}

/**
 * A cumulative point against its series' previous one of the same start
 * (values: Map key → its running total: 'count', 'sum' (which may go down) and a bucket's place;
 * scale: an exponential histogram's, whose previous buckets are merged into the new scale's where it went down):
 * → { delta: Map key → what it added since }, { delta: null } (the series'
 * first point, a new start, a reset or a finer scale: the new baseline, nothing added), or { problem }
 */
function sinceBaseline (key, p, time, values, previousOf, baselineUpdates, scale) {
  const start = toNumber(p.startTimeUnixNano)
  const previous = previousOf(key)
  const state = { start, time, values, scale }
  if (previous === undefined || previous.start !== start) {
    baselineUpdates.set(key, state)
    return { delta: null }
  }
  if (time <= previous.time) return { problem: 'a cumulative point not later than the previous point of its series and start time (a repeat, or out of order): nothing added' }
  baselineUpdates.set(key, state)
  let before = previous.values
  if (previous.scale !== scale && [...previous.values.keys()].some(k => k !== 'count' && k !== 'sum' && k !== 'z')) {
    // (a previous point of zeros alone holds no bucket to map: the SDK says scale 0 until a value is not 0)
    if (previous.scale < scale) return { delta: null } // a finer scale under the same start, past zeros: a reset
    before = new Map()
    for (const [k, v] of previous.values) {
      const place = k === 'count' || k === 'sum' ? k : downscaledPlace(k, previous.scale - scale)
      before.set(place, (before.get(place) ?? 0) + v)
    }
  }
  const delta = new Map()
  for (const [k, v] of values) {
    const d = v - (before.get(k) ?? 0)
    // a lower running count under the same start: the series was reset; this point is the new baseline
    if (d < 0 && k !== 'sum') return { delta: null }
    delta.set(k, d)
  }
  for (const k of before.keys()) if (!values.has(k)) return { delta: null }
  return { delta }
}

/** A histogram's events: each non-empty bucket's count at its value, carrying the point's sum (once), min and max and the bucket's error */
function distributionEvents (series, time, { buckets, sum, min, max }) {
  const events = []
  let lo = Infinity
  let hi = -Infinity
  let approximate = 0
  for (const [value, count] of buckets) {
    if (count <= 0) continue
    if (value < lo) lo = value
    if (value > hi) hi = value
    approximate += value * count
  }
  const low = min ?? lo
  const high = max ?? hi
  const whole = sum ?? approximate
  for (const [value, count, , error] of buckets) {
    if (count <= 0) continue
    events.push({ metric: series, value, time, kind: DISTRIBUTION_KIND, weight: count, summary: { sum: events.length === 0 ? whole : 0, min: low, max: high, bucketError: error } })
  }
  // the whole sum on the first bucket, unless past what its weight may carry (|sum| ≤ MAX_ABS_VALUE × weight):
  // then each bucket its share by weight, the last what rounding left, so a point of large values is not refused
  // (a mean past the largest value stays whole on the first bucket, which the rules refuse: no share hides it)
  const total = events.length > 1 && Math.abs(whole) > MAX_ABS_VALUE * events[0].weight ? events.reduce((n, e) => n + e.weight, 0) : 0
  if (total > 0 && Math.abs(whole) <= MAX_ABS_VALUE * total * (1 + 1e-12)) {
    // each share inside its weight's bound (rounding may pass it by an ulp)
    const share = (e, sum) => Math.max(-MAX_ABS_VALUE * e.weight, Math.min(MAX_ABS_VALUE * e.weight, sum))
    let given = 0
    for (const e of events.slice(0, -1)) { e.summary.sum = share(e, whole * (e.weight / total)); given += e.summary.sum }
    const last = events[events.length - 1]
    last.summary.sum = share(last, whole - given)
  }
  return events
}
