#!/usr/bin/env node
// `npm run retention -- --once`: one retention pass from the
// command line, with the service's settings and the same lease, so it never
// runs alongside the service's own pass. `--help` for usage.
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { connectCommandDatabase } from '../src/db/command-database.js'
import { systemClock } from '../src/clock.js'
import { ConfigError, loadConfig } from '../src/config.js'
import { LAYOUTS } from '../src/bucket/layouts.js'
import { RETENTION_LEASE_MS, createRetentionForDb } from '../src/jobs/retention-service.js'

const HELP = `Usage: npm run retention -- --once [options]

Runs one retention pass and exits: per metric, drops minute detail from daily
documents more than a day past its minute horizon (MINUTE_RETENTION_DAYS or
its RETENTION_RULES rule) and deletes daily documents past its daily horizon
(DAILY_RETENTION_DAYS or its rule; day totals stay in the monthly documents),
at most RETENTION_RATE documents per second. It takes the same lease as the
service's scheduled pass: while another pass holds it, this one does nothing.

Options:
  --once               run one pass (required: the service schedules the others)
  --lease-ms N         how long the lease lasts unless renewed (default ${RETENTION_LEASE_MS})
  --progress-every S   print progress to stderr every S seconds (default 5)
  --help               this text

Reads the service's environment (MONGODB_URI — unset: the embedded database
of the statbucket running on STATBUCKET_DATA_DIR, or that database opened by
this command when none runs — MONGODB_DB, BUCKET_LAYOUT,
MINUTE_RETENTION_DAYS, DAILY_RETENTION_DAYS, RETENTION_RULES, RETENTION_RATE).
Exit codes: 0 pass complete, 1 not complete (lease held elsewhere, lost, a
database error) or documents left because their monthly total disagrees or
they lack the quarter-hour tier (run npm run check -- --repair), 2 bad usage
or configuration.
`

const OPTIONS = {
  once: { type: 'boolean' },
  'lease-ms': { type: 'string' },
  'progress-every': { type: 'string' },
  help: { type: 'boolean', short: 'h' }
}

class UsageError extends Error {}

function positive (name, text, fallback) {
  if (text === undefined) return fallback
  const n = Number(text)
  if (!/^\d+(\.\d+)?$/.test(text) || !(n > 0)) throw new UsageError(`--${name} must be a positive number, got ${JSON.stringify(text)}`)
  return n
}

function parse (argv) {
  let values
  try {
    ({ values } = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false }))
  } catch (err) {
    throw new UsageError(err.message)
  }
  if (!values.help && !values.once) throw new UsageError('--once is required: the service runs the scheduled passes (RETENTION_CRON)')
  return {
    help: Boolean(values.help),
    leaseMs: positive('lease-ms', values['lease-ms'], RETENTION_LEASE_MS),
    progressEveryMs: positive('progress-every', values['progress-every'], 5) * 1000
  }
}

export async function main (argv = process.argv.slice(2), { env = process.env, out = process.stdout, err = process.stderr, signals = process } = {}) {
  let args, config
  try {
    args = parse(argv)
    if (args.help) { out.write(HELP); return 0 }
    config = loadConfig(env)
  } catch (e) {
    if (e instanceof UsageError || e instanceof ConfigError) {
      err.write(`retention: ${e.message}\n${e instanceof UsageError ? 'See --help.\n' : ''}`)
      return 2
    }
    throw e
  }
  let database = null
  let lastProgress = Date.now()
  const logger = { info () {}, warn: (o, msg) => err.write(`retention: ${msg}${o?.ids ? ` ${o.ids.join(' ')}` : ''}${o?.err ? ` ${o.err.message}` : ''}\n`) }
  let job = null
  const stop = () => { job?.stop() }
  signals.once?.('SIGINT', stop)
  signals.once?.('SIGTERM', stop)
  try {
    database = await connectCommandDatabase({ config, env, appName: 'statbucket-retention' })
    err.write(`retention: using ${database.description}\n`)
    const db = database.client.db(config.mongodbDb)
    job = createRetentionForDb({
      db,
      collections: { daily: db.collection(LAYOUTS[config.bucketLayout].collection), monthly: db.collection('monthly'), metrics: db.collection('metrics') },
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
      return 1
    }
    if (result.status === 'failed') {
      err.write(`retention failed: ${result.error}\n`)
      return 1
    }
    out.write(`retention ${result.status}: ${result.metrics} metrics, ${result.downsampled} documents downsampled, ${result.deleted} deleted, ` +
      `${result.kept} kept (monthly disagrees), ${result.unfilled} not downsampled (no quarterHourly), ${result.ms} ms\n`)
    return result.status === 'done' && result.kept === 0 && result.unfilled === 0 ? 0 : 1
  } catch (e) {
    err.write(`retention failed: ${e.message}\n`)
    return 1
  } finally {
    signals.off?.('SIGINT', stop)
    signals.off?.('SIGTERM', stop)
    await database?.close().catch(() => {})
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main()
}
