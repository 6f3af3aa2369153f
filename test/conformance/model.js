// The conformance table's model (test/conformance/kinds-doors-reads-jobs.test.js):
// the raw values each door sends, and what every read must answer about them,
// computed from the raw values alone. It shares no code with src/ (local
// boundaries come from Intl, test/helpers/intl-local-time.js; Graphite's
// window and consolidation are graphite-web 1.1.10's render/views.py and
// whisper.py fetch, written out again here). Pure.
//
// The table's rows are KINDS (how a kind's value is sent through each door,
// and each stat over a span of raw values) and DOORS; its columns are the
// reads (readCells; a tagged door's reads by tag besides, tagReadCells); its
// pages the jobs (in the test file). A kind, door or read added later is one
// more entry in these lists.
import { intlBoundaries, intlWall } from '../helpers/intl-local-time.js'
import { KINDS as SERVICE_KINDS } from '../../src/kinds/index.js'

export const MINUTE = 60_000
export const QUARTER = 15 * MINUTE
export const HOUR = 60 * MINUTE
export const DAY = 24 * HOUR

export const CHATHAM = 'Pacific/Chatham'
export const ZONES = ['UTC', CHATHAM]
/** DISTRIBUTION_ACCURACY's default: percentiles within 1 % (relative) of the exact value at rank ⌊q·(n−1)⌋ */
export const ALPHA = 0.01
/** MINUTE_HISTOGRAM_DAYS's default */
export const MINUTE_HISTOGRAM_DAYS = 7

const at = (iso) => Date.parse(iso)

// The raw values' times: four clusters over five UTC days and a month boundary.
//  C1 around 2026-03-31T10:15Z, Chatham's local midnight of April 1 (+13:45): a local day and month begin;
//  C2 around 2026-04-01T00:00Z: a UTC day and month begin;
//  Cm a few values on 2026-04-02 (2026-04-03 holds none: a day without documents);
//  C3 around 2026-04-04T14:00Z, where Chatham's DST ends: its wall clock falls back from 03:45 (+13:45) to 02:45 (+12:45).
// Minutes hold one value or several, on and around minute, quarter-hour and hour edges (UTC's at :00, Chatham's at :15).
export const SCHEDULE = [
  '2026-03-31T09:52:10Z', '2026-03-31T09:59:59.500Z', '2026-03-31T10:00:00Z', '2026-03-31T10:07:30Z', '2026-03-31T10:07:31Z',
  '2026-03-31T10:14:00Z', '2026-03-31T10:14:59.999Z', '2026-03-31T10:15:00Z', '2026-03-31T10:15:30Z', '2026-03-31T10:16:00Z',
  '2026-03-31T10:29:59Z', '2026-03-31T10:30:00Z', '2026-03-31T10:44:00Z', '2026-03-31T10:46:00Z', '2026-03-31T11:14:30Z',
  '2026-03-31T11:15:00Z',
  '2026-03-31T23:14:59Z', '2026-03-31T23:15:00Z', '2026-03-31T23:44:10Z', '2026-03-31T23:59:00Z', '2026-03-31T23:59:59.999Z',
  '2026-04-01T00:00:00Z', '2026-04-01T00:00:00.500Z', '2026-04-01T00:00:59Z', '2026-04-01T00:01:00Z', '2026-04-01T00:14:00Z',
  '2026-04-01T00:15:00Z', '2026-04-01T00:31:00Z', '2026-04-01T01:00:00Z',
  '2026-04-02T06:00:00Z', '2026-04-02T06:00:30Z', '2026-04-02T18:45:00Z',
  '2026-04-04T12:15:00Z', '2026-04-04T13:14:59Z', '2026-04-04T13:15:00Z', '2026-04-04T13:30:00Z', '2026-04-04T13:44:59Z',
  '2026-04-04T13:45:00Z', '2026-04-04T13:59:59Z', '2026-04-04T14:00:00Z', '2026-04-04T14:00:01Z', '2026-04-04T14:14:59Z',
  '2026-04-04T14:15:00Z', '2026-04-04T14:29:00Z', '2026-04-04T14:44:00Z', '2026-04-04T15:15:00Z', '2026-04-04T15:20:00Z'
].map(at)

/** The clock while JSON is sent and the reads run: after every raw value (the StatsD doors' clock walks through them) */
export const T_READ = at('2026-04-04T16:00:00Z')
/** The retention pass's clock: the days of C1 and C2 lie more than a day past the `aged` metrics' minute horizon */
export const T_LATE = at('2026-04-07T00:30:00Z')
/** The day a preallocation makes: the one after T_READ's */
export const PREALLOC_DAY = at('2026-04-05T00:00:00Z')
/** RETENTION_RULES of the apps: the `aged` metrics keep minutes for 4 days (MINUTE_RETENTION_DAYS, 90, for the rest) */
export const RETENTION_RULES = [{ match: 'conf.*.*.aged', minuteDays: 4 }]
export const MINUTE_RETENTION_DAYS = 90

/** Each door writes three metrics: `main` (every read), `aged` (read after the retention pass), `doomed` (deleted) */
export const ROLES = { main: 1, aged: 2, doomed: 3 }
export const metricName = (kind, door, role) => `conf.${kind.id}.${door.id}.${role}`
export const minuteDaysOf = (role) => (role === 'aged' ? RETENTION_RULES[0].minuteDays : MINUTE_RETENTION_DAYS)

