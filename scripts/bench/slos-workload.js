// What the SLO section (./bench-slos.js) stores and asks: its series, an
// event a minute from the UTC day before the previous year to now, seeded
// as day and month documents in the writer's stored shape (held equal to
// eventIncrements, the write path's oracle, in test/scripts/bench/bench-slos.test.js),
// minutes kept for the last `minuteDays` days and quarter-hours before; the
// 100 SLOs over them (an OpenSLO file); the model's sums. Pure.
import { DAY_MS, HOUR_MS, MINUTE_MS, QUARTER_HOUR_MS, bucketId, describeDay } from '../../src/bucket/time.js'
import { QUARTER_HOUR_DETAIL } from '../../src/bucket/increments.js'

export const PLAIN_PREFIX = 'bench.slo.p'
export const TAGGED_PREFIX = 'bench.slo.t'
export const STATUSES = ['200', '404', '500', '503']

/**
 * The sources: `plain` pairs of untagged counters (good, total) and
 * `tagged` names of 4 series by status (good `status!=~5..`, total the name)
 * → [{ name, good: { metric, tags }, total: { metric, tags }, series: [{ metric, value(minute) }] }]
 */
export function sources ({ plain, tagged }) {
  const out = []
  for (let k = 0; k < plain; k++) {
    const base = `${PLAIN_PREFIX}${String(k).padStart(2, '0')}`
    const total = m => 1 + ((k * 7 + m) % 13)
    // a bad event now and then: good = total − bad
    const good = m => total(m) - ((k + m) % 50 === 0 ? 1 : 0)
    out.push({ name: base, good: { metric: `${base}.good`, tags: [] }, total: { metric: `${base}.total`, tags: [] }, series: [{ metric: `${base}.good`, value: good }, { metric: `${base}.total`, value: total }] })
  }
  for (let k = 0; k < tagged; k++) {
    const name = `${TAGGED_PREFIX}${String(k).padStart(2, '0')}`
    const byStatus = {
      200: m => 1 + ((k * 5 + m) % 11),
      404: m => (m % 7 === 0 ? 1 : 0),
      500: m => ((m + k) % 40 === 0 ? 1 : 0),
      503: m => (m % 113 === 0 ? 2 : 0)
    }
    const sum = m => STATUSES.reduce((n, s) => n + byStatus[s](m), 0)
    out.push({
      name,
      good: { metric: name, tags: ['status!=~5..'] },
      total: { metric: name, tags: [] },
      // the name holds the sum of its series (a tagged event counts toward both)
      series: [{ metric: name, value: sum }, ...STATUSES.map(s => ({ metric: `${name};status=${s}`, value: byStatus[s] }))]
    })
  }
  return out
}

/** The SLO groups: a window (duration, zone) and how many SLOs have it; 100 in all */
export const SLO_GROUPS = [
  { duration: '1y', zone: 'UTC', count: 16 },
  { duration: '1y', zone: 'Europe/Berlin', count: 16 },
  { duration: '1y', zone: 'Asia/Kolkata', count: 1 },
  { duration: '1Q', zone: 'UTC', count: 12 },
  { duration: '1Q', zone: 'Europe/Berlin', count: 12 },
  { duration: '1M', zone: 'UTC', count: 15 },
  { duration: '1M', zone: 'Europe/Berlin', count: 15 },
  { duration: '1M', zone: 'Asia/Kolkata', count: 1 },
  { duration: '1w', zone: 'Europe/Berlin', count: 4 },
  { duration: '1d', zone: 'UTC', count: 4 },
  { duration: '28d', zone: null, count: 4 }
]

export const groupKey = ({ duration, zone }) => (zone === null ? `${duration} rolling` : `${duration} ${zone}`)
const slug = zone => (zone === null ? 'rolling' : zone.split('/').at(-1).toLowerCase())

/** The 100 SLOs: SLO i over source 7i mod sources (a permutation when 7 does not divide their number: each group mixes plain and tagged) → [{ name, group, source }] */
export function sloList (allSources, groups = SLO_GROUPS) {
  const slos = []
  for (const group of groups) {
    for (let j = 0; j < group.count; j++) {
      const source = allSources[(slos.length * 7) % allSources.length]
      slos.push({ name: `s${String(slos.length).padStart(3, '0')}-${group.duration.toLowerCase()}-${slug(group.zone)}`, group: groupKey(group), duration: group.duration, zone: group.zone, source })
    }
  }
  return slos
}

