#!/usr/bin/env node
// Two checkouts of statbucket measured alternately on one database: this one
// and --base (a git worktree of an earlier commit, say). Round after round,
// each one's service (its own scripts/bench/server-process.js) takes batched
// HTTP ingest and single-event requests; the service's and the database's
// CPU are read per event, so a change is judged on the same machine, in the
// same minutes, with the noise of both. `node scripts/bench/side-by-side.js --help`.
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import autocannon from 'autocannon'
import { UsageError, defineCommand, parseFlags, positiveFlag, runIfMain } from '../../src/cli.js'
import { procCpuMs } from './process-cpu.js'
import { taggedBodies, timerBodies } from './bench-ingest.js'
import { captureOtlpExport } from './otlp-workload.js'
import { ingestTags } from './tags-workload.js'

// both sides' services run with it: it matches the rollup phase's names only
const ROLLUP_RULES = [{ match: 'bench.rolled.*', by: [['route']] }]
const BATCHED = ['batched', 'timers', 'tagged', 'rollup']

const USAGE = `Usage: node scripts/bench/side-by-side.js --base DIR [--rounds N] [--seconds N] [--phases LIST]

Runs, alternately (--rounds, default 3), the service of DIR (another
checkout with node_modules, e.g. \`git worktree add ../base <commit>\`) and of
this checkout on one embedded database (MONGODB_URI unset), each taking the
--phases (comma-separated, default batched,single-1,single-32): batched
(16 connections of 1,000 counter events over 100 metrics), timers (the same
batches of timer values, the bench's timer phase), tagged (the same batches,
each event with 3 tags: the tags bench's), rollup (tagged, on names a
declared rollup matches: ROLLUP_RULES='${JSON.stringify(ROLLUP_RULES)}'),
otlp (16 connections of the bench's OTLP protobuf export, 200 points: an
event is a point),
single-N (N connections of one-event requests), --seconds each (default 5,
after 2 of warm-up).
Prints a markdown table of every run and the median (and the range) of
each side: events/s, the service's and the database's CPU per event,
requests per flush, p99, the service's RSS at the end of the phase.
`

const HERE = path.resolve(new URL('../..', import.meta.url).pathname)

/** The middle value (the mean of the two middle ones), or null */
export function median (values) {
  const v = values.filter(x => typeof x === 'number' && Number.isFinite(x)).sort((a, b) => a - b)
  if (v.length === 0) return null
  const m = Math.floor(v.length / 2)
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2
}

/** One phase's figures from the stats before and after, the database's CPU (ms) before and after, and autocannon's result */
export function phaseFigures ({ before, after, dbBefore, dbAfter, requests, eventsPerRequest, seconds, p99Ms, rssBytes = null }) {
  const events = requests * eventsPerRequest
  const flushes = after.counters.flushes - before.counters.flushes
  return {
    eventsPerS: events / seconds,
    serviceUsPerEvent: events ? ((after.cpuMs - before.cpuMs) * 1000) / events : null,
    databaseUsPerEvent: events && dbBefore !== null && dbAfter !== null ? ((dbAfter - dbBefore) * 1000) / events : null,
    requestsPerFlush: flushes ? (after.counters.flushedUnits - before.counters.flushedUnits) / flushes : null,
    p99Ms,
    rssMB: rssBytes === null ? null : rssBytes / 1e6
  }
}

const COLUMNS = [['eventsPerS', 0], ['serviceUsPerEvent', 2], ['databaseUsPerEvent', 2], ['requestsPerFlush', 1], ['p99Ms', 0], ['rssMB', 0]]
const cell = (v, digits) => (typeof v === 'number' && Number.isFinite(v) ? v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : 'n/a')

/** runs: [{ side, round, phases: { <phase>: figures } }] → markdown: every run, then each side's medians (and the range of the service's CPU) */
export function renderSideBySide (runs) {
  const head = '| side | round | phase | events/s | service µs / event | database µs / event | requests / flush | p99 ms | RSS MB |\n|---|---|---|---|---|---|---|---|---|\n'
  const row = (side, round, phase, f, range = {}) => `| ${side} | ${round} | ${phase} | ${COLUMNS.map(([k, d]) => cell(f[k], d) + (range[k] ? ` (${cell(range[k][0], d)}–${cell(range[k][1], d)})` : '')).join(' | ')} |\n`
  const phases = [...new Set(runs.flatMap(r => Object.keys(r.phases)))]
  let out = head
  for (const r of runs) for (const phase of phases) if (r.phases[phase]) out += row(r.side, r.round, phase, r.phases[phase])
  out += '\nMedians (service µs / event: min–max of the rounds):\n\n' + head
  for (const phase of phases) {
    for (const side of [...new Set(runs.map(r => r.side))]) {
      const mine = runs.filter(r => r.side === side && r.phases[phase]).map(r => r.phases[phase])
      const cpu = mine.map(f => f.serviceUsPerEvent).filter(v => typeof v === 'number' && Number.isFinite(v))
      const medians = Object.fromEntries(COLUMNS.map(([k]) => [k, median(mine.map(f => f[k]))]))
      out += row(side, 'median', phase, medians, cpu.length > 1 ? { serviceUsPerEvent: [Math.min(...cpu), Math.max(...cpu)] } : {})
    }
  }
  return out
}

