#!/usr/bin/env node
// Where a single-event POST's CPU goes: the service (./bench-server.js) in a
// child process under `node --cpu-prof`, single events from autocannon on
// 16 kept-alive connections, then the profile's self time summed by file or
// package. `node scripts/bench/profile-single.js --help`.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import autocannon from 'autocannon'
import { defineCommand, parseFlags, positiveFlag, runIfMain } from '../../src/cli.js'
import { startServerProcess } from './server-process.js'

const USAGE = `Usage: node scripts/bench/profile-single.js [--seconds N] [--connections N] [--metrics N] [--top N] [--bare | --naive] [--keep-profile]

Profiles the service while it answers single-event POST /v1/events (the
bench's "single" section: --metrics 100 rotates over 100 metrics as it
does; default 1) on MONGODB_URI (default: the embedded database), and
prints the share of the process's samples taken under the measured load
(not its start or stop) spent in each file or package,
of all samples (idle included: waiting for the database) and of the busy
ones, and the busy share as µs of the measured CPU per request. --bare
profiles the bench's yardstick instead, a bare Fastify route of the same
shape; --naive the naive per-event writer behind it (naive-app.js: two
awaited upserts per event). --keep-profile keeps the .cpuprofile (open it in Chrome DevTools or
speedscope for a flame graph).
`

const IDLE = '((idle))' // the engine's entry for time waiting (here: for the database and the clients)

/**
 * A .cpuprofile → [[where, samples]], busiest first, and the sample count.
 * window: [fromUs, toUs] on the profile's clock (the process's monotonic
 * clock, process.hrtime): only the samples taken in it (the measured load,
 * not the process's start and stop). byFunction: by function and its line in its file instead
 */
export function selfTimeByFile (profile, window = null, { byFunction = false } = {}) {
  const byId = new Map(profile.nodes.map(n => [n.id, n]))
  const where = new Map()
  let at = profile.startTime
  let taken = 0
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]
    at += profile.timeDeltas?.[i] ?? 0
    if (window && (at < window[0] || at > window[1])) continue
    taken++
    const { url, functionName, lineNumber } = byId.get(id).callFrame
    const file = byFunction
      ? `${functionName || '(anonymous)'} ${url.replace(/^file:\/\/.*?\/node_modules\//, 'npm:').replace(/^file:\/\/.*?\/(src|scripts)\//, '$1/')}:${lineNumber + 1}`
      : url.replace(/^file:\/\/.*?\/node_modules\/((@[^/]+\/)?[^/]+)\/.*$/, 'npm:$1').replace(/^file:\/\/.*?\/(src|scripts)\//, '$1/')
    const key = url ? file : `(${functionName || 'program'})`
    where.set(key, (where.get(key) ?? 0) + 1)
  }
  return { rows: [...where].sort((a, b) => b[1] - a[1]), total: taken }
}

async function run (opts, { out }) {
  let embedded = null
  let uri = process.env.MONGODB_URI
  if (!uri && !opts.bare) {
    const { startEmbeddedMongo } = await import('../../src/db/embedded.js')
    embedded = await startEmbeddedMongo({ persistent: false })
    uri = embedded.uri
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'statbucket-profile-'))
  const env = opts.bare ? { BENCH_BARE: '1' } : { MONGODB_URI: uri, MONGODB_DB: `statbucket_profile_${process.pid}`, PREALLOC_PROBABILITY: '0', ...(opts.naive ? { BENCH_NAIVE: '1' } : {}) }
  const server = await startServerProcess(env, { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`] })
  try {
    const bodies = Array.from({ length: opts.metrics }, (_, i) => JSON.stringify({ metric: opts.metrics === 1 ? 'profile.single' : `profile.single.m${i}`, value: 1 }))
    let next = 0
    const load = { url: server.url, connections: opts.connections, requests: [{ method: 'POST', path: '/v1/events', headers: { 'content-type': 'application/json' }, setupRequest: req => ({ ...req, body: bodies[next++ % bodies.length] }) }] }
    await autocannon({ ...load, duration: 2 }) // warm-up
    const before = await server.stats()
    const result = await autocannon({ ...load, duration: opts.seconds })
    const after = await server.stats()
    await server.stop()
    const file = fs.readdirSync(dir).find(f => f.endsWith('.cpuprofile'))
    const { rows, total } = selfTimeByFile(JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')), [before.monotonicUs, after.monotonicUs])
    const busy = total - (rows.find(([where]) => where === IDLE)?.[1] ?? 0) // samples where the process ran
    const cpuUs = ((after.cpuMs - before.cpuMs) * 1000) / result.requests.total
    out.write(`${opts.bare ? 'the bare route: ' : opts.naive ? 'the naive writer: ' : ''}${result.requests.total} requests in ${opts.seconds} s (${result.non2xx} not 200); ${Math.round(cpuUs)} µs of ${opts.bare ? '' : 'service '}CPU per request\n\n| where | share of samples | share of busy samples | µs per request |\n|---|---|---|---|\n`)
    for (const [where, n] of rows.slice(0, opts.top)) out.write(`| ${where} | ${((100 * n) / total).toFixed(1)} % | ${where === IDLE ? '' : `${((100 * n) / busy).toFixed(1)} %`} | ${where === IDLE ? '' : ((n / busy) * cpuUs).toFixed(1)} |\n`)
    if (opts.keepProfile) out.write(`\nprofile: ${path.join(dir, file)}\n`)
    else fs.rmSync(dir, { recursive: true, force: true })
    return 0
  } finally {
    await server.stop().catch(() => {})
    await embedded?.stop()
  }
}

function parse (argv) {
  const { values } = parseFlags(argv, { seconds: { type: 'string' }, connections: { type: 'string' }, metrics: { type: 'string' }, top: { type: 'string' }, bare: { type: 'boolean' }, naive: { type: 'boolean' }, 'keep-profile': { type: 'boolean' } })
  if (values.help) return { help: true }
  return {
    seconds: positiveFlag('seconds', values.seconds, 6),
    connections: positiveFlag('connections', values.connections, 16),
    metrics: Math.floor(positiveFlag('metrics', values.metrics, 1)),
    top: positiveFlag('top', values.top, 20),
    bare: Boolean(values.bare),
    naive: Boolean(values.naive),
    keepProfile: Boolean(values['keep-profile'])
  }
}

export const main = defineCommand({ name: 'profile-single', usage: USAGE, parse, run })

runIfMain(import.meta.url, 'profile-single', main, { exit: true })
