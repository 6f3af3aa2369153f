// Fault-test harness: the database a fault test starts itself (started,
// stopped, killed, frozen and thawed here, for every file alike), a statbucket
// child process (`node src/server.js`) on it, a load client that keeps its own
// tally of what was sent and what was acknowledged, and the database's totals.
// Everything is loopback-only and bounded in time; every process started
// here is stopped by stopAll() (the afterAll of useDatabase, or the file's
// own) or, failing that, on exit.
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import http from 'node:http'
import { fileURLToPath } from 'node:url'
import { MongoClient } from 'mongodb'
import { afterAll, beforeAll } from 'vitest'
import { startChildServer } from '../../scripts/shared/child-server.js'
import { httpRequest } from '../../scripts/shared/http-client.js'
import { ensureJavaServerBuilt, startJavaServer } from '../../src/db/java-server.js'

export { rssKb } from '../../scripts/shared/child-server.js'

const SERVER = fileURLToPath(new URL('../../src/server.js', import.meta.url))

export const sleep = ms => new Promise(resolve => setTimeout(resolve, ms))

export function uniqueDb (label) {
  return `f_${label}_${randomBytes(4).toString('hex')}`
}

/** Waits until check() is truthy, polling; throws after timeoutMs. */
export async function waitFor (check, { timeoutMs, intervalMs = 100, what = 'condition' }) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await sleep(intervalMs)
  }
}

const cleanups = []

/** fn runs at stopAll(), the last registered first (a failure in one does not stop the others) */
export function onCleanup (fn) { cleanups.push(fn) }

/** Stops everything registered with onCleanup: processes, databases, clients, files */
export async function stopAll () {
  while (cleanups.length) await cleanups.pop()().catch(() => {})
}

/** Whether every thread of process `pid` is stopped (SIGSTOP): /proc/<pid>/task/<tid>/stat's state is T for each */
export function processStopped (pid) {
  const tasks = fs.readdirSync(`/proc/${pid}/task`)
  return tasks.every(tid => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')
      return stat.slice(stat.lastIndexOf(')') + 2).startsWith('T')
    } catch {
      return true // a thread that has exited runs nothing
    }
  })
}

/**
 * A database of the test's own: mongo-java-server in a JVM (the launcher built
 * first if need be), in memory or in one H2 file (h2File), stopped by
 * stopAll(). → { uri, port, pid, start() (again after stop() or kill(): on
 * the same port, from the same H2 file), stop() (SIGTERM: H2 committed),
 * kill() (SIGKILL), freeze() (SIGSTOP; resolves once every thread of it has
 * stopped), thaw() (SIGCONT) }
 */
export async function startDatabase ({ heap = '512m', h2File } = {}) {
  let server = null
  let port = 0
  let frozen = false
  const db = {
    get uri () { return server.uri },
    get port () { return server.port },
    get pid () { return server.pid },
    async start () {
      await ensureJavaServerBuilt({ buildTimeoutMs: 170_000 })
      server = await startJavaServer({ heap, h2File, port })
      port = server.port
      return db
    },
    async stop () {
      db.thaw()
      await server.stop()
    },
    async kill () {
      db.thaw()
      try { process.kill(server.pid, 'SIGKILL') } catch {} // already gone
      await server.stop() // waits for the exit
    },
    async freeze () {
      process.kill(server.pid, 'SIGSTOP')
      frozen = true
      await waitFor(() => processStopped(server.pid), { timeoutMs: 5_000, intervalMs: 10, what: 'the database process to be stopped' })
    },
    thaw () {
      if (!frozen) return
      frozen = false
      try { process.kill(server.pid, 'SIGCONT') } catch {}
    }
  }
  onCleanup(() => server ? db.stop() : undefined)
  return db.start()
}

/**
 * The database of a whole file: started in beforeAll (startDatabase(options)),
 * and stopAll() in afterAll. → its handle, whose uri, port and pid are there
 * once beforeAll has run
 */
export function useDatabase (options) {
  let db = null
  const handle = new Proxy({}, {
    get (_, key) {
      if (db === null) throw new Error(`the file's database is not started yet (${String(key)} asked before beforeAll)`)
      const value = db[key]
      return typeof value === 'function' ? value.bind(db) : value
    }
  })
  beforeAll(async () => { db = await startDatabase(options) }, 180_000)
  afterAll(stopAll)
  return handle
}

/**
 * Starts `node src/server.js` (scripts/shared/child-server.js) with env on top
 * of a clean base (PORT=0: the port is read from the "listening at" log
 * line; STATSD_PORT=0: no StatsD listener, unless env sets a port). → { pid, port, child, logs, stderr, exited, alive(), kill(signal), rssKb(), stop() (SIGKILL) }
 */
export function startStatbucket (env, { startTimeoutMs = 30_000 } = {}) {
  const baseEnv = { PATH: process.env.PATH, HOME: process.env.HOME, NODE_OPTIONS: '' }
  return startChildServer({
    script: SERVER,
    env: { ...baseEnv, HOST: '127.0.0.1', PORT: '0', STATSD_PORT: '0', LOG_LEVEL: 'info', PREALLOC_PROBABILITY: '0', ...env },
    startTimeoutMs
  })
}

/**
 * One HTTP request on loopback (scripts/shared/http-client.js). Never rejects:
 * → { status, headers, body (parsed JSON, else the text), ms } or { error, ms }.
 */
export async function request (port, { method = 'GET', path, body, headers = {}, timeoutMs = 30_000, agent = false }) {
  const res = await httpRequest(`http://127.0.0.1:${port}`, { method, path, body, headers, timeoutMs, agent })
  if (res.error) return { error: res.error, ms: res.ms }
  return { status: res.status, headers: res.headers, body: res.json ?? res.text, ms: res.ms }
}

