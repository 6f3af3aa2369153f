#!/usr/bin/env node
// Where batched tagged ingest's CPU goes: the tags section's ingest variants
// (./bench-tags.js ingestRun: untagged, 3 tags, 3 tags + a declared rollup)
// without its index and reads, each service under `node --cpu-prof` when
// asked, then the profile's self time by function over the measured load.
// `node scripts/bench/profile-tagged-ingest.js --help`.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { defineCommand, parseFlags, positiveFlag, runIfMain } from '../../src/cli.js'
import { benchHttpBatched } from './bench-ingest.js'
import { selfTimeByFile } from './profile-single.js'
import { startServerProcess } from './server-process.js'
import { INGEST_PREFIXES, ROLLUP_RULES, ingestTags, wideIngestName } from './tags-workload.js'

const USAGE = `Usage: node scripts/bench/profile-tagged-ingest.js [--seconds N] [--connections N] [--top N] [--only LIST] [--profile]

Runs the tags section's batched ingest variants (batches of 1,000 over 100
names: untagged; untagged over as many names as the tagged run has series;
3 tags; 3 tags + ROLLUP_RULES) on the embedded database, each after a
2 s warm-up for --seconds (default 6) on --connections (default 16), and
prints events/s and service CPU per event (--only: some of untagged, wide,
tagged, rollup; timers, the bench's batched timer values, only when named). --profile runs each service
under node --cpu-prof and prints the busiest functions (self time, µs per
event) over the measured load.
`

const IDLE = '((idle))'

const VARIANTS = [
  { name: 'untagged', key: 'untagged', prefix: INGEST_PREFIXES.untagged },
  { name: 'untagged, wide', key: 'wide', prefix: INGEST_PREFIXES.wide, wide: true },
  { name: '3 tags', key: 'tagged', prefix: INGEST_PREFIXES.tagged, tagsOf: ingestTags },
  { name: '3 tags + rollup', key: 'rollup', prefix: INGEST_PREFIXES.rollup, tagsOf: ingestTags, env: { ROLLUP_RULES: JSON.stringify(ROLLUP_RULES) } },
  { name: 'timer values', key: 'timers', prefix: 'bench.timer.', timers: true }
]

async function run (opts, { out }) {
  const { startEmbeddedMongo } = await import('../../src/db/embedded.js')
  const database = await startEmbeddedMongo({ persistent: false })
  try {
    for (const v of VARIANTS.filter(x => opts.only.includes(x.key))) {
      const dir = opts.profile ? fs.mkdtempSync(path.join(os.tmpdir(), 'statbucket-tagged-')) : null
      const server = await startServerProcess({ MONGODB_URI: database.uri, MONGODB_DB: `profile_tagged_${process.pid}`, ...v.env }, { nodeArgs: dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : [] })
      let r, before, after
      try {
        const load = { server, connections: opts.connections, prefix: v.prefix, tagsOf: v.tagsOf ?? null, timers: Boolean(v.timers), nameOf: v.wide ? wideIngestName : null, dbPid: database.pid }
        await benchHttpBatched({ ...load, seconds: 2 })
        before = await server.stats()
        r = await benchHttpBatched({ ...load, seconds: opts.seconds })
        after = await server.stats()
      } finally {
        await server.stop()
      }
      const cpuUs = r.service.cpuUsPerRequest / r.batch
      out.write(`\n${v.name}: ${Math.round(r.eventsPerS)} events/s, ${cpuUs.toFixed(2)} µs of service CPU per event, ${r.service.statementsPerFlush?.toFixed(0)} statements and ${r.service.requestsPerFlush?.toFixed(1)} requests a flush, database ${r.databaseCpuUsPerEvent?.toFixed(2)} µs per event, service RSS peak ${(r.rssPeakBytes / 1e6).toFixed(0)} MB${r.non2xx ? `, ${r.non2xx} not 200` : ''}\n`)
      if (!dir) continue
      const file = fs.readdirSync(dir).find(f => f.endsWith('.cpuprofile'))
      const { rows, total } = selfTimeByFile(JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')), [before.monotonicUs, after.monotonicUs], { byFunction: true })
      const busy = total - (rows.find(([w]) => w === IDLE)?.[1] ?? 0)
      out.write('\n| function | share of busy | µs per event |\n|---|---|---|\n')
      for (const [w, n] of rows.filter(([w]) => w !== IDLE).slice(0, opts.top)) out.write(`| ${w} | ${((100 * n) / busy).toFixed(1)} % | ${((n / busy) * cpuUs).toFixed(3)} |\n`)
      fs.rmSync(dir, { recursive: true, force: true })
    }
  } finally {
    await database.stop()
  }
  return 0
}

function parse (argv) {
  const { values } = parseFlags(argv, { seconds: { type: 'string' }, connections: { type: 'string' }, top: { type: 'string' }, only: { type: 'string' }, profile: { type: 'boolean' } })
  if (values.help) return { help: true }
  return {
    seconds: positiveFlag('seconds', values.seconds, 6),
    connections: Math.floor(positiveFlag('connections', values.connections, 16)),
    top: Math.floor(positiveFlag('top', values.top, 30)),
    only: values.only?.split(',') ?? VARIANTS.filter(v => !v.timers).map(v => v.key), // the tags section's four
    profile: Boolean(values.profile)
  }
}

export const main = defineCommand({ name: 'profile-tagged-ingest', usage: USAGE, parse, run })

runIfMain(import.meta.url, 'profile-tagged-ingest', main, { exit: true })