const startOfDay = (t) => t - (((t % DAY) + DAY) % DAY)
export const isoDay = (t) => new Date(t).toISOString().slice(0, 10)

/** The first UTC day whose minutes a metric of `role` keeps at `now` (docs: "days that keep minutes") */
export const minuteHorizon = (role, now) => startOfDay(now) - minuteDaysOf(role) * DAY
/** The first UTC day whose minutes keep a distribution's histograms: MINUTE_HISTOGRAM_DAYS back, never before the minute horizon */
export const histogramHorizon = (role, now) => Math.max(minuteHorizon(role, now), startOfDay(now) - MINUTE_HISTOGRAM_DAYS * DAY)

// ---------------------------------------------------------------- stats

const sumOf = (vs) => vs.reduce((a, b) => a + b, 0)
const rank = (vs, q) => {
  const sorted = [...vs].sort((a, b) => a - b)
  return sorted[Math.floor(q * (sorted.length - 1))]
}
/** The latest level by event time; at equal times the larger (docs: a tie keeps the larger level) */
const latest = (events) => events.reduce((best, e) => (e.t > best.t || (e.t === best.t && e.v > best.v) ? e : best)).v

// how an answer is compared with the model: exactly, as a sum of doubles, or within the percentiles' accuracy
export const EXACT = 'exact'
export const CLOSE = 'close'
export const WITHIN_ALPHA = 'α'

/**
 * A stat: of(events) over the raw events [{ t, v }] of a span (never empty);
 * additive: a span with no value but a document answers 0 (else null);
 * compare: EXACT, CLOSE or WITHIN_ALPHA
 */
const stat = (name, of, { additive = false, compare = EXACT } = {}) => ({ name, of, additive, compare })
const percentile = (name, q) => stat(name, (es) => rank(es.map(e => e.v), q), { compare: WITHIN_ALPHA })

const COUNT = stat('count', (es) => es.length, { additive: true })
const SUM = stat('sum', (es) => sumOf(es.map(e => e.v)), { additive: true, compare: CLOSE })
const MIN = stat('min', (es) => Math.min(...es.map(e => e.v)))
const MAX = stat('max', (es) => Math.max(...es.map(e => e.v)))
const MEAN = stat('mean', (es) => sumOf(es.map(e => e.v)) / es.length, { compare: CLOSE })

// ---------------------------------------------------------------- kinds

const number = (v) => String(v) // plain decimals only: the values below never need an exponent

/**
 * A kind of metric, one row of the table (docs/kinds/).
 * The rows follow src/kinds/ (KINDS: one descriptor per kind); each adapter
 * holds what the model adds (values, encodings through the doors, stats over a span).
 *   id, name
 *   value(i, role): the i-th raw value of a metric of `role` (SCHEDULE[i] its time)
 *   json(metric, value, ts): the event POST /v1/events takes
 *   statsd(metric, value, i, previous): the StatsD line for it (previous: the level this door sent the metric last)
 *   seriesStats: the series' stat parameter per stat (null: the kind takes none)
 *   stats: name → stat (the model of each)
 *   tagStats: the stats a tagged door's series reads by tag (tagReadCells) ask
 *   total / ytd: 'counter' | 'distribution' | null (no total: a documented 400)
 *   quantiles: whether it keeps histograms (else a documented 400)
 *   leaves: its Graphite stat leaves as /metrics/find lists them (null: the metric is a leaf itself)
 *   bareLeaf: with leaves, the stat its own name reads as in /render (null: none, the name is a branch only)
 *   preallocated: whether preallocation makes its next day
 *   documents: its collections (day and month documents, and any other)
 */
export const COUNTER = {
  id: 'counter',
  name: 'counter',
  // integers from −2 to 8: a 0 and negatives are corrections (docs/api.md#post-v1events)
  value: (i, role) => (((i * 7 + 3) % 11) - 2) * ROLES[role],
  json: (metric, value, ts) => ({ metric, value, ts }),
  statsd: (metric, value) => `${metric}:${number(value)}|c`,
  seriesStats: { sum: null },
  stats: { sum: stat('sum', (es) => sumOf(es.map(e => e.v)), { additive: true }) },
  tagStats: ['sum'],
  total: 'counter',
  ytd: 'counter',
  quantiles: false,
  leaves: null,
  preallocated: true,
  documents: { daily: 'daily', monthly: 'monthly' }
}

const STATSD_DISTRIBUTION_TYPES = ['ms', 'h', 'd']
export const DISTRIBUTION = {
  id: 'distribution',
  name: 'distribution',
  // log-spread values from 2.72 to ~2,000, two decimals
  value: (i, role) => Math.round(Math.exp(1 + ((i * 37) % 23) / 4) * 100 * ROLES[role]) / 100,
  json: (metric, value, ts) => ({ metric, kind: 'distribution', value, ts }),
  // StatsD ms, h and d are all values of the distribution
  statsd: (metric, value, i) => `${metric}:${number(value)}|${STATSD_DISTRIBUTION_TYPES[i % 3]}`,
  seriesStats: { count: 'count', sum: 'sum', mean: 'mean', min: 'min', max: 'max', p50: 'p50', p90: 'p90', p99: 'p99', p999: 'p999' },
  stats: {
    count: COUNT,
    sum: SUM,
    mean: MEAN,
    min: MIN,
    max: MAX,
    p50: percentile('p50', 0.5),
    p90: percentile('p90', 0.9),
    p99: percentile('p99', 0.99),
    p999: percentile('p999', 0.999)
  },
  // its series merged: a count adds, a percentile from the merged histograms
  tagStats: ['count', 'p99'],
  total: 'distribution',
  ytd: 'distribution',
  quantiles: true,
  // graphite-web lists a branch's children sorted by name
  leaves: ['count', 'max', 'mean', 'min', 'p50', 'p90', 'p99', 'p999', 'sum'],
  bareLeaf: null,
  preallocated: false,
  documents: { daily: 'distributionDaily', monthly: 'distributionMonthly', minutes: 'distributionMinutes' }
}

