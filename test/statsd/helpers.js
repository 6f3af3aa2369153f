// Shared by the StatsD tests: an app with the listeners on a free port,
// the telemetry it publishes, the totals it wrote, and the distribution
// events the doors handed to the ingest service.
import { MAX_ABS_VALUE, isEventValue, isMetricName } from '../../src/bucket/event-rules.js'
import { APPLIED, REJECTED } from '../../src/writer/write-outcomes.js'
import { testApp, directDb } from '../helpers/test-app.js'

/** Waits for a condition, checking every 10 ms, at most timeoutMs; throws with `what` when it never holds */
export async function until (condition, what, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise(resolve => setTimeout(resolve, 10))
  }
}

/** Why `e` is not a distribution event the ingest service takes (issue 20's rule), or null */
function distributionProblem (e) {
  if (!isMetricName(e.metric)) return `${JSON.stringify(e.metric)} is not a metric name`
  if (!isEventValue(e.value)) return `value ${e.value} is not a finite number with |value| ≤ ${MAX_ABS_VALUE}`
  if (!(typeof e.weight === 'number' && Number.isFinite(e.weight) && e.weight > 0 && e.weight <= MAX_ABS_VALUE)) return `weight ${e.weight} is not a finite number > 0, at most ${MAX_ABS_VALUE}`
  if (!Number.isInteger(e.time)) return `time ${e.time} is not epoch ms`
  return null
}

/**
 * The ingest service of this branch does not take distributions yet (issue
 * 20: another change teaches it `kind` and `weight`), so the doors'
 * distribution events stop here: each is checked against the rule the
 * ingest service will apply (a bad one rejects the batch, invalid_event, as
 * the service would) and recorded per metric — { count: Σ weight,
 * sum: Σ value × weight, min, max, weights: { value: Σ weight }, events } —
 * once the counters beside it were applied; counters go on to the real
 * service, unchanged. Once the service takes distributions, read them from
 * the database instead (closeAndReadTotals) and drop this stand-in.
 */
function standInForDistributions (ingest) {
  const recorded = {}
  const submit = ingest.submit.bind(ingest)
  const record = (events) => {
    for (const { metric, value, weight } of events) {
      const d = (recorded[metric] ??= { count: 0, sum: 0, min: Infinity, max: -Infinity, weights: {}, events: 0 })
      d.count += weight
      d.sum += value * weight
      d.min = Math.min(d.min, value)
      d.max = Math.max(d.max, value)
      d.weights[value] = (d.weights[value] ?? 0) + weight
      d.events++
    }
  }
  ingest.submit = async (events, options) => {
    const distributions = events.filter(e => e.kind === 'distribution')
    const counters = events.filter(e => e.kind === undefined && e.weight === undefined)
    if (distributions.length + counters.length !== events.length) {
      return { outcome: REJECTED, reason: 'invalid_event', message: 'an event that is neither a counter ({ metric, value, time }) nor a distribution (kind, weight)' }
    }
    const bad = distributions.map(distributionProblem).find(Boolean)
    if (bad) return { outcome: REJECTED, reason: 'invalid_event', message: bad }
    if (counters.length === 0) {
      record(distributions)
      return { outcome: APPLIED, accepted: distributions.length }
    }
    const result = await submit(counters, options)
    // every counter turned away by name: the distributions are still applied
    if (result.outcome === REJECTED && result.refusedMetrics?.length && distributions.length) {
      record(distributions)
      return { outcome: APPLIED, accepted: distributions.length, refusedMetrics: result.refusedMetrics }
    }
    if (result.outcome !== APPLIED) return result
    record(distributions)
    return { ...result, accepted: result.accepted + distributions.length }
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
  const app = await testApp(label, { env: { STATSD_PORT: '0', STATSD_FLUSH_INTERVAL_MS: '20', ...env }, observer, keepDatabase: true })
  const distributions = standInForDistributions(app.ingest)
  const dbName = app.config.mongodbDb
  return {
    app,
    seen,
    /** Per distribution metric, what the doors handed to the ingest service and it applied (standInForDistributions) */
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
        return totals
      } finally {
        await db.dropDatabase().catch(() => {})
        await client.close()
      }
    }
  }
}
