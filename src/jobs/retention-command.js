#!/usr/bin/env node
// `npm run retention -- --once`: one retention pass from the
// command line, with the service's settings and the same lease, so it never
// runs alongside the service's own pass. `--help` for usage.
import { EXIT, UsageError, defineCommand, parseFlags, positiveFlag, runIfMain } from '../cli.js'
import { systemClock } from '../clock.js'
import { ConfigError, loadConfig } from '../config.js'
import { bulkUpdatesFor, detectBackend } from '../db/capabilities.js'
import { collectionsOf } from '../db/collections.js'
import { connectCommandDatabase, createMissingCollections } from '../db/command-database.js'
import { RETENTION_LEASE_MS, createRetentionForDb } from './retention-service.js'

const HELP = `Usage: npm run retention -- --once [options]

Runs one retention pass and exits: per metric, drops minute detail from daily
documents more than a day past its minute horizon (MINUTE_RETENTION_DAYS or
its RETENTION_RULES rule) and deletes daily documents past its daily horizon
(DAILY_RETENTION_DAYS or its rule; day totals stay in the monthly documents),
at most RETENTION_RATE documents per second. Distributions alike: minutes
dropped only where the quarter-hours hold what they hold, a daily document
deleted only where its month holds its whole day tier, and the minute
histograms (its minute-hour documents) of a day whose minutes went deleted after
them. It takes the same lease as the
service's scheduled pass: while another pass holds it, this one does nothing.

Options:
  --once               run one pass (required: the service schedules the others)
  --lease-ms N         how long the lease lasts unless renewed (default ${RETENTION_LEASE_MS})
  --progress-every S   print progress to stderr every S seconds (default 5)
  --help               this text

Reads the service's environment (MONGODB_URI — unset: the embedded database
of the statbucket running on STATBUCKET_DATA_DIR, or that database opened by
this command when none runs — MONGODB_DB,
MINUTE_RETENTION_DAYS, DAILY_RETENTION_DAYS, RETENTION_RULES, RETENTION_RATE).
Exit codes: 0 pass complete, 1 not complete (lease held elsewhere, lost, a
database error) or documents left because their monthly total disagrees
(run npm run check -- --repair) or, for a distribution or a gauge, their
quarter-hours do not hold what their minutes hold (run npm run check), 2 bad
usage or configuration.
`

const OPTIONS = {
  once: { type: 'boolean' },
  'lease-ms': { type: 'string' },
  'progress-every': { type: 'string' }
}

function parse (argv) {
  const { values } = parseFlags(argv, OPTIONS)
  if (values.help) return { help: true }
  if (!values.once) throw new UsageError('--once is required: the service runs the scheduled passes (RETENTION_CRON)')
  return {
    leaseMs: positiveFlag('lease-ms', values['lease-ms'], RETENTION_LEASE_MS),
    progressEveryMs: positiveFlag('progress-every', values['progress-every'], 5) * 1000
  }
}

async function run (args, { env, out, err, signals = process }) {
  const config = loadConfig(env)
  let database = null
  let lastProgress = Date.now()
  const logger = { info () {}, warn: (o, msg) => err.write(`retention: ${msg}${o?.ids ? ` ${o.ids.join(' ')}` : ''}${o?.id ? ` ${o.id}` : ''}${o?.err ? ` ${o.err.message}` : ''}\n`) }
  let job = null
  const stop = () => { job?.stop() }
  signals.once?.('SIGINT', stop)
  signals.once?.('SIGTERM', stop)
  try {
    database = await connectCommandDatabase({ config, env, appName: 'statbucket-retention' })
    err.write(`retention: using ${database.description}\n`)
    const db = database.client.db(config.mongodbDb)
    const created = await createMissingCollections(db, config)
    if (created) err.write(`retention: ${created}\n`)
    job = createRetentionForDb({
      db,
      collections: collectionsOf(db),
      bulkUpdates: bulkUpdatesFor(await detectBackend(db)),
      config,
      clock: systemClock,
      logger,
      leaseMs: args.leaseMs,
      onProgress (p) {
        if (Date.now() - lastProgress < args.progressEveryMs) return
        lastProgress = Date.now()
        err.write(`retention: ${p.metrics} metrics done, at ${p.metric}: ${p.downsampled} downsampled, ${p.deleted} deleted\n`)
      }
    })
    const result = await job.runOnce()
    if (result.status === 'lease_held') {
      err.write(`retention: another pass holds the lease (${result.holder?.owner}, until ${result.holder?.expiresAt?.toISOString()}): nothing done\n`)
      return EXIT.PROBLEM
    }
    if (result.status === 'failed') {
      err.write(`retention failed: ${result.error}\n`)
      return EXIT.PROBLEM
    }
    out.write(`retention ${result.status}: ${result.metrics} metrics, ${result.downsampled} documents downsampled, ${result.deleted} deleted, ` +
      `${result.kept} kept (monthly disagrees)` +
      (result.unvouched ? `, ${result.unvouched} distribution or gauge documents not downsampled (quarter-hours do not hold their minutes)` : '') +
      (result.minuteHoursDeleted ? `, ${result.minuteHoursDeleted} minute-hour documents of distributions deleted` : '') + `, ${result.ms} ms\n`)
    return result.status === 'done' && result.kept === 0 && !result.unvouched ? EXIT.OK : EXIT.PROBLEM
  } catch (e) {
    err.write(`retention failed: ${e.message}\n`)
    return EXIT.PROBLEM
  } finally {
    signals.off?.('SIGINT', stop)
    signals.off?.('SIGTERM', stop)
    await database?.close().catch(() => {})
  }
}

export const main = defineCommand({ name: 'retention', usage: HELP, parse, run, badSettings: [ConfigError] })

runIfMain(import.meta.url, 'retention', main)