export const GAUGE = {
  id: 'gauge',
  name: 'gauge',
  // levels from 10 to 50 in steps of 2.5 (exact in binary: a delta applied to a level is exact)
  value: (i, role) => (((i * 13) % 17) * 2.5 + 10) * ROLES[role],
  json: (metric, value, ts) => ({ metric, kind: 'gauge', value, ts }),
  // a level, or (every fourth) the signed delta from the level this door sent last: `+N|g`, `-N|g`
  statsd: (metric, value, i, previous) => {
    if (i % 4 !== 3 || previous === undefined || previous === value) return `${metric}:${number(value)}|g`
    const delta = value - previous
    return `${metric}:${delta > 0 ? '+' : '-'}${number(Math.abs(delta))}|g`
  },
  seriesStats: { last: 'last', min: 'min', max: 'max', mean: 'mean', count: 'count', sum: 'sum' },
  stats: {
    last: stat('last', latest),
    min: MIN,
    max: MAX,
    mean: MEAN,
    count: COUNT,
    sum: SUM
  },
  // its series merged: the latest level of all, a mean of all (their counts and sums added)
  tagStats: ['last', 'mean'],
  total: null,
  ytd: null,
  quantiles: false,
  // a gauge is a branch of stat leaves, as a distribution is, and its name alone a leaf of its last level
  // (docs/adr/0051-graphite-gauge-leaves.md)
  leaves: ['count', 'last', 'max', 'mean', 'min', 'sum'],
  bareLeaf: 'last',
  preallocated: false,
  documents: { daily: 'gaugeDaily', monthly: 'gaugeMonthly' }
}

// The rows: one per kind the service knows (src/kinds/ KINDS, one descriptor per kind), each with the
// model's adapter above; a kind without an adapter fails here, loudly. A later kind (StatsD sets) is one
// more adapter.
const ADAPTERS = new Map([COUNTER, DISTRIBUTION, GAUGE].map(adapter => [adapter.name, adapter]))
const nameOfSeries = (series) => series.split(';')[0]

export const KINDS = SERVICE_KINDS.map(descriptor => {
  const adapter = ADAPTERS.get(descriptor.name)
  if (!adapter) throw new Error(`the conformance table has no model of the kind "${descriptor.name}": add its adapter to test/conformance/model.js`)
  return adapter
})

// ---------------------------------------------------------------- doors

/**
 * The doors, each a row; `transport` says how the test file drives it, and
 * `tags` how a tagged door names the event's series (docs/tags.md#doors): a
 * JSON `tags` object, DogStatsD's `|#k:v`, Graphite tags in the name, or
 * OTLP point attributes.
 * A tagged door sends each value to one of two series of the metric
 * (SHARDS), and every read of the name must still equal the model of all
 * the values: the name is the sum (the merge) of its series.
 */
export const DOORS = [
  { id: 'json', name: 'JSON', transport: 'json' },
  { id: 'udp', name: 'StatsD UDP', transport: 'udp' },
  { id: 'tcp', name: 'StatsD TCP', transport: 'tcp' },
  { id: 'http', name: 'POST /v1/statsd', transport: 'http' },
  { id: 'json-tags', name: 'JSON tags', transport: 'json', tags: 'object' },
  { id: 'udp-tags', name: 'StatsD UDP DogStatsD tags', transport: 'udp', tags: 'dogstatsd' },
  { id: 'tcp-tags', name: 'StatsD TCP DogStatsD tags', transport: 'tcp', tags: 'dogstatsd' },
  { id: 'http-tags', name: 'POST /v1/statsd Graphite tags', transport: 'http', tags: 'graphite' },
  // the HTTP doors' bodies gzip-compressed (Content-Encoding: gzip), as Vector's and Fluent Bit's outputs send them
  { id: 'json-gzip', name: 'JSON gzip', transport: 'json', gzip: true },
  { id: 'http-gzip', name: 'POST /v1/statsd gzip', transport: 'http', gzip: true },
  { id: 'otlp', name: 'OTLP JSON', transport: 'otlp' },
  { id: 'otlp-tags', name: 'OTLP protobuf attributes', transport: 'otlp', tags: 'attributes', protobuf: true },
  // JSON tags into a declared rollup by the shard (ROLLUP_RULES): a read by the shard reads the rollup's series
  { id: 'json-rollup', name: 'JSON tags, a declared rollup', transport: 'json', tags: 'object', rollup: ['shard'] }
]

/** ROLLUP_RULES of the apps: the rollup door's metrics keep a rollup series per shard (docs/tags.md#declared-rollups) */
export const ROLLUP_RULES = [{ match: 'conf.*.json-rollup.*', by: [['shard']] }]
/**
 * The first minute a rollup answers: the whole minute after its app first
 * ran with the rule (the row's clock starts a minute before SCHEDULE[0])
 */
