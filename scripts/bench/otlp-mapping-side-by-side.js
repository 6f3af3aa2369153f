#!/usr/bin/env node
// The OTLP door's own CPU, decode and mapping (src/otlp/otlp-codec.js,
// otlp-points.js) without the write behind them: this checkout's beside
// --base DIR's (another checkout, e.g. `git worktree add ../base <commit>`),
// in turns in one process, on the bench's export (./otlp-workload.js).
// Prints each side's µs per point: the median and range of the rounds.
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { UsageError, defineCommand, parseFlags, positiveFlag, runIfMain } from '../../src/cli.js'
import { loadConfig } from '../../src/config.js'
import { median } from './side-by-side.js'
import { captureOtlpExport } from './otlp-workload.js'

const USAGE = `Usage: node scripts/bench/otlp-mapping-side-by-side.js --base DIR [--rounds N] [--requests N]

Decodes and maps the bench's OTLP protobuf export (200 points) --requests
times (default 300) per round, this checkout and DIR's in turns, --rounds
rounds (default 10; the first two warm up, not counted): µs per point.
`
const HERE = path.resolve(new URL('../..', import.meta.url).pathname)

async function run (opts, { out }) {
  const config = loadConfig({ MONGODB_URI: 'mongodb://127.0.0.1' })
  const exp = await captureOtlpExport()
  const load = async (dir) => ({
    codec: await import(pathToFileURL(path.join(dir, 'src/otlp/otlp-codec.js')).href),
    points: await import(pathToFileURL(path.join(dir, 'src/otlp/otlp-points.js')).href)
  })
  const sides = { base: await load(opts.base), this: await load(HERE) }
  const times = { base: [], this: [] }
  for (let round = 0; round < opts.rounds + 2; round++) {
    for (const [side, { codec, points }] of Object.entries(sides)) {
      const t0 = performance.now()
      for (let i = 0; i < opts.requests; i++) {
        const { request } = codec.decodeRequest(exp.body, 'application/x-protobuf')
        points.pointsOf(request, { now: Date.now(), config, resourceTags: config.otlpResourceTags, baselines: null })
      }
      if (round >= 2) times[side].push(((performance.now() - t0) * 1000) / opts.requests / exp.points)
    }
  }
  const cell = (v) => v.toFixed(2)
  out.write(`base: ${opts.base}; this: ${HERE}; ${exp.points} points an export, ${opts.requests} exports a round, ${opts.rounds} rounds\n\n| side | µs / point, median (min–max) |\n|---|---|\n`)
  for (const side of ['base', 'this']) out.write(`| ${side} | ${cell(median(times[side]))} (${cell(Math.min(...times[side]))}–${cell(Math.max(...times[side]))}) |\n`)
  out.write(`\nthis ÷ base: ${(median(times.this) / median(times.base)).toFixed(2)}\n`)
  return 0
}

function parse (argv) {
  const { values } = parseFlags(argv, { base: { type: 'string' }, rounds: { type: 'string' }, requests: { type: 'string' } })
  if (values.help) return { help: true }
  if (!values.base) throw new UsageError('--base DIR is required: the checkout to measure beside this one')
  return { base: path.resolve(values.base), rounds: positiveFlag('rounds', values.rounds, 10), requests: positiveFlag('requests', values.requests, 300) }
}

export const main = defineCommand({ name: 'otlp-mapping-side-by-side', usage: USAGE, parse, run })

runIfMain(import.meta.url, 'otlp-mapping-side-by-side', main, { exit: true })
