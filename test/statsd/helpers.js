// Shared by the StatsD tests: an app with the listeners on a free port,
// the telemetry it publishes, and the totals it wrote.
import { testApp, directDb } from '../helpers/test-app.js'

/** Waits for a condition, checking every 10 ms, at most timeoutMs; throws with `what` when it never holds */
export async function until (condition, what, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise(resolve => setTimeout(resolve, 10))
  }
}

/** An app with StatsD on 127.0.0.1, a free port; counts what it published */
export async function statsdApp (label, env = {}) {
  const seen = { received: { udp: 0, tcp: 0, http: 0 }, dropped: {} }
  const observer = {
    statsdReceived: ({ transport, values }) => { seen.received[transport] += values },
    statsdDropped: ({ reason, values }) => { seen.dropped[reason] = (seen.dropped[reason] ?? 0) + values }
  }
  const app = await testApp(label, { env: { STATSD_PORT: '0', STATSD_FLUSH_INTERVAL_MS: '20', ...env }, observer, keepDatabase: true })
  const dbName = app.config.mongodbDb
  return {
    app,
    seen,
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