export const rollupSince = (bootedAt) => Math.floor(bootedAt / MINUTE) * MINUTE + MINUTE

export const SHARDS = ['s0', 's1']
const shardOf = (i) => SHARDS[i % SHARDS.length]
/** The series a tagged door sends the i-th value of `metric` to (the metric itself for an untagged door) */
export const seriesOf = (door, metric, i) => (door.tags ? `${metric};shard=${shardOf(i)}` : metric)
/** Every series of `metric` a door writes: none for an untagged door */
export const seriesNames = (door, metric) => (door.tags ? SHARDS.map(s => `${metric};shard=${s}`) : [])
/** Every rollup series of `metric` a door writes (the service's own, named `name;~keys;k=v`): none without a rollup */
export const rollupSeriesNames = (door, metric) => (door.rollup ? SHARDS.map(s => `${metric};~${door.rollup.join(',')};shard=${s}`) : [])
/**
 * The rollup keys a read by tag (SELECTIONS: each by the shard alone) over a
 * window starting at `from` answers with: the door's rollup once it began
 * (`since`), else null (the read sums the series)
 */
export const rollupOf = (door, from, since) => (door.rollup && from >= since ? door.rollup : null)
/** The schedule indexes a series of `metric` gets */
export const indexesOf = (door, series) => SCHEDULE.map((_, i) => i).filter(i => !door.tags || series.endsWith(`=${shardOf(i)}`))

/** The raw events a metric of `role` gets: [{ t, v }] by time */
export function rawEvents (kind, role) {
  return SCHEDULE.map((t, i) => ({ t, v: kind.value(i, role) }))
}

/** For a StatsD door: per schedule entry, its time and the lines of every role's metric */
export function statsdSends (kind, door) {
  const previous = {}
  return SCHEDULE.map((t, i) => ({
    t,
    lines: Object.keys(ROLES).map(role => {
      // a gauge's delta is from the level its series was sent last
      const series = seriesOf(door, metricName(kind, door, role), i)
      const value = kind.value(i, role)
      const line = door.tags === 'dogstatsd'
        ? `${kind.statsd(nameOfSeries(series), value, i, previous[series])}|#${series.split(';')[1].replace('=', ':')}`
        : kind.statsd(series, value, i, previous[series])
      previous[series] = value
      return line
    })
  }))
}

/** For the JSON door: every role's events, shuffled (seeded) so that later requests carry earlier times, in `requests` requests */
export function jsonRequests (kind, door, requests = 3) {
  const events = []
  SCHEDULE.forEach((t, i) => {
    for (const role of Object.keys(ROLES)) {
      const metric = metricName(kind, door, role)
      const event = kind.json(metric, kind.value(i, role), t)
      events.push(door.tags ? { ...event, tags: { shard: shardOf(i) } } : event)
    }
  })
  let seed = 27
  const random = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648 }
  for (let i = events.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [events[i], events[j]] = [events[j], events[i]]
  }
  const size = Math.ceil(events.length / requests)
  return Array.from({ length: requests }, (_, r) => events.slice(r * size, (r + 1) * size))
}

/**
 * A JSON door's event as an OTLP metric of one point at its time (docs/otlp.md):
 * a counter's a delta sum, a gauge's a gauge, a distribution's value a delta
 * histogram of count 1 whose sum, min and max are the value (no buckets: the
 * value itself, exactly); its tags as the point's attributes
 */
function otlpMetric ({ metric, value, ts, kind, tags }) {
  const point = { timeUnixNano: String(BigInt(ts) * 1_000_000n), attributes: Object.entries(tags ?? {}).map(([key, v]) => ({ key, value: { stringValue: v } })) }
  if (kind === 'distribution') return { name: metric, histogram: { aggregationTemporality: 1, dataPoints: [{ ...point, count: '1', sum: value, min: value, max: value }] } }
  if (kind === 'gauge') return { name: metric, gauge: { dataPoints: [{ ...point, asDouble: value }] } }
  return { name: metric, sum: { aggregationTemporality: 1, isMonotonic: true, dataPoints: [{ ...point, asDouble: value }] } }
}

/** For an OTLP door: the JSON door's requests as OTLP ExportMetricsServiceRequests (JSON objects), no resource attributes */
export const otlpRequests = (kind, door) => jsonRequests(kind, door).map(events => ({ resourceMetrics: [{ scopeMetrics: [{ metrics: events.map(otlpMetric) }] }] }))

// ---------------------------------------------------------------- the model of a metric's state

/**
 * What the model knows of a metric when a read runs: its raw events, the UTC
 * days holding a document (days with a value; preallocated days), the days
 * that may hold one (a preallocation may have run; preallocRan: it did), and
 * its horizons at now.
 */
export function metricState (kind, metric, role, { now, preallocRan = false, shards = null }) {
  // shards: the values of those of the name's series only (a read by tag), each series' documents its own
  const events = shards ? rawEvents(kind, role).filter((_, i) => shards.includes(shardOf(i))) : rawEvents(kind, role)
  const docDays = new Set(events.map(e => startOfDay(e.t)))
  const maybeDays = new Set()
  // in any order of the jobs a preallocation may have run before a read, unless the read is the preallocation's page
  // (which reads the name only: byTag false)
  if (kind.preallocated) (preallocRan && !shards ? docDays : maybeDays).add(PREALLOC_DAY)
  return { kind, metric, role, events, docDays, maybeDays, now, preallocRan, minuteFrom: minuteHorizon(role, now), histogramFrom: histogramHorizon(role, now) }
}

