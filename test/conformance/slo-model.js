// The SLO report column of the conformance table (docs/slos.md#reports):
// each row's metrics have two stored SLOs, a calendar month in
// Pacific/Chatham (a 45-minute zone whose DST ends inside the month) and a
// UTC day, put before the row's door sends anything. A counter's SLO counts
// its increments, good those of one shard on a tagged door; a distribution's
// counts its values, good those ≤ THRESHOLD (declared: DISTRIBUTION_THRESHOLDS,
// so exact); a gauge's report is refused. The model reads the raw values
// (./model.js rawEvents) and the zone through Intl only: every figure of the
// report but its cost (`documents`) is computed here, independently.
import { CHATHAM, MINUTE, HOUR, DAY, metricState } from './model.js'

/** The objective: a bad event in four allowed (a binary fraction: the model's arithmetic is exact) */
export const TARGET = 0.75
/** A distribution's good values: at most this (model.js DISTRIBUTION values run from 2.72 to ~6,000) */
export const THRESHOLD = 100
/** DISTRIBUTION_THRESHOLDS of the apps: every distribution of the table, declared at boot */
export const DISTRIBUTION_THRESHOLDS = { 'conf.distribution.*.*': [THRESHOLD] }

/** The SLOs of a metric: a local month and a UTC day, each with its period read */
const PERIODS = [
  { id: 'm', duration: '1M', zone: CHATHAM, period: '2026-04' },
  { id: 'd', duration: '1d', zone: 'UTC', period: '2026-04-04' }
]

export const sloName = (metric, periodId) => `${metric.replaceAll('.', '-')}-${periodId}`

/** The stored SLOs of one metric (PUT /v1/slos/:name bodies, OpenSLO v1 as JSON) */
export function sloDefinitions (kind, door, metric) {
  const good = { metric, ...(door.tags ? { tags: ['shard=s0'] } : {}), ...(kind.id === 'distribution' ? { threshold: THRESHOLD } : {}) }
  return PERIODS.map(p => ({
    name: sloName(metric, p.id),
    body: {
      apiVersion: 'openslo/v1',
      kind: 'SLO',
      metadata: { name: sloName(metric, p.id) },
      spec: {
        service: 'conformance',
        indicator: { spec: { ratioMetric: { counter: true, good: { metricSource: { type: 'statbucket', spec: good } }, total: { metricSource: { type: 'statbucket', spec: { metric } } } } } },
        timeWindow: [{ duration: p.duration, isRolling: false, calendar: { timeZone: p.zone } }],
        budgetingMethod: 'Occurrences',
        objectives: [{ target: TARGET }]
      }
    }
  }))
}

/** The columns: a report of each SLO */
export const SLO_CELLS = PERIODS.map(p => ({ id: `slo report ${p.duration} ${p.zone}`, read: 'slo', slo: p }))

export const sloUrl = (cell, metric) => `/v1/slos/${sloName(metric, cell.slo.id)}/report?period=${cell.slo.period}`

// ---------------------------------------------------------------- the zone, through Intl only

const dateFormats = new Map()
/** The local date of t in zone, YYYY-MM-DD */
export function localDate (zone, t) {
  if (!dateFormats.has(zone)) dateFormats.set(zone, new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }))
  return dateFormats.get(zone).format(t)
}

/** The first instant (on a quarter-hour: every zone's midnight is one) whose local date is `date` */
function localMidnight (zone, date) {
  for (let t = Date.parse(`${date}T00:00:00Z`) - 15 * HOUR; ; t += 15 * MINUTE) {
    if (localDate(zone, t) === date) return t
  }
}

const nextDate = (date) => new Date(Date.parse(`${date}T00:00:00Z`) + DAY).toISOString().slice(0, 10)

/** The local dates of a period label (YYYY-MM: its month; YYYY-MM-DD: that day) */
function datesOf (period) {
  if (period.length === 10) return [period]
  const dates = []
  for (let d = `${period}-01`; d.startsWith(period); d = nextDate(d)) dates.push(d)
  return dates
}

// ---------------------------------------------------------------- the report

/** The good and total of events in [from, to) (or of a local date) */
function countsOf (kind, good, all, inRange) {
  const measure = kind.id === 'distribution' ? (es) => es.length : (es) => es.reduce((n, e) => n + e.v, 0)
  return { good: measure(good.filter(inRange)), total: measure(all.filter(inRange)) }
}

/**
 * The model's report of a metric's SLO (cell.slo) read at `now`; deleted:
 * the metric was deleted, its SLO counts nothing → { status, body } or
 * { status: 400, mentions } for a gauge
 */
export function expectSlo (kind, door, metric, role, cell, { now, deleted }) {
  const { zone, period } = cell.slo
  const all = deleted ? [] : metricState(kind, metric, role, { now }).events
  if (kind.id === 'gauge' && !deleted) return { status: 400, mentions: ['is a gauge'] }
  const shard = deleted ? [] : door.tags ? metricState(kind, metric, role, { now, shards: ['s0'] }).events : all
  const good = kind.id === 'distribution' ? shard.filter(e => e.v <= THRESHOLD) : shard
  const dates = datesOf(period)
  const days = dates.map(day => ({ day, ...countsOf(kind, good, all, e => localDate(zone, e.t) === day) }))
  const g = days.reduce((n, d) => n + d.good, 0)
  const t = days.reduce((n, d) => n + d.total, 0)
  const from = localMidnight(zone, dates[0])
  const to = localMidnight(zone, nextDate(dates.at(-1)))
  const current = now < to
  const allowed = Math.floor(t * (1 - TARGET))
  const ratio = (a, b) => (b === 0 ? null : a / b)
  const burn = (counts) => (counts.total === 0 ? null : ((counts.total - counts.good) / counts.total) / (1 - TARGET))
  const end = Math.floor(now / MINUTE) * MINUTE + MINUTE
  const windows = { '5m': 5, '30m': 30, '1h': 60, '6h': 360, '1d': 1440, '3d': 4320 }
  const inWindow = (minutes) => countsOf(kind, good, all, e => e.t >= end - minutes * MINUTE && e.t < end)
  const lastHour = inWindow(60)
  const left = to - end
  return {
    status: 200,
    body: {
      name: sloName(metric, cell.slo.id),
      period,
      timeZone: zone,
      from,
      to,
      good: g,
      total: t,
      attainment: ratio(g, t),
      target: TARGET,
      budget: { allowed, consumed: t - g, remaining: allowed - (t - g), remainingRatio: ratio(allowed - (t - g), allowed) },
      days,
      burnRates: current ? Object.fromEntries(Object.entries(windows).map(([name, minutes]) => [name, burn(inWindow(minutes))])) : null,
      projectedAttainment: current ? ratio(g * HOUR + lastHour.good * left, t * HOUR + lastHour.total * left) : ratio(g, t)
    }
  }
}
