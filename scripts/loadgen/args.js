// Command line of scripts/loadgen/loadgen.js: parsed and validated here,
// purely, so that a bad flag is one UsageError (exit 2) with a message.
import { UsageError, parseFlags } from '../../src/cli.js'
import { DAY_MS } from '../../src/bucket/time.js'
import { checkServiceWindow, defaultStart, parseDuration, parseStart, simSpanMs } from './sim-clock.js'

export const HELP = `Usage: npm run loadgen -- (--url URL | --mongodb URI) [options]

Increments metrics as fast as it can under a simulated clock and records
events/s and ack latency for every simulated minute (the 2012 MMS talk's
experiment). Every run is bounded and stops by itself.

Target (exactly one):
  --url URL            statbucket's HTTP API (POST /v1/events), --batch events per request
  --mongodb URI        straight to MongoDB through statbucket's store code: one $inc
                       upsert of the daily and one of the monthly document per event
                       (the talk's writer with its monthly rollup), or --coalesce
  --db NAME            database for --mongodb (default statbucket_loadgen: its own, so
                       the service's metrics are left alone)
  --token TOKEN        bearer token for --url (WRITE_TOKENS/READ_TOKENS)

Simulated time:
  --speedup N          simulated time runs N× real time (default 300)
  --start T            first simulated instant: ISO time with Z or an offset, a date
                       (midnight UTC), or HH:MM (e.g. 23:50, to cross midnight early) of
                       the latest day on which the run ends before now.
                       Default: 00:00 UTC of the latest day on which the run ends before now
  --sim-minutes N      simulated minutes to run (default 1450: a day and 10 minutes)
  --seconds N          or: real seconds to run
  --max-age-days N     the server's MAX_AGE_DAYS, for --url's window check (default 400)

Load:
  --metrics N          metrics written round-robin (default 100)
  --metric-prefix P    metric names are P + m000… (default lg.)
  --concurrency N      closed-loop workers (default 8)
  --batch N            events per request (default 100 for --url and --coalesce, 1 otherwise)
  --layout L           flat | hierarchical (default hierarchical): the talk's minute
                       layouts, for --mongodb (the service writes hierarchical only)
  --prealloc P         preallocation probability for --mongodb (default 0.000667; 0 = off);
                       with --url it is the server's PREALLOC_PROBABILITY
  --coalesce           --mongodb through the coalescing writer instead of one upsert per event
  --out-of-order F     fraction of events (0..1) with a random earlier time within --ooo-window
  --ooo-window D       how far back: 30s, 90m, 6h, 1d (default 1h)
  --compare-ooo        run twice, with 0 and with F out of order, and report the cost
  --seed N             seed of the random choices (default 1)
  --warmup S           real seconds of unrecorded load first, on metrics P + warmup.m000…,
                       so that JIT and connection warm-up do not depress the first minutes (default 2)
  --give-up-after S    real seconds without a request reaching the service (connection
                       refused, host unreachable) before the run stops with exit 1 (default 10);
                       meanwhile each worker waits 0.1 s, 0.2 s … up to 2 s between tries

Output:
  --csv FILE           one row per simulated minute (default bench-results/loadgen-<time>.csv)
  --report FILE        .html or .svg chart of events/s against simulated time, midnights marked;
                       a bare file name goes under reports/ (ignored by git), a path is taken as given
  --json               print the summary as JSON instead of text
  --verify             after the run, check that every acknowledged event is in the database
  --keep               with --url, keep the metrics the run created (by default they are
                       deleted at the end with DELETE /v1/metrics/:metric, so the registry is
                       left as the run found it; the token must be a write token)
  --quiet              no progress line
  --help               this text
`