async function measure (server, load, { seconds, eventsPerRequest, dbPid }) {
  await autocannon({ ...load, duration: 2 })
  await server.resetPeak()
  const before = await server.stats()
  const dbBefore = procCpuMs(dbPid)
  const result = await autocannon({ ...load, duration: seconds })
  const dbAfter = procCpuMs(dbPid)
  const after = await server.stats()
  return phaseFigures({ before, after, dbBefore, dbAfter, requests: result.requests.total, eventsPerRequest, seconds, p99Ms: result.latency.p99, rssBytes: after.rssPeak })
}

async function run (opts, { out }) {
  const { startEmbeddedMongo } = await import('../../src/db/embedded.js')
  const database = await startEmbeddedMongo({ persistent: false })
  const names = Array.from({ length: 100 }, (_, i) => `bench.side.m${i}`)
  const batch = JSON.stringify(Array.from({ length: 1000 }, (_, i) => ({ metric: names[i % 100] })))
  const timers = timerBodies(names.map(n => n.replace('.m', '.t')), 1000)
  const tagged = taggedBodies(names.map(n => n.replace('.side.', '.tagged.')), 1000, ingestTags)
  const rolled = taggedBodies(names.map(n => n.replace('.side.', '.rolled.')), 1000, ingestTags)
  const bodiesOf = { timers, tagged, rollup: rolled }
  const singles = names.map(metric => JSON.stringify({ metric }))
  const otlp = opts.phases.includes('otlp') ? await captureOtlpExport({ prefix: 'bench.side.otlp.' }) : null
  const rotating = (url, connections, bodies) => {
    let i = 0
    return { url, connections, requests: [{ method: 'POST', path: '/v1/events', headers: { 'content-type': 'application/json' }, setupRequest: r => ({ ...r, body: bodies[i++ % bodies.length] }) }] }
  }
  const runs = []
  try {
    for (let round = 1; round <= opts.rounds; round++) {
      for (const [side, dir] of [['base', opts.base], ['this', HERE]]) {
        const { startServerProcess } = await import(pathToFileURL(path.join(dir, 'scripts/bench/server-process.js')).href)
        const server = await startServerProcess({ MONGODB_URI: database.uri, MONGODB_DB: `side_${side}_${round}`, PREALLOC_PROBABILITY: '0', ROLLUP_RULES: JSON.stringify(ROLLUP_RULES) })
        try {
          const phases = {}
          for (const phase of opts.phases) {
            const connections = phase.startsWith('single-') ? Number(phase.slice(7)) : 16
            const load = phase === 'batched'
              ? { url: `${server.url}/v1/events`, method: 'POST', connections, headers: { 'content-type': 'application/json' }, body: batch }
              : phase === 'otlp'
                ? { url: `${server.url}/v1/metrics`, method: 'POST', connections, headers: otlp.headers, body: otlp.body }
                : rotating(server.url, connections, bodiesOf[phase] ?? singles)
            phases[phase] = await measure(server, load, { seconds: opts.seconds, eventsPerRequest: phase === 'otlp' ? otlp.points : BATCHED.includes(phase) ? 1000 : 1, dbPid: database.pid })
          }
          runs.push({ side, round, phases })
          process.stderr.write(`side-by-side: ${side} round ${round} done\n`)
        } finally {
          await server.stop()
        }
      }
    }
  } finally {
    await database.stop()
  }
  out.write(`base: ${opts.base}; this: ${HERE}; database ${database.backend}\n\n${renderSideBySide(runs)}`)
  return 0
}

function parse (argv) {
  const { values } = parseFlags(argv, { base: { type: 'string' }, rounds: { type: 'string' }, seconds: { type: 'string' }, phases: { type: 'string' } })
  if (values.help) return { help: true }
  if (!values.base) throw new UsageError('--base DIR is required: the checkout to measure beside this one')
  const phases = (values.phases ?? 'batched,single-1,single-32').split(',').map(p => p.trim()).filter(Boolean)
  const bad = phases.find(p => ![...BATCHED, 'otlp'].includes(p) && !/^single-[1-9]\d{0,3}$/.test(p))
  if (bad !== undefined || phases.length === 0) throw new UsageError(`--phases takes ${[...BATCHED, 'otlp'].join(', ')} and single-N (N connections), comma-separated; got ${JSON.stringify(values.phases)}`)
  return { base: path.resolve(values.base), rounds: positiveFlag('rounds', values.rounds, 3), seconds: positiveFlag('seconds', values.seconds, 5), phases }
}

export const main = defineCommand({ name: 'side-by-side', usage: USAGE, parse, run })

runIfMain(import.meta.url, 'side-by-side', main, { exit: true })
