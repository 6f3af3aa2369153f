#!/usr/bin/env node
// Measures what keep-alive clients see when `npm start`'s process group gets
// SIGTERM under load (docs/guarantees.md): a figure, not a test.
// `node scripts/shutdown-resets.js --help`.
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { MongoClient } from 'mongodb'
import { EXIT, UsageError, defineCommand, parseFlags, positiveFlag, runIfMain } from '../src/cli.js'
import { seededRandom } from './shared/workload.js'

const ROOT = fileURLToPath(new URL('../', import.meta.url))

const HELP = `Usage: node scripts/shutdown-resets.js [options]

Starts \`npm start\` in a process group of its own (as a supervisor does), runs
12 clients on Node's fetch (keep-alive): 6 posting batches of 200 events, 6
posting single events, each sending its next request as soon as it has an
answer (a 503 included), sends SIGTERM to the group 1–4 s into the load, and
counts what the clients saw: answers by status, connections refused (the
request never reached the server), and resets or connections closed without
an answer (the request may or may not have been applied). Checks that the
events acknowledged are the events stored. Repeats --runs times.

  --runs N               runs (default 10)
  --honor-retry-after    clients wait a 503's Retry-After before the next request
  --seed N               seed of the SIGTERM times (default 1)
  --mongodb URI          a MongoDB to use (default: the Java substitute, started here)
  --json                 the figures as JSON
  --help                 this text

Exit 1 when a run lost an acknowledged event or did not end.
`

const OPTIONS = {
  runs: { type: 'string' },
  'honor-retry-after': { type: 'boolean' },
  seed: { type: 'string' },
  mongodb: { type: 'string' },
  json: { type: 'boolean' }
}

const sleep = ms => new Promise(resolve => setTimeout(resolve, ms))
const groupAlive = pgid => { try { process.kill(-pgid, 0); return true } catch (err) { return err.code !== 'ESRCH' } }

/** The error code of a failed fetch: ECONNREFUSED, ECONNRESET, UND_ERR_SOCKET (closed without an answer), … */
const errorCode = err => err?.cause?.code ?? err?.code ?? err?.cause?.name ?? err?.name ?? 'ERROR'

