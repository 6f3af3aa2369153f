// Command line of scripts/bench/bench.js. Pure.
import { UsageError, parseFlags } from '../../src/cli.js'

export const SECTIONS = ['ingest', 'single', 'reads', 'graphite', 'statsd', 'otlp', 'storage', 'jobs', 'amplification']
// Sections that need no database: their own WiredTiger tables
export const WITHOUT_DATABASE = ['wiredtiger', 'amplification']
// Sections run only when asked with --only: the talk's experiment takes
// 4 × 1450 simulated minutes (about 20 minutes at the talk's 300×);
// wiredtiger builds WiredTiger from source the first time (about 4 minutes);
// cardinality writes a registry of 1,000,000 metrics and runs the sweep at
// its default rate (about 13 minutes here; docs/benchmarks.md#cardinality).
// tags seeds 1,000,000 series' registry entries and a service loads them (docs/benchmarks-tags-otlp-slos.md#tags);
// slos seeds ~2 years of minutes of ~100 series for 100 SLOs (docs/benchmarks-tags-otlp-slos.md#slos).
export const OPTIONAL_SECTIONS = ['talk', 'wiredtiger', 'cardinality', 'tags', 'slos']

// Sizes per scale. "small" is for the offline substitute (mongo-java-server
// keeps whole documents on a 512 MB JVM heap); "quick" is a smoke run.
// timerReads: busy timers (a latency a second, ~250 KB a day document) over
// `days` days and today: 100 of them are 3,100 such documents. The substitute
// holds ~2.6 MB of its heap per such document: 3 timers (93 documents) fit
// its 512 MB beside what the service holds, 10 did not.
// The cardinality section holds its 1,000,000 metrics at full and small
// alike (its point is the size), on a larger JVM heap (CARDINALITY_JAVA_HEAP).
const CARDINALITY = { metrics: 1_000_000, busy: 10_000, windowSeconds: 60, findSeconds: 5, busyPerMinute: 60 }
// The tags section (issue 28): names × combinations series in the tag index, a name of busySeries series
// with a busy hour, a name of topSeries series with topMonths whole months; full and small alike (its point is the size).
const TAGS = { names: 1000, combinations: 1000, busySeries: 10_000, topSeries: 10_000, topMonths: 12, ingestSeconds: 10, ingestConnections: 16, warmupSeconds: 2, readSeconds: 5, readConnections: 4, readMinRequests: 8, topSeconds: 20, topMinRequests: 3, settleLooks: true }
// The SLO section (issue 29): `plain` pairs of counters and `tagged` names of 4 series, an event a
// minute since the UTC day before the previous year, minutes on the last `minuteDays` days
// (MINUTE_RETENTION_DAYS=minuteRetentionDays, above the 31 a rolling month needs); one connection: a
// report's own latency, not a queue behind others on 2 cores; full and small alike.
// scrapes: GET /v1/slos and /metrics each asked at least this often (a p99 of ~85 answers, 5 s, is their maximum)
const SLOS = { plain: 40, tagged: 5, minuteDays: 34, minuteRetentionDays: 32, warmupSeconds: 1, readSeconds: 5, readConnections: 1, readMinRequests: 20, scrapes: 500, shapes: { metrics: 100, batch: 1000, rounds: 5 } }
export const SCALES = {
  full: { phaseSeconds: 10, warmupSeconds: 2, readSeconds: 5, yardstick: { connections: [1, 32], rounds: 5, seconds: 5, warmupSeconds: 1 }, reads: { metrics: 100, days: 400, perDay: 24 }, timerReads: { metrics: 100, days: 30 }, storage: { metrics: 100, perDay: 96, k: 200 }, jobs: { metrics: 100, days: 120 }, cardinality: CARDINALITY, tags: TAGS, slos: SLOS },
  small: { phaseSeconds: 8, warmupSeconds: 2, readSeconds: 5, yardstick: { connections: [1, 32], rounds: 5, seconds: 4, warmupSeconds: 1 }, reads: { metrics: 25, days: 400, perDay: 24 }, timerReads: { metrics: 3, days: 30 }, storage: { metrics: 25, perDay: 96, k: 100 }, jobs: { metrics: 25, days: 120 }, cardinality: CARDINALITY, tags: TAGS, slos: SLOS },
  quick: { phaseSeconds: 2, warmupSeconds: 1, readSeconds: 2, yardstick: { connections: [1, 32], rounds: 1, seconds: 2, warmupSeconds: 1 }, reads: { metrics: 5, days: 400, perDay: 24 }, timerReads: { metrics: 2, days: 30 }, storage: { metrics: 5, perDay: 24, k: 20 }, jobs: { metrics: 5, days: 40 }, cardinality: { metrics: 20_000, busy: 200, windowSeconds: 20, findSeconds: 2, busyPerMinute: 60 }, tags: { names: 20, combinations: 100, busySeries: 1000, topSeries: 500, topMonths: 12, ingestSeconds: 2, ingestConnections: 4, warmupSeconds: 1, readSeconds: 1, readConnections: 4, readMinRequests: 4, topSeconds: 1, topMinRequests: 5 }, slos: { plain: 3, tagged: 1, minuteDays: 34, minuteRetentionDays: 32, warmupSeconds: 0, readSeconds: 0, readConnections: 2, readMinRequests: 2, shapes: { metrics: 5, batch: 50, rounds: 1 } } }
}