const eventsIn = (state, from, to) => state.events.filter(e => e.t >= from && e.t < to)

/** Whether a document holds some time of [from, to): 'yes', 'no' or 'maybe' (a day a preallocation may have made) */
function presence (state, from, to) {
  const overlaps = (days) => [...days].some(d => d < to && d + DAY > from)
  if (overlaps(state.docDays)) return 'yes'
  return overlaps(state.maybeDays) ? 'maybe' : 'no'
}

/** NULL_OR_ZERO: where a preallocation may or may not have made the document */
export const NULL_OR_ZERO = Symbol('null or 0')

/** The model's value of `statName` over [from, to) */
export function expectedValue (state, statName, from, to) {
  const s = state.kind.stats[statName]
  const events = eventsIn(state, from, to)
  if (events.length > 0) return s.of(events)
  if (!s.additive) return null
  const p = presence(state, from, to)
  return p === 'yes' ? 0 : p === 'maybe' ? NULL_OR_ZERO : null
}

/** Whether `got` is the model's `expected` for `statName` (its compare), null and NULL_OR_ZERO included */
export function agrees (kind, statName, got, expected) {
  if (expected === NULL_OR_ZERO) return got === null || got === 0
  if (expected === null || got === null || typeof got !== 'number') return got === expected
  switch (kind.stats[statName].compare) {
    case EXACT: return got === expected
    case CLOSE: return Math.abs(got - expected) <= 1e-9 * Math.max(1, Math.abs(expected))
    default: return Math.abs(got - expected) <= ALPHA * Math.abs(expected) * (1 + 1e-9) + 1e-9
  }
}

export const show = (v) => (v === NULL_OR_ZERO ? 'null or 0' : JSON.stringify(v))

// ---------------------------------------------------------------- local boundaries (Intl; UTC's by arithmetic)

const boundaryCache = new Map()
const cached = (key, make) => { if (!boundaryCache.has(key)) boundaryCache.set(key, make()); return boundaryCache.get(key) }
/** The days every read looks at, and a day around them */
const SPAN = { from: at('2026-03-28T00:00:00Z'), to: at('2026-04-08T00:00:00Z') }

/** UTC's boundaries, by arithmetic: every step has the same length there, a month excepted */
function utcBoundaries (step, from, to) {
  if (step === 'month') return Array.from({ length: 6 }, (_, m) => Date.UTC(2026, m, 1))
  const length = { minute: MINUTE, 'quarter-hour': QUARTER, hour: HOUR, day: DAY }[step]
  const list = []
  for (let t = Math.floor(from / DAY) * DAY - DAY; t <= to + DAY; t += length) list.push(t)
  return list
}

/**
 * Every boundary of `step` in `tz` around [from, to]: UTC's by arithmetic,
 * another zone's read from Intl — hours and days over SPAN, months of 2026's
 * first half (each read around its UTC month start), minutes and
 * quarter-hours where the wall clock reads a whole minute (a multiple of 15)
 * from an hour before `from` to an hour after `to`
 */
function boundariesOf (step, tz, from, to) {
  if (tz === 'UTC') return cached(`${step} UTC ${from} ${to}`, () => utcBoundaries(step, from, to))
  if (step === 'month') {
    return cached(`month ${tz}`, () => Array.from({ length: 6 }, (_, m) => intlBoundaries(tz, Date.UTC(2026, m, 1) - 15 * HOUR, Date.UTC(2026, m, 1) + 15 * HOUR).month[0]))
  }
  if (step === 'day' || step === 'hour') {
    if (from < SPAN.from + DAY || to > SPAN.to - DAY) throw new Error(`the model reads ${step}s of ${tz} within ${iso(SPAN.from)}..${iso(SPAN.to)} only`)
    return cached(`hour+day ${tz}`, () => intlBoundaries(tz, SPAN.from, SPAN.to))[step]
  }
  return cached(`${step} ${tz} ${from} ${to}`, () => {
    const every = step === 'minute' ? 1 : 15
    const list = []
    for (let t = from - HOUR; t <= to + HOUR; t += MINUTE) if (intlWall(tz, t).mi % every === 0) list.push(t)
    return list
  })
}
const iso = (t) => new Date(t).toISOString()

/** The points of a series over [from, to) at step in tz, rounded out: { from, to, starts } */
export function seriesPoints (step, tz, from, to) {
  return cached(`points ${step} ${tz} ${from} ${to}`, () => {
    const all = boundariesOf(step, tz, from, to)
    const first = all.filter(b => b <= from).at(-1)
    const last = all.find(b => b >= to)
    if (first === undefined || last === undefined) throw new Error(`the model's boundaries do not cover ${step} ${tz} ${from}..${to}`)
    return { from: first, to: last, starts: all.filter(b => b >= first && b < last) }
  })
}

// ---------------------------------------------------------------- Graphite (graphite-web 1.1.10)

/** MAX_POINTS's default: a window of more points is read at the next tier */
export const MAX_POINTS = 20_000

