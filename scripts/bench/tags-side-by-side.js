#!/usr/bin/env node
// The tags section's reads (./bench-tags.js) of two checkouts in the same
// minutes: one database seeded once (the busy name and the index's series,
// its sizes by default), both services (--base's scripts/bench/server-process.js
// and this one's) started before the index is seeded, both learning it as
// another instance's writes, then each query on each service in turns.
// `node scripts/bench/tags-side-by-side.js --help`.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { MongoClient } from 'mongodb'
import { defineCommand, parseFlags, positiveFlag, runIfMain } from '../../src/cli.js'
import { seededRandom } from '../shared/workload.js'
import { TAGS_JAVA_HEAP } from './bench-args.js'
import { readFigures, seedIndex, seedReadNames, seriesLearned } from './bench-tags.js'
import { selfTimeByFile } from './profile-single.js'
import { tagQueries } from './tags-workload.js'

const USAGE = `Usage: node scripts/bench/tags-side-by-side.js [--base DIR] [--rounds N] [--seconds N] [--names N] [--combinations N] [--busy N] [--profile]

Seeds the tags section's read names and index (--names × --combinations
series, default 1,000 × 1,000; --busy series of bench.busy, default 10,000)
on the embedded database, starts this checkout's service and, with --base,
DIR's (a checkout with node_modules), and runs each of the section's read
queries on each service in turn (--rounds, default 2; --seconds each,
default 5, on 4 connections). Prints p50, p99 and requests per side.
--profile runs the services under node --cpu-prof and prints, per side,
the self time of the busiest files over the measured queries.
`
const HERE = path.resolve(new URL('../..', import.meta.url).pathname)

async function run (opts, { out }) {
  const { startEmbeddedMongo } = await import('../../src/db/embedded.js')
  const database = await startEmbeddedMongo({ persistent: false, javaHeap: TAGS_JAVA_HEAP })
  const mongo = await new MongoClient(database.uri).connect()
  const dbName = `tags_side_${process.pid}`
  const db = mongo.db(dbName)
  const scale = { names: opts.names, combinations: opts.combinations, busySeries: opts.busy, topSeries: 1, topMonths: 1 }
  const log = line => process.stderr.write(`${line}\n`)
  const sides = [...(opts.base ? [['base', opts.base]] : []), ['this', HERE]]
  const servers = []
  const rows = []
  try {
    const seed = await seedReadNames(db, scale, { log })
    for (const [side, dir] of sides) {
      const { startServerProcess } = await import(pathToFileURL(path.join(dir, 'scripts/bench/server-process.js')).href)
      const profileDir = opts.profile ? fs.mkdtempSync(path.join(os.tmpdir(), `tags-profile-${side}-`)) : null
      const nodeArgs = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []
      const server = await startServerProcess({ MONGODB_URI: database.uri, MONGODB_DB: dbName, MAX_METRICS: String(opts.names * opts.combinations + opts.busy + 1000), MAX_SERIES: String(opts.busy) }, { startTimeoutMs: 300_000, nodeArgs })
      servers.push({ side, server, profileDir, windows: [] })
    }
    await seedIndex(db, scale, { log })
    for (const s of servers) log(`${s.side}: learned ${await seriesLearned(s.server, opts.busy + 1 + opts.names * opts.combinations)} series`)
    const queries = tagQueries({ busySeries: opts.busy, hourStart: seed.hourStart })
    for (let round = 1; round <= opts.rounds; round++) {
      for (const query of queries) {
        for (const s of servers) {
          const before = await s.server.stats()
          const r = await readFigures({ server: s.server, query, seconds: opts.seconds, connections: 4, warmupSeconds: 1, minRequests: 8, random: seededRandom(28 + round) })
          const after = await s.server.stats()
          s.windows.push([before.monotonicUs, after.monotonicUs])
          rows.push({ side: s.side, round, ...r })
          log(`${s.side} round ${round} ${query.name}: p50 ${r.p50Ms?.toFixed(1)} ms, p99 ${r.p99Ms?.toFixed(1)} ms, ${r.requests} requests${r.failed ? `, ${r.failed} failed` : ''}`)
        }
      }
    }
  } finally {
    for (const s of servers) await s.server.stop().catch(() => {})
    await db.dropDatabase().catch(() => {})
    await mongo.close()
    await database.stop()
  }
  out.write(`base: ${opts.base ?? '(none)'}; this: ${HERE}; ${database.backend}; ${opts.names * opts.combinations} index series, ${opts.busy} of bench.busy\n\n| side | round | query | p50 ms | p99 ms | requests | failed |\n|---|---|---|---|---|---|---|\n`)
  for (const r of rows) out.write(`| ${r.side} | ${r.round} | ${r.name} | ${r.p50Ms?.toFixed(1)} | ${r.p99Ms?.toFixed(1)} | ${r.requests} | ${r.failed} |\n`)
  for (const s of servers.filter(x => x.profileDir)) {
    const file = fs.readdirSync(s.profileDir).find(f => f.endsWith('.cpuprofile'))
    const profile = JSON.parse(fs.readFileSync(path.join(s.profileDir, file), 'utf8'))
    const byWindow = s.windows.reduce((acc, w) => { const { rows, total } = selfTimeByFile(profile, w); for (const [k, n] of rows) acc.rows.set(k, (acc.rows.get(k) ?? 0) + n); acc.total += total; return acc }, { rows: new Map(), total: 0 })
    out.write(`\n${s.side}: self time over the queries (profile ${path.join(s.profileDir, file)})\n\n| where | share |\n|---|---|\n`)
    for (const [where, n] of [...byWindow.rows].sort((a, b) => b[1] - a[1]).slice(0, 20)) out.write(`| ${where} | ${((100 * n) / byWindow.total).toFixed(1)} % |\n`)
  }
  return 0
}

function parse (argv) {
  const { values } = parseFlags(argv, { base: { type: 'string' }, rounds: { type: 'string' }, seconds: { type: 'string' }, names: { type: 'string' }, combinations: { type: 'string' }, busy: { type: 'string' }, profile: { type: 'boolean' } })
  if (values.help) return { help: true }
  return {
    base: values.base ? path.resolve(values.base) : null,
    rounds: Math.floor(positiveFlag('rounds', values.rounds, 2)),
    seconds: positiveFlag('seconds', values.seconds, 5),
    names: Math.floor(positiveFlag('names', values.names, 1000)),
    combinations: Math.floor(positiveFlag('combinations', values.combinations, 1000)),
    busy: Math.floor(positiveFlag('busy', values.busy, 10_000)),
    profile: Boolean(values.profile)
  }
}

export const main = defineCommand({ name: 'tags-side-by-side', usage: USAGE, parse, run })

runIfMain(import.meta.url, 'tags-side-by-side', main, { exit: true })