/** The SLOs as an OpenSLO file (SLO_FILE) */
export function sloFile (slos) {
  const selector = ({ metric, tags }) => `{ metricSource: { type: statbucket, spec: { metric: ${metric}${tags.length ? `, tags: ${JSON.stringify(tags)}` : ''} } } }`
  return slos.map(({ name, duration, zone, source }) => [
    'apiVersion: openslo/v1',
    'kind: SLO',
    `metadata: { name: ${name} }`,
    'spec:',
    '  indicator:',
    '    spec:',
    '      ratioMetric:',
    `        good: ${selector(source.good)}`,
    `        total: ${selector(source.total)}`,
    `  timeWindow: [${zone === null ? `{ duration: ${duration}, isRolling: true }` : `{ duration: ${duration}, isRolling: false, calendar: { timeZone: ${zone} } }`}]`,
    '  budgetingMethod: Occurrences',
    '  objectives: [{ target: 0.99 }]'
  ].join('\n')).join('\n---\n') + '\n'
}

/**
 * A series' day document for the UTC day starting at dayStart, its minutes
 * up to (not including) `upTo`: every tier, minutes only with `minutes`
 * (else marked as ingest marks a day past the minute horizon) → document, or null when no minute is before upTo
 */
export function dayDocument ({ metric, value }, dayStart, upTo, minutes) {
  const end = Math.min(dayStart + DAY_MS, upTo)
  if (end <= dayStart) return null
  const day = describeDay(dayStart)
  const doc = { _id: bucketId(metric, day.dayKey), metric, date: new Date(dayStart), daily: 0, hourly: {}, quarterHourly: {} }
  if (minutes) doc.minute = {}
  else doc.detail = QUARTER_HOUR_DETAIL
  for (let t = dayStart; t < end; t += MINUTE_MS) {
    const v = value(t / MINUTE_MS)
    const hour = Math.floor((t - dayStart) / HOUR_MS)
    const quarter = Math.floor((t - dayStart - hour * HOUR_MS) / QUARTER_HOUR_MS)
    doc.daily += v
    doc.hourly[hour] = (doc.hourly[hour] ?? 0) + v
    const q = (doc.quarterHourly[hour] ??= {})
    q[quarter] = (q[quarter] ?? 0) + v
    if (minutes) (doc.minute[hour] ??= {})[(t - dayStart - hour * HOUR_MS) / MINUTE_MS] = v
  }
  return doc
}

/**
 * Every document of a series from the UTC day holding `from` to the minute
 * before `upTo`, minutes on the last `minuteDays` UTC days; zonedOf
 * (src/bucket/zoned-days.js, the write path's): each month document's local
 * days of the zones declared for its name, as ingest adds them → { daily, monthly }
 */
export function seriesDocuments (series, { from, upTo, minuteDays, zonedOf = () => null }) {
  const fieldsAt = zonedOf(series.metric)
  const daily = []
  const months = new Map()
  const firstDay = Math.floor(from / DAY_MS) * DAY_MS
  const minutesFrom = Math.floor(upTo / DAY_MS) * DAY_MS - (minuteDays - 1) * DAY_MS
  for (let dayStart = firstDay; dayStart < upTo; dayStart += DAY_MS) {
    const doc = dayDocument(series, dayStart, upTo, dayStart >= minutesFrom)
    if (doc === null) continue
    daily.push(doc)
    const day = describeDay(dayStart)
    const id = bucketId(series.metric, day.monthKey)
    if (!months.has(id)) months.set(id, { _id: id, metric: series.metric, date: new Date(day.monthStart), monthly: 0, daily: {} })
    const month = months.get(id)
    month.monthly += doc.daily
    month.daily[day.dayOfMonth] = doc.daily
    if (fieldsAt !== null) addZoned(month, fieldsAt, dayStart, doc.quarterHourly)
  }
  return { daily, monthly: [...months.values()] }
}

/** Adds a day's quarter-hours into its month's zoned fields: a local date holds whole UTC quarter-hours (every offset is a whole number of them) */
function addZoned (month, fieldsAt, dayStart, quarterHourly) {
  for (const hour in quarterHourly) {
    for (const quarter in quarterHourly[hour]) {
      for (const field of fieldsAt(dayStart, dayStart + (Number(hour) * 4 + Number(quarter)) * QUARTER_HOUR_MS)) {
        const [, zone, key] = field.split('.')
        const days = ((month.zoned ??= {})[zone] ??= {})
        days[key] = (days[key] ?? 0) + quarterHourly[hour][quarter]
      }
    }
  }
}

/** The model: a selector's sum over [from, to), minute by minute from the source's values (its seeded minutes only) */
export function modelSum (source, which, { from, to }, { seededFrom, upTo }) {
  const { value } = which === 'total' ? source.series.find(s => s.metric === source.total.metric) : goodSeries(source)
  let n = 0
  for (let t = Math.max(from, seededFrom); t < Math.min(to, upTo); t += MINUTE_MS) n += value(t / MINUTE_MS)
  return n
}

/** The good selector's values: its metric alone, or the sum of the tagged series its filter keeps (status not 5xx) */
function goodSeries (source) {
  if (source.good.tags.length === 0) return source.series.find(s => s.metric === source.good.metric)
  const kept = source.series.filter(s => /;status=(?!5)/.test(s.metric))
  return { value: m => kept.reduce((n, s) => n + s.value(m), 0) }
}
