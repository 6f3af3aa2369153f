// The whole lifecycle at once against real processes: two statbucket
// instances on one database take backfilled events (any time inside
// MAX_AGE_DAYS, across the minute horizon) while each runs probabilistic
// preallocation, the sweep and retention on second-scale schedules,
// `npm run check -- --repair` runs again and again beside them, and one
// instance is killed with kill -9 half-way. No acknowledged event may be
// lost: every stored day, every day point of the series and every total
// holds at least what was acknowledged for it, and at most what was sent;
// once quiet, check --repair leaves 0 violations.
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { describeLogs, onCleanup, request, sleep, startStatbucket, uniqueDb, useDatabase, waitFor } from './harness.js'
import { MongoClient } from 'mongodb'

const CHECK = fileURLToPath(new URL('../../src/jobs/check-command.js', import.meta.url))
const DAY = 86_400_000
const MAX_AGE_DAYS = 8
const WRITE_TIMEOUT_MS = 1500
const metrics = ['lc.a', 'lc.b', 'lc.c']
const server = useDatabase({ heap: '512m' })

function lifecycleEnv (dbName) {
  return {
    MONGODB_URI: server.uri,
    MONGODB_DB: dbName,
    WRITE_TIMEOUT_MS: String(WRITE_TIMEOUT_MS),
    MAX_AGE_DAYS: String(MAX_AGE_DAYS),
    MINUTE_RETENTION_DAYS: '2', // most backfilled days are past the minute horizon
    DAILY_RETENTION_DAYS: String(MAX_AGE_DAYS + 1),
    PREALLOC_PROBABILITY: '0.2',
    PREALLOC_CRON: '*/2 * * * * *',
    PREALLOC_SWEEP_RATE: '1000',
    RETENTION_CRON: '*/3 * * * * *',
    RETENTION_RATE: '5000'
  }
}

function check (dbName, args) {
  return new Promise(resolve => {
    execFile(process.execPath, [CHECK, ...args], {
      env: { PATH: process.env.PATH, ...lifecycleEnv(dbName) },
      timeout: 60_000
    }, (error, stdout, stderr) => resolve({ code: error ? error.code : 0, stdout, stderr }))
  })
}

/** Books per metric and UTC day: acknowledged, and sent (whatever the answer) */
function createBooks () {
  const acked = new Map()
  const sent = new Map()
  const add = (book, e) => { const k = `${e.metric} ${Math.floor(e.ts / DAY) * DAY}`; book.set(k, (book.get(k) ?? 0) + e.value) }
  return { acked, sent, record (events, ok) { for (const e of events) { add(sent, e); if (ok) add(acked, e) } } }
}

function backfillLoad (ports, books, { durationMs, seed = 7 }) {
  let s = seed
  const next = n => { s = (s * 1103515245 + 12345) % 2147483648; return s % n }
  const state = { stopped: false, statuses: {}, errors: 0 }
  const deadline = Date.now() + durationMs
  async function worker (w) {
    while (!state.stopped && Date.now() < deadline) {
      const now = Date.now()
      const events = []
      for (let i = 0, n = 1 + next(20); i < n; i++) {
        // any time from MAX_AGE_DAYS back (less an hour of slack) to now
        const ts = now - next((MAX_AGE_DAYS * DAY) - 3_600_000)
        events.push({ metric: metrics[next(metrics.length)], value: 1 + next(9), ts })
      }
      const port = ports[(w + next(2)) % ports.length]
      const res = await request(port(), { method: 'POST', path: '/v1/events', body: events, timeoutMs: 10_000 })
      if (res.error) state.errors++
      else state.statuses[res.status] = (state.statuses[res.status] ?? 0) + 1
      books.record(events, res.status === 200)
      if (res.error) await sleep(20)
    }
  }
  const done = Promise.all([0, 1, 2, 3].map(worker))
  return { state, done, stop () { state.stopped = true; return done } }
}

describe('the lifecycle under load', () => {
  it('two instances with preallocation, sweep, retention and repair at once, one killed: no acknowledged event lost', async () => {
    const dbName = uniqueDb('lifecycle')
    const a = await startStatbucket(lifecycleEnv(dbName))
    onCleanup(() => a.stop())
    const b = await startStatbucket(lifecycleEnv(dbName))
    onCleanup(() => b.stop())
    const books = createBooks()
    const load = backfillLoad([() => a.port, () => b.port], books, { durationMs: 60_000 })
    await waitFor(() => (load.state.statuses[200] ?? 0) >= 100, { timeoutMs: 30_000, what: '100 acknowledged requests' })

    const repairs = []
    const repairing = (async () => {
      for (let i = 0; i < 4 && !load.state.stopped; i++) {
        repairs.push(await check(dbName, ['--repair', '--prefix', 'lc.']))
        if (i === 1) { b.kill('SIGKILL'); await b.exited }
      }
    })()
    await repairing
    await sleep(1000)
    await load.stop()
    expect(a.alive(), describeLogs(a)).toBe(true)
    for (const status of Object.keys(load.state.statuses)) expect(['200', '503', '504']).toContain(status)

    // quiet now: every write of the live instance has been answered; what moved settles
    await sleep(WRITE_TIMEOUT_MS + 500)
    const quiet = await check(dbName, ['--repair'])
    const final = await check(dbName, [])
    expect(final.code, `${quiet.stdout}\n${final.stdout}`).toBe(0)

    // stored: per metric and day, from the daily documents
    const client = await new MongoClient(server.uri).connect()
    onCleanup(() => client.close())
    const stored = new Map()
    for (const d of await client.db(dbName).collection('daily').find({}, { projection: { metric: 1, date: 1, daily: 1 } }).toArray()) {
      stored.set(`${d.metric} ${d.date.getTime()}`, d.daily)
    }
    const lost = []
    for (const [key, acked] of books.acked) {
      const have = stored.get(key) ?? 0
      if (have < acked || have > books.sent.get(key)) lost.push(`${key}: acknowledged ${acked}, sent ${books.sent.get(key)}, stored ${have}`)
    }
    expect(lost, repairs.map(r => r.stdout).join('\n')).toEqual([])

    // read back through the API: every day point and the total over the whole window
    const from = Math.floor((Date.now() - MAX_AGE_DAYS * DAY) / DAY) * DAY
    const to = Math.ceil((Date.now() + 1) / DAY) * DAY
    for (const metric of metrics) {
      const series = await request(a.port, { path: `/v1/metrics/${metric}/series?from=${from}&to=${to}&step=day` })
      expect(series.status).toBe(200)
      let ackedTotal = 0
      series.body.timestamps.forEach((t, i) => {
        const acked = books.acked.get(`${metric} ${t}`) ?? 0
        ackedTotal += acked
        expect(series.body.values[i] ?? 0, `${metric} day ${new Date(t).toISOString()}`).toBeGreaterThanOrEqual(acked)
      })
      const total = await request(a.port, { path: `/v1/metrics/${metric}/total?from=${from}&to=${to}` })
      expect(total.body.total, metric).toBeGreaterThanOrEqual(ackedTotal)
    }
    console.log(`lifecycle under load: ${JSON.stringify(load.state.statuses)}, ${load.state.errors} without an answer; repairs said:\n${repairs.map(r => r.stdout.split('\n').slice(-2).join(' ')).join('\n')}`)
  }, 240_000)
})
