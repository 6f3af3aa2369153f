#!/usr/bin/env node
// The writer's share of batched ingest alone: the tags section's bodies
// (./tags-workload.js) as the ingest service builds their units
// (kinds/write-unit.js, its remembered document ids where the checkout has
// them), 16 at a time into a writer (writer/writer.js) over collections that
// answer at once: CPU per event without HTTP, the driver or the database.
// `node scripts/bench/writer-cpu.js --help`.
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { defineCommand, parseFlags, positiveFlag, runIfMain } from '../../src/cli.js'
import { ROLLUP_RULES, ingestTags, wideIngestName } from './tags-workload.js'

const USAGE = `Usage: node scripts/bench/writer-cpu.js [--base DIR] [--rounds N] [--batches N]

Builds the tags section's batches of 1,000 events (untagged over 100 names;
over 1,600; 3 tags; 3 tags + its rollup) into write units and writes them
through a writer whose collections answer at once, --batches (default
4,000) after a warm-up, and prints CPU µs per event and statements per
event. --base DIR (a checkout with node_modules): DIR's code too, in turns,
--rounds times (default 2).
`
const HERE = path.resolve(new URL('../..', import.meta.url).pathname)
const VARIANTS = ['untagged', 'wide', 'tagged', 'rollup']

/** One variant on the checkout at `dir` → { cpuUsPerEvent, statementsPerEvent } */
async function measure (dir, variant, batches) {
  const load = (file) => import(pathToFileURL(path.join(dir, file)).href)
  const { buildWriteUnit } = await load('src/kinds/write-unit.js')
  const { createWriter } = await load('src/writer/writer.js')
  const { createRollups, parseRollupRules } = await load('src/tags/rollups.js')
  const { formatSeriesName } = await load('src/tags/series-name.js')
  const ids = await load('src/ingest/document-ids.js').then(m => m.createDocumentIds(), () => undefined)
  const rollups = createRollups(variant === 'rollup' ? parseRollupRules(JSON.stringify(ROLLUP_RULES)).rules : [])
  const names = Array.from({ length: 100 }, (_, i) => `bench.${variant}m${String(i).padStart(3, '0')}`)
  const now = Date.now()
  const metricOf = (name, k) => variant === 'untagged' ? name : variant === 'wide' ? wideIngestName(name, k) : formatSeriesName(name, Object.entries(ingestTags(k)))
  const bodies = Array.from({ length: 16 }, (_, b) => Array.from({ length: 1000 }, (_, i) => ({ metric: metricOf(names[i % 100], b * 1000 + i), value: 1, time: now })))
  let statements = 0
  const collection = { bulkWrite: async (ops) => { statements += ops.length; return {} } }
  const quiet = { debug () {}, info () {}, warn () {}, error () {} }
  const writer = createWriter({ daily: collection, monthly: collection, metrics: collection }, { flushIntervalMs: 0, flushMaxDocs: 1000, maxPendingEvents: 1e6, writeTimeoutMs: 60_000, clock: { now: () => Date.now() }, logger: quiet })
  const options = { writtenTo: variant === 'tagged' || variant === 'rollup' ? rollups.writtenTo : undefined, ids }
  let next = 0
  const write = async (n) => {
    for (let r = 0; r < n / 16; r++) await Promise.all(Array.from({ length: 16 }, () => writer.submit(buildWriteUnit(bodies[next++ % 16], options))))
  }
  await write(Math.min(batches, 1000))
  statements = 0
  const before = process.cpuUsage()
  await write(batches)
  const cpu = process.cpuUsage(before)
  await writer.close()
  const events = Math.ceil(batches / 16) * 16 * 1000
  return { cpuUsPerEvent: (cpu.user + cpu.system) / events, statementsPerEvent: statements / events }
}

async function run (opts, { out }) {
  const sides = [...(opts.base ? [['base', opts.base]] : []), ['this', HERE]]
  out.write('| round | side | events | CPU µs / event | statements / event |\n|---|---|---|---|---|\n')
  for (let round = 1; round <= (opts.base ? opts.rounds : 1); round++) {
    for (const variant of VARIANTS) {
      for (const [side, dir] of sides) {
        const r = await measure(dir, variant, opts.batches)
        out.write(`| ${round} | ${side} | ${variant} | ${r.cpuUsPerEvent.toFixed(3)} | ${r.statementsPerEvent.toFixed(3)} |\n`)
      }
    }
  }
  return 0
}

function parse (argv) {
  const { values } = parseFlags(argv, { base: { type: 'string' }, rounds: { type: 'string' }, batches: { type: 'string' } })
  if (values.help) return { help: true }
  return {
    base: values.base ? path.resolve(values.base) : null,
    rounds: Math.floor(positiveFlag('rounds', values.rounds, 2)),
    batches: Math.floor(positiveFlag('batches', values.batches, 4000))
  }
}

export const main = defineCommand({ name: 'writer-cpu', usage: USAGE, parse, run })

runIfMain(import.meta.url, 'writer-cpu', main, { exit: true })