/**
 * whisper.py fetch: (from, until] moved to the step's next boundary; the
 * point labelled t holds [t, t + step). → { start, end, n } (epoch s)
 */
function nativeWindow (fromS, untilS, step) {
  const start = Math.floor(fromS / step) * step + step
  let end = Math.floor(untilS / step) * step + step
  if (start === end) end += step
  return { start, end, n: (end - start) / step }
}

const pyMod = (a, b) => ((a % b) + b) % b

/**
 * The points /render answers for one series over (fromS, untilS] whose
 * native step is `step` (s), as graphite-web's renderViewJson makes them:
 * past maxDataPoints consolidated by valuesPerPoint, its start nudged, and
 * one value fewer deleted than the nudge skips. → [{ t, from, to }] (t the
 * label, epoch s; [from, to) the span of raw time the point stands for, ms)
 */
export function renderPoints (fromS, untilS, step, maxDataPoints) {
  const { start, end, n } = nativeWindow(fromS, untilS, step)
  const span = (i, j) => ({ from: (start + i * step) * 1000, to: (start + Math.min(j, n) * step) * 1000 })
  if (!maxDataPoints || !(maxDataPoints < n)) return Array.from({ length: n }, (_, i) => ({ t: start + i * step, ...span(i, i + 1) }))
  if (maxDataPoints === 1) throw new Error('the model leaves maxDataPoints=1 out')
  const per = Math.ceil(n / maxDataPoints)
  const secondsPerPoint = per * step
  const nudge = secondsPerPoint + pyMod(start, step) - pyMod(start, secondsPerPoint)
  const dropped = Math.max(0, Math.trunc(nudge / step) - 1) // del series[0] for r in range(1, valuesToLose)
  const points = []
  // zip(consolidated values, range(start + nudge, end + 1, secondsPerPoint))
  for (let k = 0, t = start + nudge; dropped + k * per < n && t <= end; k++, t += secondsPerPoint) {
    points.push({ t, ...span(dropped + k * per, dropped + (k + 1) * per) })
  }
  return points
}

/**
 * The native step (s) of a series read over (fromS, untilS]: the finest tier
 * (minute, quarter-hour, day) kept from `from` on whose points fit in
 * MAX_POINTS (README "Grafana": past the minute retention, or over MAX_POINTS, a quarter-hour)
 */
export function nativeStep (fromS, untilS, keptFrom) {
  for (const step of [60, 900, 86_400]) {
    if (nativeWindow(fromS, untilS, step).n > MAX_POINTS) continue
    if (step === 60 && keptFrom !== null && fromS * 1000 < keptFrom) continue
    return step
  }
  throw new Error('no tier fits')
}

// ---------------------------------------------------------------- the reads (the table's columns)

/**
 * Windows of the series reads: minutes and quarter-hours around C2 (a UTC
 * day and month begin; Chatham's hours begin at :15) and C1 (Chatham's
 * midnight and month), the coarser steps over all the days (the empty Mar 30
 * and Apr 3, Chatham's 25-hour Apr 5, the preallocated Apr 5), each rounded
 * out to the step in the zone
 */
export const WINDOWS = {
  minute: { from: at('2026-03-31T23:00:00Z'), to: at('2026-04-01T01:15:00Z') },
  'quarter-hour': { from: at('2026-03-31T09:00:00Z'), to: at('2026-04-01T02:00:00Z') },
  hour: { from: at('2026-03-30T12:00:00Z'), to: at('2026-04-05T12:00:00Z') },
  day: { from: at('2026-03-29T00:00:00Z'), to: at('2026-04-07T00:00:00Z') },
  month: { from: at('2026-03-01T00:00:00Z'), to: at('2026-05-01T00:00:00Z') }
}
/** Ranges of total and quantiles: minute edges (cutting quarter-hours), quarter-hour edges */
export const RANGES = [
  { id: 'minute edges', from: at('2026-03-31T10:07:00Z'), to: at('2026-04-04T14:16:00Z') },
  { id: 'quarter-hour edges', from: at('2026-03-31T10:00:00Z'), to: at('2026-04-04T14:15:00Z') }
]
export const QUANTILES = [0, 0.25, 0.5, 0.9, 0.99, 1]
/**
 * Graphite's window (epoch s), absolute and UTC (Graphite has no zone): C2,
 * over a UTC day and month boundary; maxDataPoints consolidates its 240
 * minutes (35 a point) and, where only quarter-hours are kept, its 16 quarter-hours (3)
 */
export const RENDER = { from: at('2026-03-31T22:00:00Z') / 1000, until: at('2026-04-01T02:00:00Z') / 1000, maxDataPoints: 7 }
export const YTD_AS_OF = T_READ

const stepsOf = Object.keys(WINDOWS)

/**
 * The reads of a kind, each { id, read, stat? }: a column of the table. The
 * test file runs each against a metric (url/expect below).
 */
