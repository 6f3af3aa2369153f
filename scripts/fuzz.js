#!/usr/bin/env node
// Fuzzes the HTTP API from its own OpenAPI document (/docs/json) with
// schemathesis (PyPI), against a statbucket listening on loopback on a
// database of its own. `node scripts/fuzz.js --help`.
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { buildApp } from '../src/app.js'
import { EXIT, UsageError, defineCommand, parseFlags, runIfMain } from '../src/cli.js'
import { loadConfig } from '../src/config.js'

const CONFIG_FILE = fileURLToPath(new URL('./fuzz.schemathesis.toml', import.meta.url))

const HELP = `Usage: node scripts/fuzz.js [options]

Starts statbucket on 127.0.0.1 (on MONGODB_URI, else an in-memory embedded
database), runs schemathesis against its OpenAPI document (settings in
scripts/fuzz.schemathesis.toml), and checks what
the server saw: at least --min-requests requests, and no 5xx other than a
503 with Retry-After. It reports how long the hostile inputs took — the
slowest answer and the event loop's delay (p99, max) — a figure to
read, which no test asserts.

Options:
  --schemathesis PATH   the schemathesis executable (default: schemathesis on PATH, then st)
  --max-examples N      test cases per operation and phase (default 300: ~1,400 requests)
  --with-tokens         run with one token as write, read and metrics token, sent with
                        every request (adds schemathesis' ignored_auth check)
  --min-requests N      fail unless the server answered this many requests (default 1000)
  --seed N              schemathesis seed (default: random)
  --workers N           concurrent schemathesis workers (default 1: Python 3.11's
                        ast.parse is not thread-safe, which schemathesis' coverage phase trips on)
  --report-dir DIR      where schemathesis writes its JUnit report (default: none)
  -h, --help            this text

Exit codes: 0 clean, 1 failures found (schemathesis or the server's own
count), 2 bad usage or schemathesis missing.
`

function parse (argv) {
  const { values } = parseFlags(argv, {
    schemathesis: { type: 'string' },
    'max-examples': { type: 'string', default: '300' },
    'with-tokens': { type: 'boolean', default: false },
    'min-requests': { type: 'string', default: '1000' },
    seed: { type: 'string' },
    workers: { type: 'string', default: '1' },
    'report-dir': { type: 'string' }
  })
  if (values.help) return { help: true }
  for (const k of ['max-examples', 'min-requests', 'workers']) {
    if (!/^\d+$/.test(values[k])) throw new UsageError(`--${k} must be a whole number`)
  }
  if (values.seed !== undefined && !/^\d+$/.test(values.seed)) throw new UsageError('--seed must be a whole number')
  return values
}

async function which (names) {
  const { access, constants } = await import('node:fs/promises')
  for (const dir of (process.env.PATH ?? '').split(':').filter(Boolean)) {
    for (const name of names) {
      try {
        await access(`${dir}/${name}`, constants.X_OK)
        return `${dir}/${name}`
      } catch {}
    }
  }
  return null
}