// mongo-java-server keeps every document on its JVM heap: 1,000,000 metrics'
// registry entries and days took 4.3 GB live, and after the busy minutes a
// 12 GB heap was 85 % full (a 14 GB one did not leave the machine's 23.5 GB
// enough); 512 MB (the launcher's default) holds the quick scale.
export const CARDINALITY_JAVA_HEAP = '12g'
// the tags section's 1,020,002 registry entries, 10,001 day and 120,012 monthly documents
export const TAGS_JAVA_HEAP = '8g'
// the SLO section's ~72,000 day documents (~3,500 with every minute) and ~2,500 monthly ones
export const SLOS_JAVA_HEAP = '6g'

/** The embedded JVM's heap for a run (null: the launcher's default) */
export function javaHeapFor ({ only, scale }) {
  if (scale === 'quick') return null
  if (only.includes('cardinality')) return CARDINALITY_JAVA_HEAP
  if (only.includes('tags')) return TAGS_JAVA_HEAP
  return only.includes('slos') ? SLOS_JAVA_HEAP : null
}

export const BENCH_HELP = `Usage: npm run bench -- [options]

Measures statbucket on MONGODB_URI (default: the embedded database) and prints
a markdown table headed by the machine, the database backend and the versions.
Every phase is bounded in time; the whole run takes a few minutes.

  --scale S      full | small | quick | auto (default auto: full on a real mongod,
                 small on the mongo-java-server substitute, which cannot hold the full data)
  --seconds N    seconds per ingest phase (default 10 full, 8 small, 2 quick)
  --only LIST    comma-separated sections: ${SECTIONS.join(', ')} (default all of these;
                 ingest and statsd measure timers (distributions) beside counters, reads
                 a 30-day p99 over busy timers; jobs: npm run check and a retention pass, documents/s;
                 graphite: /render sumSeries over the read metrics × 24 h against /series;
                 statsd: hot-shots over TCP as fast as the service reads, then over UDP
                 at that rate; lines/s, service CPU per line, lines lost;
                 otlp: OTLP/HTTP protobuf exports of the real SDK beside StatsD TCP lines in
                 one service process, points (lines) per second of its CPU;
                 amplification: a day of ingest written as mongod writes it into WiredTiger
                 tables in three layouts, bytes written and stored per event, CPU per write,
                 scripts/bench/bench-wt-writes.js --scale bench on a replica set; builds
                 WiredTiger's Python venv the first time),
                 and, not run by default: talk, the 2012 talk's experiment (flat and
                 hierarchical layout, with and without preallocation, a simulated day each);
                 wiredtiger, bytes on disk of a month of documents (and of a busy timer's)
                 in WiredTiger tables set as MongoDB's (builds its Python venv the first time; alone, it
                 needs no database); cardinality, 1,000,000 registered metrics (10,000
                 busy) through a simulated day and its midnight: the sweep, bytes per
                 metric-day, ingest across midnight, /metrics/find (~13 min;
                 --scale quick: 20,000 metrics, ~1 min); tags, 1,000,000 tagged series:
                 the tag index's RSS per series, a tag= filter and /tags/autoComplete/values
                 p99, batched ingest with 3 tags (and a declared rollup) beside untagged,
                 top?by=…&k=10 over a year of 10,000 series (--scale quick: seconds);
                 slos, 100 SLOs over ~100 series of minutes since the previous year began:
                 each window kind and zone's report p50/p99 and documents per selector,
                 GET /v1/slos and GET /metrics (--scale quick: 4 sources, seconds)
  --wt-scale S   quick | full: the wiredtiger section's size (default full; quick takes seconds)
  --statsd-clients N  hot-shots processes of the statsd section (default 2: more lines/s
                 than 1 on 2 cores; they share the cores with the service)
  --talk-speedup N  simulated time speed of the talk section (default 300, the talk's:
                 4 runs of 290 s; raise it for a shorter, noisier run)
  --json         print the figures as JSON on stdout (the markdown goes to stderr)
  --keep         keep the benchmark's database (statbucket_bench_<random>) afterwards
  --write-docs   also write the run (its heading, targets and notes) into docs/benchmarks.md,
                 between its bench:latest markers (a run of the default sections only), and
                 the amplification table between its bench:amplification markers (alone:
                 --only amplification --write-docs); the tags, otlp and slos tables between
                 their own in docs/benchmarks-tags-otlp-slos.md (--only tags, otlp or slos)
  --help         this text
`