export function readCells (kind) {
  const cells = []
  for (const step of stepsOf) {
    for (const tz of ZONES) {
      for (const s of Object.keys(kind.stats)) {
        cells.push({ id: `series ${step} ${tz}${kind.leaves ? ` × ${s}` : ''}`, read: 'series', step, window: WINDOWS[step], tz, stat: s, param: kind.seriesStats[s] })
      }
    }
  }
  for (const range of RANGES) cells.push({ id: `total ${range.id}`, read: 'total', range })
  for (const tz of ZONES) cells.push({ id: `ytd ${tz}`, read: 'ytd', tz })
  for (const range of RANGES) cells.push({ id: `quantiles ${range.id}`, read: 'quantiles', range })
  for (const maxDataPoints of [null, RENDER.maxDataPoints]) {
    for (const leaf of kind.leaves ?? [null]) {
      const s = leaf ?? Object.keys(kind.stats)[0]
      cells.push({ id: `render${maxDataPoints ? ' maxDataPoints' : ''}${leaf ? ` × ${leaf}` : ''}`, read: 'render', leaf, stat: s, maxDataPoints })
    }
  }
  // a kind with stat leaves is a branch: its name alone reads as bareLeaf, or has no series
  if (kind.leaves) cells.push({ id: 'render maxDataPoints of the branch', read: 'render-branch', stat: kind.bareLeaf, maxDataPoints: RENDER.maxDataPoints })
  cells.push({ id: 'metrics/find', read: 'find' })
  return cells
}

/**
 * The reads by tag of a tagged door's name (docs/tags.md#reads), each a
 * selection of its series: one by `tag=`, every one by a regex `tag=` (their
 * merge, which the name's own read must equal), every one grouped `by=`.
 * groups: the shards of each group the answer holds, in its order (a
 * filter's answer is one group, not listed by tags); every: the groups hold
 * every series, so the name's read is their sum or merge.
 */
export const SELECTIONS = [
  // one series: a total's and a year's (a series' points are each group's of by=)
  { id: 'tag=shard=s1', query: `tag=${encodeURIComponent('shard=s1')}`, by: false, groups: [['s1']], every: false, reads: ['total', 'ytd'] },
  { id: 'tag=shard=~s', query: `tag=${encodeURIComponent('shard=~s')}`, by: false, groups: [SHARDS], every: true, reads: ['series', 'total', 'ytd'] },
  { id: 'by=shard', query: 'by=shard', by: true, groups: SHARDS.map(s => [s]), every: true, reads: ['series', 'total', 'ytd'] }
]
/**
 * The series reads by tag, fewer than the name's (each reads every series
 * besides the name: the table also runs on FerretDB, .ci/run): minutes (their
 * horizon) in UTC, hours in Chatham (its local days, its DST), of the kind's tagStats
 */
const TAG_SERIES = [{ step: 'minute', tz: 'UTC' }, { step: 'hour', tz: CHATHAM }]

/** The totals by tag: over quarter-hour edges, and the year to date in Chatham (its local months) */
const TAG_TOTALS = ['total quarter-hour edges', `ytd ${CHATHAM}`]

/**
 * A tagged door's reads by tag, columns besides readCells: each { ...base,
 * base, selection }, base the name's read of the same window and stat
 */
export function tagReadCells (kind) {
  const bases = readCells(kind).filter(c => TAG_TOTALS.includes(c.id) ||
    (c.read === 'series' && kind.tagStats.includes(c.stat) && TAG_SERIES.some(s => s.step === c.step && s.tz === c.tz)))
  return bases.flatMap(base => SELECTIONS.filter(selection => selection.reads.includes(base.read))
    .map(selection => ({ ...base, id: `${base.id} × ${selection.id}`, base, selection })))
}

/** The request of a cell for `metric` (a read by tag: the name's, with its selection) */
export function urlOf (cell, metric) {
  const url = nameUrlOf(cell, metric)
  return cell.selection ? `${url}&${cell.selection.query}` : url
}

function nameUrlOf (cell, metric) {
  const m = encodeURIComponent(metric)
  switch (cell.read) {
    case 'series': {
      const stat = cell.param ? `&stat=${cell.param}` : ''
      return `/v1/metrics/${m}/series?step=${cell.step}&tz=${encodeURIComponent(cell.tz)}&from=${cell.window.from}&to=${cell.window.to}${stat}`
    }
    case 'total': return `/v1/metrics/${m}/total?from=${cell.range.from}&to=${cell.range.to}`
    case 'ytd': return `/v1/metrics/${m}/ytd?year=2026&asOf=${YTD_AS_OF}&tz=${encodeURIComponent(cell.tz)}`
    case 'quantiles': return `/v1/metrics/${m}/quantiles?from=${cell.range.from}&to=${cell.range.to}&q=${QUANTILES.join(',')}`
    case 'render': {
      const target = cell.leaf ? `${metric}.${cell.leaf}` : metric
      return `/render?format=json&target=${encodeURIComponent(target)}&from=${RENDER.from}&until=${RENDER.until}${cell.maxDataPoints ? `&maxDataPoints=${cell.maxDataPoints}` : ''}`
    }
    case 'render-branch': return `/render?format=json&target=${encodeURIComponent(metric)}&from=${RENDER.from}&until=${RENDER.until}&maxDataPoints=${cell.maxDataPoints}`
    default: throw new Error(`no single url for ${cell.read}`)
  }
}

/**
 * The model's answer to a series cell: a refusal { status, mentions: what
 * its message says (one of them) } or
 * { body: the echoed fields, points: [{ t, expected }] }
 */
