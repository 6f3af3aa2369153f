// Fault-test harness: a statbucket child process (`node src/server.js`) on a
// database the test started itself, a load client that keeps its own tally
// of what was sent and what was acknowledged, and the database's totals.
// Everything is loopback-only and bounded in time; every process started
// here is killed by stopAll() (afterAll) or, failing that, on exit.
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import http from 'node:http'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { MongoClient } from 'mongodb'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const SERVER = fileURLToPath(new URL('../../src/server.js', import.meta.url))

const children = new Set()
process.on('exit', () => { for (const c of children) c.kill('SIGKILL') })

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

/**
 * Spawns `node src/server.js` with env on top of a clean base (PORT=0: the
 * port is read from the "Server listening" log line). Resolves once it
 * listens. → { pid, port, url, child, logs, exited (promise of {code, signal}), kill(signal), rssKb() }
 */
export async function startStatbucket (env, { startTimeoutMs = 30_000 } = {}) {
  const baseEnv = { PATH: process.env.PATH, HOME: process.env.HOME, NODE_OPTIONS: '' }
  const child = spawn(process.execPath, [SERVER], {
    cwd: ROOT,
    env: { ...baseEnv, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', PREALLOC_PROBABILITY: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  children.add(child)
  const exited = new Promise(resolve => child.once('exit', (code, signal) => {
    children.delete(child)
    resolve({ code, signal })
  }))
  const logs = [] // parsed JSON lines (and { raw } for others)
  const stderr = []
  createInterface({ input: child.stdout }).on('line', line => {
    try { logs.push(JSON.parse(line)) } catch { logs.push({ raw: line }) }
  })
  createInterface({ input: child.stderr }).on('line', line => stderr.push(line))

  const port = await Promise.race([
    waitFor(() => {
      for (const entry of logs) {
        const m = /listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(entry.msg ?? '')
        if (m) return Number(m[1])
      }
      return null
    }, { timeoutMs: startTimeoutMs, intervalMs: 50, what: 'statbucket to listen' }),
    exited.then(({ code, signal }) => {
      throw new Error(`statbucket exited (${signal ?? code}) before listening:\n${stderr.join('\n')}\n${logs.map(l => l.raw ?? JSON.stringify(l)).join('\n')}`)
    })
  ]).catch(err => { child.kill('SIGKILL'); throw err })

  return {
    pid: child.pid,
    port,
    child,
    logs,
    stderr,
    exited,
    alive: () => child.exitCode === null && child.signalCode === null,
    kill: signal => child.kill(signal),
    rssKb: () => rssKb(child.pid),
    /** Kills it (SIGKILL) unless it already exited; waits for the exit. */
    async stop () {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
      await exited
    }
  }
}

export function rssKb (pid) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8')
    const m = /^VmRSS:\s+(\d+) kB/m.exec(status)
    return m ? Number(m[1]) : null
  } catch {
    return null
  }
}

/**
 * One HTTP request on loopback. Never rejects: → { status, headers, body, ms }
 * or { error (code or message), ms }. A request still unanswered after
 * timeoutMs is aborted and reported as { error: 'TIMEOUT' }.
 */
export function request (port, { method = 'GET', path, body, headers = {}, timeoutMs = 30_000, agent = false }) {
  const started = performance.now()
  const payload = body === undefined ? undefined : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body))
  return new Promise(resolve => {
    let settled = false
    const done = result => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve({ ...result, ms: performance.now() - started })
    }
    const req = http.request({
      host: '127.0.0.1',
      port,
      method,
      path,
      agent,
      headers: {
        ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}),
        ...headers
      }
    }, res => {
      const chunks = []
      res.on('data', c => chunks.push(c))
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8')
        let parsed = text
        try { parsed = JSON.parse(text) } catch {}
        done({ status: res.statusCode, headers: res.headers, body: parsed })
      })
      res.on('error', err => done({ error: err.code ?? err.message }))
    })
    const timer = setTimeout(() => { req.destroy(); done({ error: 'TIMEOUT' }) }, timeoutMs)
    req.on('error', err => done({ error: err.code ?? err.message }))
    req.end(payload)
  })
}

/** A client's own books: per metric, what it sent and what each answer said. */
export function createTally () {
  const t = { sent: {}, acked: {}, notApplied: {}, unknown: {}, failed: {}, statuses: {}, errors: {}, maxMs: 0, requests: 0, retryAfterMissing: 0 }
  const add = (book, events) => { for (const e of events) book[e.metric] = (book[e.metric] ?? 0) + e.value }
  t.record = (events, res) => {
    t.requests++
    t.maxMs = Math.max(t.maxMs, res.ms)
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
 * passed. Each request gets a fresh connection unless keepAlive. → { done, stop() }
 */
export function runLoad (port, { metrics, tally, concurrency = 8, maxBatch = 20, durationMs = 60_000, timeoutMs = 30_000, keepAlive = false, headers = {}, pauseMs = 0 }) {
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
      const res = await request(port, { method: 'POST', path: '/v1/events', body, timeoutMs, agent, headers })
      tally.record(events, res)
      if (pauseMs) await sleep(pauseMs)
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

/** A line per process for a failed test's message */
export function describeLogs (sb, last = 30) {
  const lines = sb.logs.slice(-last).map(l => l.raw ?? `${l.level} ${l.msg} ${l.err ? l.err.type + ': ' + l.err.message : ''}`)
  return [...lines, ...sb.stderr.slice(-10)].join('\n')
}
