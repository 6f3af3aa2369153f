#!/usr/bin/env node
// `npm run check [-- --repair]`: verifies every tier of every stored document
// and each month against its days (docs/operations.md#commands; docs/adr/0005-the-check-finer-tier-is-the-truth.md for the choices).
// `--help` for usage.
import { EXIT, UsageError, defineCommand, parseFlags, positiveFlag, runIfMain } from '../cli.js'
import { ConfigError, loadConfig } from '../config.js'
import { collectionsOf } from '../db/collections.js'
import { KINDS } from '../kinds/index.js'
import { connectCommandDatabase, createMissingCollections } from '../db/command-database.js'
import { dailyKeptFromFor, minuteHistogramKeptFromFor, minuteKeptFromFor } from '../bucket/retention-horizons.js'
import { runCheck } from './check-run.js'

const HELP = `Usage: npm run check [-- options]

Verifies statbucket's stored counters: in every daily document
daily = Σ hourly = Σ quarterHourly = Σ minute (per hour and per quarter-hour
too), in every monthly document monthly = Σ daily.D, and each monthly.daily.D
against that day's daily document. Distributions alike (their own day and
month documents): every histogram's buckets add up to its count, each
hour and the day hold exactly what their quarter-hours hold (count, sum,
buckets, min, max), each quarter-hour what its minutes hold (count, sum,
min, max), the month what its days hold, monthly.daily.D what that day's
daily document holds, and each minute histogram (a minute-hour document) adds
up to its minute's count in the daily document (--repair removes one that
does not: no read uses it). Gauges alike (their own documents): count, sum,
min, max and last of each hour and the day equal their quarter-hours'
merged, each quarter-hour holds what its minutes hold, the month its days,
monthly.daily.D its daily document's day. Prints each violation (document id, field, expected,
found) and a summary.

Options:
  --repair             restore the coarser from the finer (tiers from minutes,
                       monthly from daily documents; a day without
                       quarterHourly is reported, not repaired); safe while ingest runs. A distribution's
                       coarser tier only gets what it lacks: one that holds
                       more than its finer tiers is reported, never lowered;
                       a gauge's likewise (count and sum added, min/max/last
                       raised, never lowered)
  --prefix P           only metrics whose name starts with P
  --from DATE          only days on or after DATE (YYYY-MM-DD or ISO with zone)
  --to DATE            only days before DATE
  --rate N             read at most N documents per second (default: unlimited)
  --progress-every S   print progress to stderr every S seconds (default 5)
  --help               this text

Reads the service's environment: MONGODB_URI (unset: the embedded database
of the statbucket running on STATBUCKET_DATA_DIR, or that database opened
by this command when none runs), MONGODB_DB,
WRITE_TIMEOUT_MS (a cross-document mismatch counts once it held unchanged
3 × that: the latest a flush's write may land), the retention settings (days past the daily horizon have
no daily document, by design).
Exit codes: 0 no violation (or all repaired), 1 violations found (or left
unrepaired), 2 bad usage or configuration.
`

const OPTIONS = {
  repair: { type: 'boolean' },
  prefix: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  rate: { type: 'string' },
  'progress-every': { type: 'string' }
}

function parseDate (name, text) {
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(text) ? Date.parse(`${text}T00:00:00Z`) : Date.parse(text)
  if (!Number.isFinite(ms) || !/(^\d{4}-\d{2}-\d{2}$)|([Zz]|[+-]\d{2}:\d{2})$/.test(text)) {
    throw new UsageError(`--${name} must be YYYY-MM-DD or an ISO time with a zone, got ${JSON.stringify(text)}`)
  }
  return ms
}

export function parse (argv) {
  const { values } = parseFlags(argv, OPTIONS)
  if (values.help) return { help: true }
  const from = values.from === undefined ? null : parseDate('from', values.from)
  const to = values.to === undefined ? null : parseDate('to', values.to)
  if (from !== null && to !== null && to <= from) throw new UsageError('--to must be after --from')
  return {
    repair: Boolean(values.repair),
    prefix: values.prefix ?? '',
    from,
    to,
    rate: positiveFlag('rate', values.rate, Infinity),
    progressEveryMs: positiveFlag('progress-every', values['progress-every'], 5) * 1000
  }
}

/** How many of the documents read were each kind's but the default's, and a kind's minute documents */
function ofKinds (documents) {
  let text = ''
  for (const { name, collections: { daily, monthly } } of KINDS.slice(1)) {
    if (documents[monthly] + documents[daily] > 0) text += ` (${documents[monthly]} and ${documents[daily]} of them ${name}s')`
  }
  for (const { name, collections: { minutes } } of KINDS) {
    if (minutes !== undefined && documents[minutes] > 0) text += ` and ${documents[minutes]} minute-hour documents of ${name}s`
  }
  return text
}

const show = v => (typeof v === 'string' ? v : JSON.stringify(v))

async function run (args, { env, out, err }) {
  const config = loadConfig(env)
  let database = null
  try {
    database = await connectCommandDatabase({ config, env, appName: 'statbucket-check' })
    err.write(`check: using ${database.description}\n`)
    const db = database.client.db(config.mongodbDb)
    // a repair may upsert a month; the check alone creates nothing
    const created = args.repair ? await createMissingCollections(db, config) : null
    if (created) err.write(`check: ${created}\n`)
    const collections = collectionsOf(db)
    let lastProgress = Date.now()
    const summary = await runCheck(collections, {
      ...args,
      writeTimeoutMs: config.writeTimeoutMs,
      dailyKeptFrom: dailyKeptFromFor(config, Date.now()),
      minuteKeptFrom: minuteKeptFromFor(config, Date.now()),
      minuteHistogramKeptFrom: minuteHistogramKeptFromFor(config, Date.now()),
      onViolation (v, state) {
        out.write(`${v.id} ${v.field}: expected ${show(v.expected)}, found ${show(v.found)}${v.against ? ` (from ${v.against})` : ''}${state === 'found' ? '' : ` [${state}]`}${v.note ? ` ${v.note}` : ''}\n`)
      },
      onProgress (s) {
        if (Date.now() - lastProgress < args.progressEveryMs) return
        lastProgress = Date.now()
        err.write(`check: ${s.monthly} monthly and ${s.daily} daily documents read, ${s.violations} violations so far\n`)
      }
    })
    const left = args.repair ? summary.unrepaired + summary.unsettled : summary.violations
    out.write(`checked ${summary.monthly} monthly and ${summary.daily} daily documents${ofKinds(summary.documents)}: ${summary.violations} violations` +
      (args.repair ? `, ${summary.repaired} repaired, ${summary.unrepaired + summary.unsettled} left` : '') + '\n')
    return left > 0 ? EXIT.PROBLEM : EXIT.OK
  } catch (e) {
    err.write(`check failed: ${e.message}\n`)
    return EXIT.PROBLEM
  } finally {
    await database?.close().catch(() => {})
  }
}

export const main = defineCommand({ name: 'check', usage: HELP, parse, run, badSettings: [ConfigError] })

runIfMain(import.meta.url, 'check', main)
