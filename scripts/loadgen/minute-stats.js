// Per-simulated-minute accounting of a load run, its CSV, and the summary
// figures the talk is about. Pure: the recorder is fed numbers, the rest
// are functions of the rows.
import { MINUTE_MS, startOfDay } from '../../src/bucket/time.js'
import { percentile } from '../shared/workload.js'

export function median (values) {
  if (values.length === 0) return null
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/**
 * Records requests by the simulated minute in which they were sent.
 * record(sendSimMs, events, latencyMs, outcome): outcome 'acked' | 'rejected' | 'not_applied' | 'not_reached' | 'unknown'.
 */
export function createMinuteRecorder () {
  const minutes = new Map() // minute start (sim ms) → { events, requests, failedEvents, failedRequests, latencies }
  const totals = { acked: 0, rejected: 0, not_applied: 0, not_reached: 0, unknown: 0, requests: 0, ackedRequests: 0 }
  const allLatencies = []
  return {
    totals,
    record (sendSimMs, events, latencyMs, outcome) {
      const key = sendSimMs - (((sendSimMs % MINUTE_MS) + MINUTE_MS) % MINUTE_MS)
      let m = minutes.get(key)
      if (!m) {
        m = { events: 0, requests: 0, failedEvents: 0, failedRequests: 0, latencies: [] }
        minutes.set(key, m)
      }
      m.requests++
      totals.requests++
      totals[outcome] += events
      if (outcome === 'acked') {
        m.events += events
        m.latencies.push(latencyMs)
        allLatencies.push(latencyMs)
        totals.ackedRequests++
      } else {
        m.failedEvents += events
        m.failedRequests++
      }
    },
    minutes,
    allLatencies
  }
}

/**
 * One row per simulated minute of [simStart, simEnd): the events acknowledged
 * among the requests sent in it, and events/s over the real time that minute
 * lasted within the run (a partial first or last minute counts its part).
 */
export function minuteRows ({ minutes, simStart, simEnd, speedup }) {
  const rows = []
  const first = simStart - (((simStart % MINUTE_MS) + MINUTE_MS) % MINUTE_MS)
  for (let t = first; t < simEnd; t += MINUTE_MS) {
    const m = minutes.get(t)
    const simCovered = Math.min(t + MINUTE_MS, simEnd) - Math.max(t, simStart)
    const realMs = simCovered / speedup
    const events = m?.events ?? 0
    rows.push({
      simMinute: t,
      minuteOfDay: (t - startOfDay(t)) / MINUTE_MS,
      events,
      requests: m?.requests ?? 0,
      failedEvents: m?.failedEvents ?? 0,
      realMs,
      eventsPerS: realMs > 0 ? events / (realMs / 1000) : 0,
      p50Ms: m ? percentile(m.latencies, 50) : null,
      p99Ms: m ? percentile(m.latencies, 99) : null,
      full: simCovered === MINUTE_MS
    })
  }
  return rows
}

export const CSV_COLUMNS = ['phase', 'sim_minute', 'minute_of_day', 'events', 'requests', 'failed_events', 'real_ms', 'events_per_s', 'p50_ms', 'p99_ms']

const fixed = (n, digits) => (n === null || n === undefined ? '' : Number(n.toFixed(digits)).toString())

/** CSV text (header + rows, \n line ends) of rows tagged with their phase */
export function toCsv (phases) {
  const lines = [CSV_COLUMNS.join(',')]
  for (const { phase, rows } of phases) {
    for (const r of rows) {
      lines.push([
        phase,
        new Date(r.simMinute).toISOString().slice(0, 16) + 'Z',
        r.minuteOfDay,
        r.events,
        r.requests,
        r.failedEvents,
        fixed(r.realMs, 3),
        fixed(r.eventsPerS, 1),
        fixed(r.p50Ms, 2),
        fixed(r.p99Ms, 2)
      ].join(','))
    }
  }
  return lines.join('\n') + '\n'
}

/** events/s over a set of rows: their events over their real time */
export function rateOf (rows) {
  let events = 0; let realMs = 0
  for (const r of rows) { events += r.events; realMs += r.realMs }
  return realMs > 0 ? events / (realMs / 1000) : null
}

/**
 * End-of-day ratio: events/s over the last simulated hour of a day
 * (23:00–24:00) ÷ over its first hour (00:00–01:00), for the first day the
 * run covers both hours of, each at least `minCoverage` of an hour.
 * → { ratio, day, lastHour, firstHour } or { ratio: null, reason }
 */
export function endOfDayRatio (rows, { minCoverage = 0.5 } = {}) {
  const byDay = new Map()
  for (const r of rows) {
    const day = startOfDay(r.simMinute)
    if (!byDay.has(day)) byDay.set(day, { first: [], last: [] })
    if (r.minuteOfDay < 60) byDay.get(day).first.push(r)
    else if (r.minuteOfDay >= 1380) byDay.get(day).last.push(r)
  }
  const covered = list => list.reduce((s, r) => s + (r.full ? 1 : 0), 0) >= 60 * minCoverage
  for (const [day, { first, last }] of byDay) {
    if (!covered(first) || !covered(last)) continue
    const firstHour = rateOf(first); const lastHour = rateOf(last)
    if (!firstHour) continue
    return { ratio: lastHour / firstHour, day, firstHour, lastHour }
  }
  return { ratio: null, reason: 'the run did not cover both 00:00–01:00 and 23:00–24:00 of one simulated day (run a whole day from 00:00)' }
}

/**
 * Midnight dip: the lowest events/s among the 3 simulated minutes after a
 * midnight the run crossed (not one it started at) ÷ the median events/s of the run's full minutes; the worst
 * midnight when the run crosses several.
 * → { ratio, midnight, lowest, median } or { ratio: null, reason }
 */
export function midnightDip (rows, { minutesAfter = 3 } = {}) {
  const full = rows.filter(r => r.full)
  const med = median(full.map(r => r.eventsPerS))
  let worst = null
  const first = rows[0]?.simMinute
  for (const r of full) {
    if (r.minuteOfDay !== 0 || r.simMinute <= first) continue // a midnight crossed, not the run's start
    const after = full.filter(x => x.simMinute >= r.simMinute && x.simMinute < r.simMinute + minutesAfter * MINUTE_MS)
    if (after.length < minutesAfter) continue
    const lowest = Math.min(...after.map(x => x.eventsPerS))
    if (!worst || lowest < worst.lowest) worst = { midnight: r.simMinute, lowest }
  }
  if (!worst) return { ratio: null, reason: `the run did not cross a simulated midnight with ${minutesAfter} full minutes after it` }
  if (!med) return { ratio: null, reason: 'no events were acknowledged' }
  return { ratio: worst.lowest / med, midnight: worst.midnight, lowest: worst.lowest, median: med }
}

/** Out-of-order cost: events/s of the run with a fraction F out of order ÷ the run with none */
export function outOfOrderCost (rateWithOoo, rateWithout) {
  if (!rateWithout || rateWithOoo === null || rateWithOoo === undefined) return null
  return rateWithOoo / rateWithout
}