const OPTIONS = {
  url: { type: 'string' },
  mongodb: { type: 'string' },
  db: { type: 'string' },
  token: { type: 'string' },
  speedup: { type: 'string' },
  start: { type: 'string' },
  'sim-minutes': { type: 'string' },
  seconds: { type: 'string' },
  'max-age-days': { type: 'string' },
  metrics: { type: 'string' },
  'metric-prefix': { type: 'string' },
  concurrency: { type: 'string' },
  batch: { type: 'string' },
  layout: { type: 'string' },
  prealloc: { type: 'string' },
  coalesce: { type: 'boolean' },
  'out-of-order': { type: 'string' },
  'ooo-window': { type: 'string' },
  'compare-ooo': { type: 'boolean' },
  seed: { type: 'string' },
  warmup: { type: 'string' },
  'give-up-after': { type: 'string' },
  csv: { type: 'string' },
  keep: { type: 'boolean' },
  report: { type: 'string' },
  json: { type: 'boolean' },
  verify: { type: 'boolean' },
  quiet: { type: 'boolean' }
}

// Real duration of one run at most: a bound, so that a typo cannot run for weeks.
export const MAX_REAL_MS = DAY_MS

function number (values, name, fallback, { min, max, integer = false }) {
  const raw = values[name]
  if (raw === undefined) return fallback
  const n = Number(raw)
  if (raw.trim() === '' || !Number.isFinite(n) || (integer && !Number.isInteger(n)) || n < min || n > max) {
    throw new UsageError(`--${name} must be ${integer ? 'a whole number' : 'a number'} from ${min} to ${max}, got ${JSON.stringify(raw)}`)
  }
  return n
}

/**
 * argv (without node and the script) → options, or throws UsageError.
 * now: the real clock's epoch ms (for the default start and the window check).
 */
