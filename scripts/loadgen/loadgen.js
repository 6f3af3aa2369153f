#!/usr/bin/env node
// Load generator: the 2012 MMS talk's experiment on any MongoDB, or through
// statbucket's HTTP API. `npm run loadgen -- --help`.
import fs from 'node:fs'
import path from 'node:path'
import { EXIT, UsageError, defineCommand, runIfMain } from '../../src/cli.js'
import { DAY_MS, startOfDay } from '../../src/bucket/time.js'
import { metricNames, seededRandom } from '../shared/workload.js'
import { HELP, parseLoadgenArgs } from './args.js'
import { toCsv } from './minute-stats.js'
import { renderHtml, renderSvg } from './report.js'
import { formatSummary, summarize, verifyTotals } from './summary.js'
import { createHttpTarget } from './http-target.js'
import { createMongoTarget } from './mongo-target.js'
import { LAYOUTS } from './layouts.js'
import { runPhase } from './load-run.js'

const stamp = () => new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '').replace('T', '-')

function progressPrinter (label) {
  const tty = process.stderr.isTTY
  let lastAcked = 0
  let lastAt = performance.now()
  let lastPrinted = 0
  return ({ clock, simEnd, totals }) => {
    const now = performance.now()
    const rate = (totals.acked - lastAcked) / ((now - lastAt) / 1000)
    lastAcked = totals.acked
    lastAt = now
    const sim = Math.min(clock.now(), simEnd)
    const done = Math.min(100, ((sim - clock.start) / (simEnd - clock.start)) * 100)
    const failed = totals.rejected + totals.not_applied + totals.not_reached + totals.unknown
    const line = `${label} sim ${new Date(sim).toISOString().slice(0, 16).replace('T', ' ')} | ${Math.round(rate).toLocaleString('en-US')} events/s | acked ${totals.acked.toLocaleString('en-US')} | failed ${failed} | ${done.toFixed(0)}%`
    if (tty) process.stderr.write(`\r\x1b[K${line}`)
    else if (now - lastPrinted >= 10_000) { process.stderr.write(line + '\n'); lastPrinted = now }
  }
}

/** The one line of a run stopped because the service could not be reached */
const unreachableLine = (opts, { error, forMs }, notReached) =>
  `loadgen: statbucket at ${opts.url} could not be reached for ${Math.floor(forMs / 1000)} s (${error ?? 'no connection'}); stopped (the ${notReached} events sent meanwhile were not applied)\n`