/** `npm start` → { pid, port, logs, exited } */
async function npmStart (env) {
  const npm = spawn('npm', ['start'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  const logs = []
  createInterface({ input: npm.stdout }).on('line', line => { try { logs.push(JSON.parse(line)) } catch { logs.push({ raw: line }) } })
  const exited = new Promise(resolve => npm.once('exit', (code, signal) => resolve({ code, signal })))
  const deadline = Date.now() + 60_000
  for (;;) {
    for (const l of logs) {
      const m = /listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(l.msg ?? '')
      if (m) return { pid: npm.pid, port: Number(m[1]), logs, exited }
    }
    if (Date.now() > deadline || npm.exitCode !== null) {
      if (groupAlive(npm.pid)) process.kill(-npm.pid, 'SIGKILL')
      throw new Error(`npm start did not listen: ${logs.slice(-5).map(l => l.raw ?? l.msg).join(' | ')}`)
    }
    await sleep(50)
  }
}

/**
 * One client: posts until told to stop or the server is gone (a refused
 * connection). → { done: Promise, book }
 */
function client ({ url, metric, batch, honorRetryAfter, state, book }) {
  const body = JSON.stringify(batch === 1 ? { metric, value: 1 } : Array.from({ length: batch }, () => ({ metric, value: 1 })))
  async function loop () {
    while (!state.stopped) {
      const at = Date.now()
      let res
      try {
        res = await fetch(`${url}/v1/events`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
      } catch (err) {
        const code = errorCode(err)
        book.errors[code] = (book.errors[code] ?? 0) + 1
        book.sent += batch
        if (code === 'ECONNREFUSED') return // the server is gone: nothing more reaches it
        book.cut.push({ code, at, after: Date.now() - at })
        continue
      }
      await res.arrayBuffer()
      book.sent += batch
      book.statuses[res.status] = (book.statuses[res.status] ?? 0) + 1
      if (res.status === 200) book.acked += batch
      if (res.status === 503 && honorRetryAfter) await sleep(1000 * Number(res.headers.get('retry-after') ?? 1))
    }
  }
  return loop()
}

async function storedTotal (uri, dbName) {
  const mongo = await new MongoClient(uri, { serverSelectionTimeoutMS: 10_000 }).connect()
  try {
    const docs = await mongo.db(dbName).collection('daily').find({}, { projection: { daily: 1 } }).toArray()
    return docs.reduce((sum, d) => sum + (d.daily ?? 0), 0)
  } finally {
    await mongo.close()
  }
}

async function oneRun ({ uri, run, signalAfterMs, honorRetryAfter }) {
  const dbName = `shutdown_resets_${randomBytes(4).toString('hex')}`
  const npm = await npmStart({ PATH: process.env.PATH, HOME: process.env.HOME, MONGODB_URI: uri, MONGODB_DB: dbName, PORT: '0', STATSD_PORT: '0', LOG_LEVEL: 'info', PREALLOC_PROBABILITY: '0' })
  const url = `http://127.0.0.1:${npm.port}`
  const state = { stopped: false }
  const book = { sent: 0, acked: 0, statuses: {}, errors: {}, cut: [] }
  const clients = []
  for (let i = 0; i < 12; i++) clients.push(client({ url, metric: `sr.c${i}`, batch: i < 6 ? 200 : 1, honorRetryAfter, state, book }))
  await sleep(signalAfterMs)
  const signalledAt = Date.now()
  process.kill(-npm.pid, 'SIGTERM')
  const exit = await Promise.race([npm.exited, sleep(40_000).then(() => null)])
  state.stopped = true
  if (exit === null && groupAlive(npm.pid)) process.kill(-npm.pid, 'SIGKILL')
  await Promise.race([Promise.all(clients), sleep(10_000)])
  const stored = await storedTotal(uri, dbName)
  const mongo = await new MongoClient(uri).connect()
  await mongo.db(dbName).dropDatabase().catch(() => {})
  await mongo.close()
  // where the drain was when each request was cut: ms after the listener closed (negative: before)
  const stoppedAccepting = npm.logs.find(l => /^stopped accepting connections/.test(l.msg ?? ''))?.time ?? null
  const resets = book.cut.length
  return {
    run,
    signalAfterMs,
    exit,
    drainMs: exit ? Date.now() - signalledAt : null,
    statuses: book.statuses,
    errors: book.errors,
    resets,
    cutAt: book.cut.map(c => ({ code: c.code, sentMsAfterSignal: c.at - signalledAt, sentMsAfterListenerClosed: stoppedAccepting === null ? null : c.at - stoppedAccepting, answeredAfterMs: c.after })),
    acked: book.acked,
    stored,
    ackedStored: book.acked <= stored && stored <= book.sent
  }
}

export const main = defineCommand({
  name: 'shutdown-resets',
  usage: HELP,
  parse (argv) {
    const { values } = parseFlags(argv, OPTIONS)
    if (values.help) return { help: true }
    const runs = positiveFlag('runs', values.runs, 10)
    if (!Number.isInteger(runs)) throw new UsageError('--runs must be a whole number')
    return { runs, seed: positiveFlag('seed', values.seed, 1), honorRetryAfter: Boolean(values['honor-retry-after']), mongodb: values.mongodb ?? null, json: Boolean(values.json) }
  },
  async run (opts, { out, err }) {
    let uri = opts.mongodb
    let java = null
    if (!uri) {
      const { startJavaServer } = await import('../src/db/java-server.js')
      java = await startJavaServer({ heap: '512m' })
      uri = java.uri
    }
    const random = seededRandom(opts.seed)
    const runs = []
    try {
      for (let run = 0; run < opts.runs; run++) {
        const result = await oneRun({ uri, run, signalAfterMs: 1000 + Math.floor(random() * 3000), honorRetryAfter: opts.honorRetryAfter })
        runs.push(result)
        if (!opts.json) err.write(`run ${run}: SIGTERM after ${result.signalAfterMs} ms, exit ${JSON.stringify(result.exit)}, ${JSON.stringify(result.statuses)} ${JSON.stringify(result.errors)}, resets ${result.resets}${result.resets ? ` ${JSON.stringify(result.cutAt)}` : ''}, acknowledged ${result.acked} stored ${result.stored}\n`)
      }
    } finally {
      await java?.stop()
    }
    const figures = {
      clients: '12 on fetch: 6 × batches of 200, 6 × single events',
      honorRetryAfter: opts.honorRetryAfter,
      runs: runs.length,
      runsWithResets: runs.filter(r => r.resets > 0).length,
      resets: runs.reduce((s, r) => s + r.resets, 0),
      requests: runs.reduce((s, r) => s + Object.values(r.statuses).reduce((a, b) => a + b, 0) + Object.values(r.errors).reduce((a, b) => a + b, 0), 0),
      lostAcknowledged: runs.filter(r => !r.ackedStored).length,
      notEnded: runs.filter(r => !r.exit).length,
      details: runs
    }
    if (opts.json) out.write(JSON.stringify(figures, null, 2) + '\n')
    else out.write(`${figures.runs} runs (${figures.clients}; Retry-After ${opts.honorRetryAfter ? 'honoured' : 'ignored'}): ${figures.resets} requests reset or cut in ${figures.runsWithResets} runs, of ${figures.requests}; acknowledged ≠ stored in ${figures.lostAcknowledged}; not ended in ${figures.notEnded}\n`)
    return figures.lostAcknowledged || figures.notEnded ? EXIT.PROBLEM : EXIT.OK
  }
})

runIfMain(import.meta.url, 'shutdown-resets', main, { exit: true })
