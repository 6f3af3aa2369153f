// Shared by the StatsD tests: an app with the listeners on a free port,
// the telemetry it publishes, the totals it wrote, the distribution
// values the doors handed to the ingest service (checked against the
// database), and the gauges stored.
import { APPLIED } from '../../src/writer/write-outcomes.js'
import { testApp, directDb } from '../helpers/test-app.js'

/** Waits for a condition, checking every 10 ms, at most timeoutMs; throws with `what` when it never holds */
export async function until (condition, what, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise(resolve => setTimeout(resolve, 10))
  }
}

/**
 * What the doors handed to the ingest service as distribution values and it
 * applied, per metric — { count: Σ weight, sum: Σ value × weight, min, max,
 * weights: { value: Σ weight }, events } — recorded at the service's door
 * (every event goes on to the real service). closeAndReadTotals checks that
 * the database holds the same.
 */
function recordDistributions (ingest) {
  const recorded = {}
  const submit = ingest.submit.bind(ingest)
  ingest.submit = async (events, options) => {
    const result = await submit(events, options)
    if (result.outcome !== APPLIED) return result
    const turnedAway = new Set([...(result.refusedMetrics ?? []), ...(result.kindConflicts ?? []).filter(c => c.asked === 'distribution').map(c => c.metric)])
    for (const { metric: series, value, weight, kind } of events) {
      // a tagged series' value counts toward the series and toward its name (the text before the first ;)
      const name = series.split(';')[0]
      if (kind !== 'distribution' || turnedAway.has(series) || turnedAway.has(name)) continue
      for (const metric of name === series ? [series] : [series, name]) {
        const d = (recorded[metric] ??= { count: 0, sum: 0, min: Infinity, max: -Infinity, weights: {}, events: 0 })
        d.count += weight
        d.sum += value * weight
        d.min = Math.min(d.min, value)
        d.max = Math.max(d.max, value)
        d.weights[value] = (d.weights[value] ?? 0) + weight
        d.events++
      }
    }
    return result
  }
  return recorded
}

/** The recorded distributions without their per-value weights and event counts: { metric: { count, sum, min, max } } */
export const distributionTotals = (recorded) => Object.fromEntries(Object.entries(recorded).map(([metric, { count, sum, min, max }]) => [metric, { count, sum, min, max }]))

/** An app with StatsD on 127.0.0.1, a free port; counts what it published */
export async function statsdApp (label, env = {}) {
  const seen = { received: { udp: 0, tcp: 0, http: 0 }, dropped: {} }
  const observer = {
    statsdReceived: ({ transport, values }) => { seen.received[transport] += values },
    statsdDropped: ({ reason, values }) => { seen.dropped[reason] = (seen.dropped[reason] ?? 0) + values }
  }
  const app = await testApp(label, { env: { STATSD_FLUSH_INTERVAL_MS: '20', ...env }, statsd: true, observer, keepDatabase: true })
  const distributions = recordDistributions(app.ingest)
  const dbName = app.config.mongodbDb
  const result = {
    app,
    seen,
    /** Per gauge metric, what the database holds after closeAndReadTotals: { count, sum, min, max, last } over every month */
    gauges: {},
    /** Per distribution metric, what the doors handed to the ingest service and it applied (recordDistributions) */
    distributions,
    /** Closes the app (the listeners submit what they hold), reads every metric's total, drops the database */
    async closeAndReadTotals () {
      await app.close()
      const { client, db } = await directDb(dbName)
      try {
        const totals = {}
        for await (const doc of db.collection('monthly').find({}, { projection: { metric: 1, monthly: 1 } })) {
          totals[doc.metric] = (totals[doc.metric] ?? 0) + doc.monthly
        }
        // the distributions stored are those the service acknowledged, value for value
        const stored = {}
        for await (const { metric, monthly: m } of db.collection('distributionMonthly').find({}, { projection: { metric: 1, monthly: 1 } })) {
          const d = (stored[metric] ??= { count: 0, sum: 0, min: Infinity, max: -Infinity })
          d.count += m.count
          d.sum += m.sum
          d.min = Math.min(d.min, m.min)
          d.max = Math.max(d.max, m.max)
        }
        // the gauges stored: their months merged, last the level of the latest (t, v)
        for await (const { metric, monthly: m } of db.collection('gaugeMonthly').find({}, { projection: { metric: 1, monthly: 1 } })) {
          const g = result.gauges[metric]
          const later = !g || m.last.t > g.at || (m.last.t.getTime() === g.at.getTime() && m.last.v > g.last)
          result.gauges[metric] = {
            count: (g?.count ?? 0) + m.count,
            sum: (g?.sum ?? 0) + m.sum,
            min: Math.min(g?.min ?? Infinity, m.min),
            max: Math.max(g?.max ?? -Infinity, m.max),
            last: later ? m.last.v : g.last,
            at: later ? m.last.t : g.at
          }
        }
        for (const g of Object.values(result.gauges)) delete g.at
        const recorded = distributionTotals(distributions)
        if (JSON.stringify(stored) !== JSON.stringify(Object.fromEntries(Object.keys(stored).map(k => [k, recorded[k]]))) || Object.keys(stored).length !== Object.keys(recorded).length) {
          throw new Error(`the distributions stored ${JSON.stringify(stored)} are not those acknowledged ${JSON.stringify(recorded)}`)
        }
        return totals
      } finally {
        await db.dropDatabase().catch(() => {})
        await client.close()
      }
    }
  }
  return result
}