export function parseLoadgenArgs (argv, { now }) {
  const { values } = parseFlags(argv, OPTIONS)
  if (values.help) return { help: true }

  if (Boolean(values.url) === Boolean(values.mongodb)) throw new UsageError('give exactly one target: --url http://host:port or --mongodb mongodb://…')
  const target = values.url ? 'http' : 'mongodb'
  if (values.url) {
    let u
    try { u = new URL(values.url) } catch { throw new UsageError(`--url is not a URL: ${JSON.stringify(values.url)}`) }
    if (!/^https?:$/.test(u.protocol)) throw new UsageError('--url must be http:// or https://')
  }
  if (values.mongodb && !/^mongodb(\+srv)?:\/\//.test(values.mongodb)) throw new UsageError('--mongodb must start with mongodb:// or mongodb+srv://')
  const onlyFor = (flag, which) => { if (values[flag] !== undefined && target !== which) throw new UsageError(`--${flag} applies to --${which === 'http' ? 'url' : 'mongodb'} only`) }
  onlyFor('db', 'mongodb')
  onlyFor('coalesce', 'mongodb')
  onlyFor('keep', 'http')
  onlyFor('token', 'http')
  onlyFor('max-age-days', 'http')
  if (values.prealloc !== undefined && target === 'http') {
    throw new UsageError('--prealloc is a server setting with --url: start statbucket with PREALLOC_PROBABILITY=P')
  }
  if (values.db !== undefined && !/^[^/\\. "$*<>:|?]{1,63}$/.test(values.db)) throw new UsageError(`--db is not a valid database name: ${JSON.stringify(values.db)}`)

  const speedup = number(values, 'speedup', 300, { min: 0.001, max: 1e6 })
  if (values['sim-minutes'] !== undefined && values.seconds !== undefined) throw new UsageError('give --sim-minutes or --seconds, not both')
  const simMinutes = values.seconds === undefined ? number(values, 'sim-minutes', 1450, { min: 0.01, max: 1e7 }) : undefined
  const seconds = values.seconds !== undefined ? number(values, 'seconds', undefined, { min: 0.1, max: MAX_REAL_MS / 1000 }) : undefined
  const spanMs = simSpanMs({ simMinutes, seconds, speedup })
  const realRunMs = spanMs / speedup
  if (realRunMs > MAX_REAL_MS) throw new UsageError(`the run would last ${Math.round(realRunMs / 1000)} s of real time; at most ${MAX_REAL_MS / 1000} s (raise --speedup or shorten the run)`)

  const coalesce = Boolean(values.coalesce)
  const batch = number(values, 'batch', target === 'http' || coalesce ? 100 : 1, { min: 1, max: 1_000_000, integer: true })
  if (target === 'mongodb' && !coalesce && batch !== 1) throw new UsageError('--batch applies to --url and --coalesce; the naive --mongodb writer sends one upsert per event')

  const oooFraction = number(values, 'out-of-order', 0, { min: 0, max: 1 })
  const oooWindowMs = values['ooo-window'] === undefined ? 3_600_000 : parseDuration(values['ooo-window'])
  if (oooWindowMs === null || oooWindowMs <= 0) throw new UsageError(`--ooo-window must be a duration such as 30s, 90m, 6h or 1d, got ${JSON.stringify(values['ooo-window'])}`)
  const compareOoo = Boolean(values['compare-ooo'])
  if (compareOoo && oooFraction === 0) throw new UsageError('--compare-ooo needs --out-of-order F with F > 0')

  const layout = values.layout ?? null
  if (layout !== null && !['flat', 'hierarchical'].includes(layout)) throw new UsageError(`--layout must be flat or hierarchical, got ${JSON.stringify(layout)}`)
  if (layout === 'flat' && target === 'http') throw new UsageError('--layout flat applies to --mongodb only: the service writes the hierarchical layout')

  let start
  if (values.start !== undefined) {
    start = parseStart(values.start, { now, spanMs })
    if (start === null) throw new UsageError(`--start must be an ISO time with Z or an offset, a date YYYY-MM-DD, or HH:MM, got ${JSON.stringify(values.start)}`)
  } else {
    start = defaultStart({ now, spanMs })
  }
  const maxAgeDays = number(values, 'max-age-days', 400, { min: 1, max: 36_500, integer: true })
  if (target === 'http') {
    const phases = compareOoo ? 2 : 1
    const warmupMs = number(values, 'warmup', 2, { min: 0, max: 600 }) * 1000
    const problem = checkServiceWindow({ start, spanMs, now, realRunMs: realRunMs * phases + warmupMs, maxAgeDays, oooWindowMs: oooFraction > 0 ? oooWindowMs : 0 })
    if (problem) throw new UsageError(problem)
  }

  const metricPrefix = values['metric-prefix'] ?? 'lg.'
  if (!/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,190}$/.test(metricPrefix)) throw new UsageError(`--metric-prefix must start a valid metric name (letters, digits, _ . : -), got ${JSON.stringify(metricPrefix)}`)
  if (values.report !== undefined && !/\.(html?|svg)$/i.test(values.report)) throw new UsageError('--report must name a .html or .svg file')

  return {
    target,
    url: values.url ?? null,
    mongodbUri: values.mongodb ?? null,
    db: values.db ?? 'statbucket_loadgen',
    token: values.token ?? null,
    speedup,
    start,
    spanMs,
    realRunMs,
    simMinutes: spanMs / 60_000,
    maxAgeDays,
    metrics: number(values, 'metrics', 100, { min: 1, max: 100_000, integer: true }),
    metricPrefix,
    concurrency: number(values, 'concurrency', 8, { min: 1, max: 1024, integer: true }),
    batch,
    layout,
    prealloc: number(values, 'prealloc', 0.000667, { min: 0, max: 1 }),
    coalesce,
    oooFraction,
    oooWindowMs,
    compareOoo,
    seed: number(values, 'seed', 1, { min: 0, max: 2 ** 32 - 1, integer: true }),
    warmupSeconds: number(values, 'warmup', 2, { min: 0, max: 600 }),
    giveUpMs: number(values, 'give-up-after', 10, { min: 0.1, max: 3600 }) * 1000,
    csv: values.csv ?? null,
    report: values.report === undefined ? null : reportPath(values.report),
    json: Boolean(values.json),
    verify: Boolean(values.verify),
    keep: Boolean(values.keep),
    quiet: Boolean(values.quiet)
  }
}

/** Where --report writes: a bare file name under reports/ (ignored by git), any path as given */
export function reportPath (file) {
  return /[\\/]/.test(file) ? file : `reports/${file}`
}