export function parseBenchArgs (argv) {
  const { values } = parseFlags(argv, {
    scale: { type: 'string' },
    seconds: { type: 'string' },
    only: { type: 'string' },
    'talk-speedup': { type: 'string' },
    'statsd-clients': { type: 'string' },
    'wt-scale': { type: 'string' },
    json: { type: 'boolean' },
    keep: { type: 'boolean' },
    'write-docs': { type: 'boolean' }
  })
  if (values.help) return { help: true }
  const scale = values.scale ?? 'auto'
  if (!['auto', ...Object.keys(SCALES)].includes(scale)) throw new UsageError(`--scale must be auto, full, small or quick, got ${JSON.stringify(scale)}`)
  let seconds = null
  if (values.seconds !== undefined) {
    seconds = Number(values.seconds)
    if (!Number.isInteger(seconds) || seconds < 1 || seconds > 600) throw new UsageError(`--seconds must be a whole number from 1 to 600, got ${JSON.stringify(values.seconds)}`)
  }
  let only = SECTIONS
  if (values.only !== undefined) {
    only = values.only.split(',').map(s => s.trim()).filter(Boolean)
    const unknown = only.filter(s => !SECTIONS.includes(s) && !OPTIONAL_SECTIONS.includes(s))
    if (unknown.length || only.length === 0) throw new UsageError(`--only takes ${[...SECTIONS, ...OPTIONAL_SECTIONS].join(', ')}; got ${JSON.stringify(values.only)}`)
  }
  let talkSpeedup = 300
  if (values['talk-speedup'] !== undefined) {
    talkSpeedup = Number(values['talk-speedup'])
    if (!Number.isFinite(talkSpeedup) || talkSpeedup < 10 || talkSpeedup > 100_000) throw new UsageError(`--talk-speedup must be a number from 10 to 100000, got ${JSON.stringify(values['talk-speedup'])}`)
  }
  let statsdClients = 2
  if (values['statsd-clients'] !== undefined) {
    statsdClients = Number(values['statsd-clients'])
    if (!Number.isInteger(statsdClients) || statsdClients < 1 || statsdClients > 16) throw new UsageError(`--statsd-clients must be a whole number from 1 to 16, got ${JSON.stringify(values['statsd-clients'])}`)
  }
  const wtScale = values['wt-scale'] ?? 'full'
  if (!['quick', 'full'].includes(wtScale)) throw new UsageError(`--wt-scale must be quick or full, got ${JSON.stringify(values['wt-scale'])}`)
  const writeDocs = Boolean(values['write-docs'])
  if (writeDocs && values.only !== undefined && !['amplification', 'tags', 'otlp', 'slos'].includes(values.only.trim())) throw new UsageError('--write-docs records a run of the default sections (or --only amplification, tags, otlp or slos): leave out --only')
  return { scale, seconds, only, talkSpeedup, statsdClients, wtScale, json: Boolean(values.json), keep: Boolean(values.keep), writeDocs }
}

/** The scale to run: asked, or by backend (auto) */
export function chooseScale (asked, backend) {
  if (asked !== 'auto') return asked
  return backend === 'mongo-java-server' ? 'small' : 'full'
}