async function run (opts) {
  const schemathesis = opts.schemathesis ?? await which(['schemathesis', 'st'])
  if (!schemathesis) {
    throw new UsageError('schemathesis not found; install it with `python3 -m pip install schemathesis` or pass --schemathesis PATH', { seeHelp: false })
  }

  let embedded = null
  let app = null
  try {
    const token = opts['with-tokens'] ? randomBytes(24).toString('hex') : null
    const tokens = token ? { WRITE_TOKENS: token, READ_TOKENS: token, METRICS_TOKENS: token } : {}
    const config = loadConfig({ ...process.env, ...tokens, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn', MONGODB_DB: `fuzz_${randomBytes(4).toString('hex')}`, PREALLOC_PROBABILITY: '0', STATSD_PORT: '0' })
    let uri = config.mongodbUri
    if (!uri) {
      const { startEmbeddedMongo } = await import('../src/db/embedded.js')
      embedded = await startEmbeddedMongo({ persistent: false })
      uri = embedded.uri
    }
    app = await buildApp({ config, mongodbUri: uri, backend: embedded?.backend, sweepSchedule: false })
    // What the server itself saw, whatever schemathesis reports.
    const seen = { requests: 0, byStatus: {}, badServerErrors: [], slowest: { ms: 0, request: null } }
    const loopDelay = monitorEventLoopDelay({ resolution: 10 })
    loopDelay.enable()
    // (hooks cannot be added after ready: count on the raw server instead)
    app.server.on('request', (req, res) => {
      const received = performance.now()
      res.on('finish', () => {
        const ms = performance.now() - received
        if (ms > seen.slowest.ms) seen.slowest = { ms, request: `${req.method} ${req.url.length > 200 ? `${req.url.slice(0, 200)}…` : req.url} → ${res.statusCode}` }
        seen.requests++
        seen.byStatus[res.statusCode] = (seen.byStatus[res.statusCode] ?? 0) + 1
        if (res.statusCode >= 500 && !(res.statusCode === 503 && res.getHeader('retry-after') !== undefined)) {
          seen.badServerErrors.push(`${req.method} ${req.url} → ${res.statusCode}`)
        }
      })
    })
    await app.listen({ host: '127.0.0.1', port: 0 })
    const base = `http://127.0.0.1:${app.server.address().port}`
    process.stderr.write(`fuzz: statbucket at ${base} on ${app.mongo.backend}; schemathesis: ${schemathesis}\n`)

    const args = [
      '--config-file', CONFIG_FILE,
      'run', `${base}/docs/json`,
      '--checks', 'not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance,negative_data_rejection' + (token ? ',ignored_auth' : ''),
      '--max-examples', opts['max-examples'],
      '--workers', opts.workers,
      '--request-timeout', '30',
      '--suppress-health-check', 'all',
      '--continue-on-failure'
    ]
    if (token) args.push('--header', `Authorization: Bearer ${token}`)
    if (opts.seed) args.push('--seed', opts.seed)
    if (opts['report-dir']) args.push('--report', 'junit', '--report-dir', opts['report-dir'])
    const code = await new Promise(resolve => {
      const child = spawn(schemathesis, args, { stdio: 'inherit', env: { ...process.env, SCHEMATHESIS_HOOKS: '' } })
      child.on('error', err => { process.stderr.write(`fuzz: ${err.message}\n`); resolve(2) })
      child.on('exit', (c, signal) => resolve(signal ? 1 : c))
    })

    loopDelay.disable()
    process.stdout.write(`\nfuzz: the server answered ${seen.requests} requests: ${JSON.stringify(seen.byStatus)}\n`)
    process.stdout.write(`fuzz: slowest answer ${Math.round(seen.slowest.ms)} ms (${seen.slowest.request ?? 'none'}); event-loop delay p99 ${(loopDelay.percentile(99) / 1e6).toFixed(1)} ms, max ${(loopDelay.max / 1e6).toFixed(1)} ms\n`)
    let failed = code !== 0
    if (code !== 0) process.stdout.write(`fuzz: schemathesis exited ${code}\n`)
    if (seen.requests < Number(opts['min-requests'])) {
      process.stdout.write(`fuzz: fewer than ${opts['min-requests']} requests; raise --max-examples\n`)
      failed = true
    }
    if (seen.badServerErrors.length) {
      process.stdout.write(`fuzz: 5xx other than 503 + Retry-After:\n  ${seen.badServerErrors.slice(0, 20).join('\n  ')}\n`)
      failed = true
    }
    process.stdout.write(failed ? 'fuzz: FAILED\n' : 'fuzz: clean\n')
    return failed ? EXIT.PROBLEM : EXIT.OK
  } finally {
    await app?.close().catch(() => {})
    await embedded?.stop().catch(() => {})
  }
}

export const main = defineCommand({ name: 'fuzz', usage: HELP, parse, run })

// exit at once: nothing left open (a socket of the app, the embedded database) keeps it running
runIfMain(import.meta.url, 'fuzz', main, { exit: true })