async function runLoad (opts) {
  const random = seededRandom(opts.seed)
  const preallocRandom = seededRandom(opts.seed + 1)
  const metrics = metricNames(opts.metricPrefix, opts.metrics)
  let target
  try {
    target = opts.target === 'http'
      ? await createHttpTarget({ url: opts.url, token: opts.token, concurrency: opts.concurrency, layout: opts.layout })
      : await createMongoTarget({ uri: opts.mongodbUri, dbName: opts.db, layout: LAYOUTS[opts.layout ?? 'hierarchical'], coalesce: opts.coalesce, prealloc: opts.prealloc, random: preallocRandom })
  } catch (err) {
    if (err instanceof UsageError) throw err
    process.stderr.write(`loadgen: ${err.message}\n`)
    return EXIT.PROBLEM
  }

  // --url: the metrics the run creates are deleted at the end (--keep keeps them): the registry is left as found
  const cleanup = opts.target === 'http' && !opts.keep
  let existing
  try {
    existing = cleanup ? new Set(await target.namesWithPrefix(opts.metricPrefix)) : null
  } catch (err) {
    await target.close()
    process.stderr.write(`loadgen: ${err.message}\n`)
    return EXIT.PROBLEM
  }
  const windowFrom = startOfDay(opts.start - (opts.oooFraction > 0 ? opts.oooWindowMs : 0))
  const windowTo = startOfDay(opts.start + opts.spanMs - 1) + DAY_MS
  let exitCode = EXIT.OK
  try {
    const before = opts.verify ? await target.totals(metrics, windowFrom, windowTo) : null
    if (opts.warmupSeconds > 0) {
      // Unrecorded: the same load on other metrics, at the run's first simulated instant onwards.
      const warm = await runPhase({
        target,
        start: opts.start,
        spanMs: Math.min(opts.spanMs, opts.warmupSeconds * 1000 * opts.speedup),
        speedup: opts.speedup,
        concurrency: opts.concurrency,
        batch: opts.batch,
        metrics: metricNames(`${opts.metricPrefix}warmup.`, opts.metrics),
        random: seededRandom(opts.seed + 2),
        giveUpMs: opts.giveUpMs
      })
      if (warm.unreachable) {
        process.stderr.write(unreachableLine(opts, warm.unreachable, warm.totals.not_reached))
        return EXIT.PROBLEM
      }
      if (warm.firstRejection) {
        process.stderr.write(`loadgen: the target rejected a warm-up request (${warm.firstRejection.status ?? ''} ${warm.firstRejection.message ?? ''}); stopped\n`)
        return EXIT.PROBLEM
      }
    }
    const plan = opts.compareOoo
      ? [{ phase: 'ooo-0', oooFraction: 0 }, { phase: `ooo-${opts.oooFraction}`, oooFraction: opts.oooFraction }]
      : [{ phase: 'main', oooFraction: opts.oooFraction }]
    const phases = []
    for (const p of plan) {
      const result = await runPhase({
        target,
        start: opts.start,
        spanMs: opts.spanMs,
        speedup: opts.speedup,
        concurrency: opts.concurrency,
        batch: opts.batch,
        metrics,
        oooFraction: p.oooFraction,
        oooWindowMs: opts.oooWindowMs,
        random,
        progress: opts.quiet ? null : progressPrinter(p.phase),
        giveUpMs: opts.giveUpMs
      })
      if (!opts.quiet && process.stderr.isTTY) process.stderr.write('\n')
      phases.push({ ...p, result })
      if (result.unreachable) {
        process.stderr.write(unreachableLine(opts, result.unreachable, result.totals.not_reached))
        exitCode = EXIT.PROBLEM
        break
      }
      if (result.firstRejection) {
        process.stderr.write(`loadgen: the target rejected a request (${result.firstRejection.status ?? ''} ${result.firstRejection.message ?? ''}); stopped\n`)
        exitCode = EXIT.PROBLEM
        break
      }
    }

    const run = {
      target: target.description,
      layout: target.layout,
      backend: target.backend,
      metrics: opts.metrics,
      concurrency: opts.concurrency,
      batch: opts.batch,
      speedup: opts.speedup,
      prealloc: opts.target === 'http' ? 'set by the server (PREALLOC_PROBABILITY)' : opts.prealloc,
      oooWindowMs: opts.oooWindowMs,
      seed: opts.seed
    }
    if (target.statementsPerEvent) run.statementsPerEvent = target.statementsPerEvent()
    // a service that could not be reached cannot be asked for its totals either
    if (opts.verify && !phases.some(p => p.result.unreachable)) {
      const after = await target.totals(metrics, windowFrom, windowTo)
      const acked = phases.reduce((s, p) => s + p.result.totals.acked, 0)
      const unknown = phases.reduce((s, p) => s + p.result.totals.unknown, 0)
      run.verify = verifyTotals({ before, after, acked, unknown })
      if (!run.verify.ok) exitCode = EXIT.PROBLEM
    }
    if (phases.every(p => p.result.totals.acked === 0)) {
      exitCode = EXIT.PROBLEM
      if (target.errors?.length) process.stderr.write(`loadgen: nothing was acknowledged; errors: ${target.errors.join('; ')}\n`)
    }

    const tables = phases.map(p => ({ phase: p.phase, rows: p.result.rows }))
    const csvPath = opts.csv ?? path.join('bench-results', `loadgen-${stamp()}.csv`)
    fs.mkdirSync(path.dirname(path.resolve(csvPath)), { recursive: true })
    fs.writeFileSync(csvPath, toCsv(tables))
    run.csv = csvPath
    const summary = summarize(phases, run)
    if (opts.report) {
      const title = `events/s per simulated minute — ${target.layout} layout, ${run.target.split(' ')[0]}`
      fs.mkdirSync(path.dirname(path.resolve(opts.report)), { recursive: true })
      fs.writeFileSync(opts.report, /\.svg$/i.test(opts.report) ? renderSvg(tables, { title }) : renderHtml(tables, { title, summaryText: formatSummary(summary) }))
      run.report = opts.report
    }
    process.stdout.write(opts.json ? JSON.stringify(summary, null, 2) + '\n' : formatSummary(summary))
  } finally {
    if (cleanup) {
      const created = (await target.namesWithPrefix(opts.metricPrefix).catch(() => [])).filter(name => !existing.has(name))
      const failed = []
      for (const name of created) {
        const why = await target.deleteMetric(name)
        if (why) failed.push(`${name}: ${why}`)
      }
      if (failed.length) {
        process.stderr.write(`loadgen: could not delete ${failed.length} of the ${created.length} metrics this run created (${failed[0]}); delete them with DELETE /v1/metrics/:metric\n`)
        exitCode = EXIT.PROBLEM
      }
    }
    await target.close()
  }
  return exitCode
}

export const main = defineCommand({ name: 'loadgen', usage: HELP, parse: argv => parseLoadgenArgs(argv, { now: Date.now() }), run: runLoad })

runIfMain(import.meta.url, 'loadgen', main)