export function expectSeries (state, cell) {
  const { step, tz, window, stat: s } = cell
  const isPercentile = state.kind.stats[s].compare === WITHIN_ALPHA
  const keptFrom = isPercentile ? state.histogramFrom : state.minuteFrom
  // docs/api.md#get-v1metricsmetricseries: before a metric's minute horizon step=minute is a 400 naming the horizon, never zeros
  if (step === 'minute' && window.from < keptFrom) return { status: 400, mentions: [isoDay(keptFrom)] }
  const { from, to, starts } = seriesPoints(step, tz, window.from, window.to)
  const points = starts.map((t, i) => ({ t, expected: expectedValue(state, s, t, starts[i + 1] ?? to) }))
  return { status: 200, body: { step, tz, from, to }, points }
}

/** The model's answer to a total or quantiles cell over range */
export function expectRange (state, cell) {
  const { kind } = state
  const { from, to } = cell.range
  // docs/api.md#get-v1metricsmetrictotal: each edge must fall on a minute; past the minute retention a quarter-hour (a 400 names the nearest)
  const keptFrom = cell.read === 'quantiles' ? state.histogramFrom : state.minuteFrom
  const onQuarter = (t) => t % QUARTER === 0
  const edges = (from < keptFrom && !onQuarter(from)) || (to < keptFrom && !onQuarter(to)) ? [isoDay(keptFrom)] : []
  // a kind without the read answers a 400 saying so (or, where its edges are refused too, one naming the horizon)
  if (cell.read === 'total' && kind.total === null) return { status: 400, mentions: ['has no total', ...edges] }
  if (cell.read === 'quantiles' && !kind.quantiles) return { status: 400, mentions: ['quantiles are kept for distributions only', ...edges] }
  if (edges.length) return { status: 400, mentions: edges }
  const events = eventsIn(state, from, to)
  const values = events.map(e => e.v)
  if (cell.read === 'total') {
    if (kind.total === 'counter') return { status: 200, fields: { total: sumOf(values) } }
    return { status: 200, fields: { total: values.length, count: values.length, sum: sumOf(values) } }
  }
  return {
    status: 200,
    fields: { count: values.length, sum: sumOf(values), min: Math.min(...values), max: Math.max(...values), accuracy: ALPHA },
    quantiles: QUANTILES.map(q => ({ q, value: rank(values, q) }))
  }
}

/** Where a cell's read begins: a series' window, a range, or a ytd's local year */
export const readFrom = (cell) => (cell.read === 'ytd' ? boundariesOf('month', cell.tz)[0] : cell.read === 'series' ? cell.window.from : cell.range.from)

/** The model's answer to a ytd cell: the local months of 2026 up to the end of asOf's local day */
export function expectYtd (state, cell) {
  const { kind } = state
  if (kind.ytd === null) return { status: 400, mentions: ['has no year-to-date total'] }
  const starts = boundariesOf('month', cell.tz)
  const endOfAsOf = boundariesOf('day', cell.tz, YTD_AS_OF, YTD_AS_OF).find(b => b > YTD_AS_OF)
  const months = []
  for (let m = 0; m < 12 && starts[m] <= YTD_AS_OF; m++) {
    const from = starts[m]
    const to = Math.min(starts[m + 1], endOfAsOf)
    const values = eventsIn(state, from, to).map(e => e.v)
    const held = values.length > 0 || presence(state, from, to) === 'yes'
    const month = `2026-${String(m + 1).padStart(2, '0')}`
    months.push(kind.ytd === 'counter'
      ? { month, total: held ? sumOf(values) : null }
      : { month, total: held ? values.length : null, count: held ? values.length : null, sum: held ? sumOf(values) : null })
  }
  const all = eventsIn(state, starts[0], endOfAsOf).map(e => e.v)
  // docs/kinds/distribution.md#stats: `total` gives the count (as `total`) and the sum; `ytd` each month's too
  const totals = kind.ytd === 'counter' ? { total: sumOf(all) } : { total: all.length, sum: sumOf(all) }
  return { status: 200, fields: { year: 2026, tz: cell.tz, asOf: YTD_AS_OF, ...totals }, months }
}

/** The model's answer to a render cell: the one series, its name and points */
export function expectRender (state, cell) {
  const { kind } = state
  const isPercentile = kind.stats[cell.stat].compare === WITHIN_ALPHA
  const step = nativeStep(RENDER.from, RENDER.until, isPercentile ? state.histogramFrom : state.minuteFrom)
  const points = renderPoints(RENDER.from, RENDER.until, step, cell.maxDataPoints)
  return {
    target: `${state.metric}${cell.leaf ? `.${cell.leaf}` : ''}`,
    step,
    points: points.map(p => ({ t: p.t, expected: expectedValue(state, cell.stat, p.from, p.to), from: p.from, to: p.to }))
  }
}

/**
 * The model's /metrics/find answers (treejson, graphite-web metrics/views.py:
 * a node's id is the query up to its last dot and the node's name) for a glob
 * matching the metric's own name, and for the nodes below the metric
 */
export function expectFind (kind, metric, glob) {
  const text = metric.slice(metric.lastIndexOf('.') + 1)
  const id = `${glob.slice(0, glob.lastIndexOf('.'))}.${text}`
  const node = kind.leaves
    ? { text, id, allowChildren: 1, expandable: 1, leaf: 0 }
    : { text, id, allowChildren: 0, expandable: 0, leaf: 1 }
  const below = (kind.leaves ?? []).map(leaf => ({ text: leaf, id: `${metric}.${leaf}`, allowChildren: 0, expandable: 0, leaf: 1 }))
  return { node: [node], below }
}