/**
 * A client's own books: per metric, what it sent and what each answer said;
 * maxMs the slowest answer (a figure to print, never to assert). A test names
 * the phase it is in (t.phase = 'frozen', …): phases[name] tells, of the
 * requests sent in it, how many are still unanswered (pending), their
 * answers (statuses: status or error → count) and the phases they were
 * answered in (answeredIn: phase → count), so that a test can say that what
 * was sent while the database was down was answered before it came back.
 */
export function createTally () {
  const t = { sent: {}, acked: {}, notApplied: {}, unknown: {}, failed: {}, statuses: {}, errors: {}, maxMs: 0, requests: 0, retryAfterMissing: 0, phase: null, phases: {} }
  const add = (book, events) => { for (const e of events) book[e.metric] = (book[e.metric] ?? 0) + e.value }
  const count = (book, key) => { book[key] = (book[key] ?? 0) + 1 }
  /** A request about to be sent: its phase, for record() */
  t.sending = () => {
    const b = (t.phases[t.phase] ??= { pending: 0, statuses: {}, answeredIn: {} })
    b.pending++
    return t.phase
  }
  t.record = (events, res, sentIn) => {
    t.requests++
    t.maxMs = Math.max(t.maxMs, res.ms)
    if (sentIn !== undefined) {
      const b = t.phases[sentIn]
      b.pending--
      count(b.statuses, res.error ?? String(res.status))
      count(b.answeredIn, t.phase)
    }
    add(t.sent, events)
    if (res.error) {
      t.errors[res.error] = (t.errors[res.error] ?? 0) + 1
      add(t.failed, events) // no answer: may or may not have been applied
      return
    }
    t.statuses[res.status] = (t.statuses[res.status] ?? 0) + 1
    if (res.status === 200) add(t.acked, events)
    else if (res.status === 503) {
      add(t.notApplied, events)
      if (!res.headers['retry-after']) t.retryAfterMissing++
    } else if (res.status === 504) add(t.unknown, events)
    else add(t.failed, events)
  }
  return t
}

/**
 * Runs `concurrency` workers posting batches of 1..maxBatch events with
 * integer values over `metrics` until stop() is called or durationMs has
 * passed. Each request gets a fresh connection unless keepAlive; honorRetryAfter: a
 * worker waits the Retry-After of a 503, as the contract asks of clients. → { done, stop() }
 */
export function runLoad (port, { metrics, tally, concurrency = 8, maxBatch = 20, durationMs = 60_000, timeoutMs = 30_000, keepAlive = false, headers = {}, pauseMs = 0, honorRetryAfter = false }) {
  const state = { stopped: false }
  const agent = keepAlive ? new http.Agent({ keepAlive: true, maxSockets: concurrency }) : false
  const deadline = Date.now() + durationMs
  let seed = 1
  const next = n => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n }
  async function worker () {
    while (!state.stopped && Date.now() < deadline) {
      const size = 1 + next(maxBatch)
      const events = []
      for (let i = 0; i < size; i++) events.push({ metric: metrics[next(metrics.length)], value: 1 + next(5) })
      const body = size === 1 && next(2) === 0 ? events[0] : events
      const sentIn = tally.sending()
      const res = await request(port, { method: 'POST', path: '/v1/events', body, timeoutMs, agent, headers })
      tally.record(events, res, sentIn)
      if (honorRetryAfter && res.status === 503) await sleep(1000 * Number(res.headers['retry-after'] ?? 1))
      else if (pauseMs) await sleep(pauseMs)
      else if (res.error === 'ECONNREFUSED') await sleep(20)
    }
  }
  const done = Promise.all(Array.from({ length: concurrency }, worker)).finally(() => agent && agent.destroy())
  return { done, stop () { state.stopped = true; return done } }
}

/** Per-metric totals in the database: from daily documents and from monthly ones. */
export async function storedTotals (uri, dbName, { layoutCollection = 'daily' } = {}) {
  const client = await new MongoClient(uri, { serverSelectionTimeoutMS: 10_000 }).connect()
  try {
    const db = client.db(dbName)
    const daily = {}
    const monthly = {}
    for (const doc of await db.collection(layoutCollection).find({}, { projection: { metric: 1, daily: 1 } }).toArray()) {
      daily[doc.metric] = (daily[doc.metric] ?? 0) + (doc.daily ?? 0)
    }
    for (const doc of await db.collection('monthly').find({}, { projection: { metric: 1, monthly: 1 } }).toArray()) {
      monthly[doc.metric] = (monthly[doc.metric] ?? 0) + (doc.monthly ?? 0)
    }
    return { daily, monthly }
  } finally {
    await client.close()
  }
}

export const total = book => Object.values(book).reduce((a, b) => a + b, 0)

/** The service's error-level log lines (a 500's "request failed" among them), the first `first` whole, for a failed test's message */
export function describeErrors (sb, first = 5) {
  const errors = sb.logs.filter(l => (l.level ?? 0) >= 50)
  return `${errors.length} error line(s):\n${errors.slice(0, first).map(l => l.raw ?? JSON.stringify(l)).join('\n')}`
}

/** A line per process for a failed test's message */
export function describeLogs (sb, last = 30) {
  const lines = sb.logs.slice(-last).map(l => l.raw ?? `${l.level} ${l.msg} ${l.err ? l.err.type + ': ' + l.err.message : ''}`)
  return [...lines, ...sb.stderr.slice(-10)].join('\n')
}
