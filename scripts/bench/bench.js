#!/usr/bin/env node
// Benchmarks statbucket on MONGODB_URI (default: the embedded database) and
// prints a markdown table of the figures measured side by side in this run.
// `npm run bench -- --help`.
import { randomBytes } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { EXIT, defineCommand, runIfMain } from '../../src/cli.js'
import { ConfigError, loadConfig } from '../../src/config.js'
import { detectBackend } from '../../src/db/capabilities.js'
import { NOISY_BELOW } from '../loadgen/summary.js'
import { connectMongo } from '../loadgen/mongo-target.js'
import { BENCH_HELP, SCALES, WITHOUT_DATABASE, chooseScale, javaHeapFor, parseBenchArgs } from './bench-args.js'
import { evaluateTargets, fmt, renderMarkdown } from './bench-report.js'
import { writeLatestRun, writeSection } from './bench-docs.js'
import { describeBackend, describeMachine, versions } from './bench-env.js'
import { benchHttpBatched, benchNaive, benchSingle, benchWriter, dailySum } from './bench-ingest.js'
import { benchReads, seedReads } from './bench-reads.js'
import { benchGraphite } from './bench-graphite.js'
import { benchStorage } from './bench-storage.js'
import { benchJobs } from './bench-jobs.js'
import { benchTalk } from './bench-talk.js'
import { benchStatsd } from './bench-statsd.js'
import { benchOtlp } from './bench-otlp.js'
import { SERVICE_NODE_FLAGS } from '../../src/heap-growth.js'
import { otlpSection } from './otlp-report.js'
import { benchCardinality } from './bench-cardinality.js'
import { benchTags } from './bench-tags.js'
import { tagsTable } from './tags-report.js'
import { benchSlos } from './bench-slos.js'
import { slosTable } from './slos-report.js'
import { startServerProcess } from './server-process.js'
import { documentSizes } from './bench-sizes.js'
import { benchWiredtiger, renderWiredtiger, wiredtigerPython } from './bench-wiredtiger.js'
import { amplificationSection, benchWtWrites, renderWtWrites } from './bench-wt-writes.js'
import { benchTimerReads, distributionCount, seedTimerReads } from './bench-timers.js'
import { benchYardstick } from './bench-yardstick.js'
import { timerDocumentSizes } from './timer-workload.js'

const log = (msg) => process.stderr.write(`bench: ${msg}\n`)

/** javaHeap: the substitute's JVM heap when it is the one started (null: its default) */
async function openDatabase ({ javaHeap }) {
  if (process.env.MONGODB_URI) return { uri: process.env.MONGODB_URI, how: 'MONGODB_URI', stop: async () => {} }
  log(`MONGODB_URI is unset: starting the embedded database${javaHeap ? ` (mongo-java-server, if it comes to that, with a ${javaHeap} heap)` : ''}`)
  const { startEmbeddedMongo } = await import('../../src/db/embedded.js')
  const embedded = await startEmbeddedMongo({ persistent: false, ...(javaHeap ? { javaHeap } : {}) })
  return { uri: embedded.uri, how: 'embedded', backend: embedded.backend, pid: embedded.pid ?? null, javaHeap: embedded.backend === 'mongo-java-server' ? javaHeap ?? '512m' : null, stop: () => embedded.stop() }
}

async function runWiredtiger (opts) {
  log(`wiredtiger: a month of documents in WiredTiger tables (--wt-scale ${opts.wtScale})`)
  return benchWiredtiger({ scale: opts.wtScale, python: wiredtigerPython({ log }), log })
}

/** The amplification section (bench-wt-writes.js at its bench scale, a replica set); a failure is the section's n/a, not the run's */
async function runAmplification (argv) {
  log('amplification: a day of ingest written as mongod writes it into WiredTiger tables, three layouts (bench-wt-writes.js --scale bench, a replica set)')
  const started = new Date()
  try {
    const figures = await benchWtWrites({ scale: 'bench', modes: ['replset'], python: wiredtigerPython({ log }), log })
    return { ...figures, date: started.toISOString().replace(/\.\d+Z$/, 'Z'), command: `npm run bench${argv.length ? ' -- ' + argv.filter(a => a !== '--write-docs').join(' ') : ''}` }
  } catch (err) {
    log(`amplification: n/a (${err.message})`)
    return { error: err.message }
  }
}

const renderAmplification = (figures) => figures.error ? amplificationSection(figures) + '\n' : renderWtWrites(figures)

/** The tags table the page keeps: the run's heading line, the load, the table (tags-report.js) */
function tagsDocSection ({ env, tags }) {
  const m = env.machine
  return [`**Run** ${env.date} · \`${env.command.replace(/ --write-docs/, '')}\` · ${env.backend.name ?? env.backend.description.split(' (')[0]}${tags.javaHeap ? ` (heap ${tags.javaHeap})` : ''} · ${m.cores} cores, load ${m.loadAverage?.toFixed(1) ?? 'n/a'}`, '', ...tagsTable(tags)].join('\n')
}

/** The otlp table the page keeps: the run's heading line and target, the section's table and check (otlp-report.js; the page says what it measures) */
function otlpDocSection ({ env, otlp, targets }) {
  const m = env.machine
  const judged = targets.find(t => t.key === 'otlpVsStatsd')
  return [`**Run** ${env.date} · \`${env.command.replace(/ --write-docs/, '')}\` · ${env.backend.name ?? env.backend.description.split(' (')[0]} · ${m.cores} cores, load ${m.loadAverage?.toFixed(1) ?? 'n/a'} · ratio ${fmt(judged?.value, 2)} (target ≥ 0.5: ${judged?.met ? 'met' : '**not met**'})`, '', ...otlpSection(otlp).slice(2)].join('\n')
}

/** The slos table the page keeps: the run's heading line, the table (slos-report.js) */
function slosDocSection ({ env, slos }) {
  const m = env.machine
  return [`**Run** ${env.date} · \`${env.command.replace(/ --write-docs/, '')}\` · ${env.backend.name ?? env.backend.description.split(' (')[0]}${slos.javaHeap ? ` (heap ${slos.javaHeap})` : ''} · ${m.cores} cores, load ${m.loadAverage?.toFixed(1) ?? 'n/a'}`, '', ...slosTable(slos)].join('\n')
}

const BENCHMARKS_PAGE = join(import.meta.dirname, '../../docs/benchmarks.md')
// the tables of OTLP's, the tags' and the SLOs' sections (docs/benchmarks-tags-otlp-slos.md)
const SECTIONS_PAGE = join(import.meta.dirname, '../../docs/benchmarks-tags-otlp-slos.md')

async function runBench (opts, { argv }) {
  if (opts.only.every(s => WITHOUT_DATABASE.includes(s))) {
    // needs no database: their own tables only
    const started = Date.now()
    const figures = {}
    if (opts.only.includes('wiredtiger')) figures.wiredtiger = await runWiredtiger(opts)
    if (opts.only.includes('amplification')) figures.amplification = await runAmplification(argv)
    const markdown = [figures.wiredtiger && renderWiredtiger(figures.wiredtiger), figures.amplification && renderAmplification(figures.amplification)].filter(Boolean).join('\n')
    if (opts.json) {
      process.stderr.write('\n' + markdown)
      process.stdout.write(JSON.stringify(figures, null, 2) + '\n')
    } else process.stdout.write('\n' + markdown)
    if (opts.writeDocs && figures.amplification) {
      writeFileSync(BENCHMARKS_PAGE, writeSection(readFileSync(BENCHMARKS_PAGE, 'utf8'), 'amplification', amplificationSection(figures.amplification)))
      log('wrote the amplification table into docs/benchmarks.md (between its bench:amplification markers)')
    }
    log(`done in ${((Date.now() - started) / 1000).toFixed(0)} s`)
    return EXIT.OK
  }
  const config = loadConfig({ ...process.env, MONGODB_URI: '' })

  const started = new Date()
  const machine = describeMachine() // before anything of ours runs: its load average is the others'
  const database = await openDatabase({ javaHeap: javaHeapFor(opts) })
  const client = await connectMongo(database.uri)
  const dbName = `statbucket_bench_${randomBytes(4).toString('hex')}`
  const db = client.db(dbName)
  let server = null
  const figures = { notes: [] }
  try {
    const backendName = database.backend ?? await detectBackend(db)
    const scaleName = chooseScale(opts.scale, backendName)
    const scale = { ...SCALES[scaleName] }
    if (opts.seconds) scale.phaseSeconds = opts.seconds
    const backend = await describeBackend(db, { backend: backendName, how: database.how, uri: database.uri })
    const full = SCALES.full
    const scaleDescription = scaleName === 'full'
      ? `full: ${scale.phaseSeconds} s per ingest phase; reads over ${full.reads.metrics} metrics × ${full.reads.days} days; timer reads over ${full.timerReads.metrics} busy timers × ${full.timerReads.days} days; storage comparison ${full.storage.metrics} metrics × 31 days × ${full.storage.perDay} events per day`
      : `${scaleName}${opts.scale === 'auto' ? ` (chosen because the backend is ${backendName})` : ''}: ${scale.phaseSeconds} s per ingest phase; reads over ${scale.reads.metrics} metrics × ${scale.reads.days} days instead of ${full.reads.metrics} × ${full.reads.days}; timer reads over ${scale.timerReads.metrics} busy timers × ${scale.timerReads.days} days instead of ${full.timerReads.metrics} × ${full.timerReads.days}; storage comparison ${scale.storage.metrics} metrics × 31 days × ${scale.storage.perDay} events per day instead of ${full.storage.metrics} × 31 × ${full.storage.perDay}`
    figures.env = {
      date: started.toISOString().replace(/\.\d+Z$/, 'Z'),
      command: `npm run bench${argv.length ? ' -- ' + argv.join(' ') : ''}`,
      machine,
      ...versions(),
      backend,
      scale: { name: scaleName, description: scaleDescription, ...scale },
      service: `statbucket child process on 127.0.0.1, FLUSH_INTERVAL_MS=${config.flushIntervalMs}, FLUSH_MAX_DOCS=${config.flushMaxDocs}, MAX_PENDING_EVENTS=${config.maxPendingEvents}, PREALLOC_PROBABILITY=${config.preallocProbability}, HEAP_GROWTH_PERCENT=${config.heapGrowthPercent}, node ${SERVICE_NODE_FLAGS.join(' ')}, preallocation sweep off; load generator, service and database share this machine's ${machine.cores} cores`
    }
    log(`database ${backend.description}; scale ${scaleName}; database name ${dbName}`)

    const wantServer = opts.only.some(s => !['storage', 'talk', 'jobs', 'statsd', 'otlp', 'cardinality', 'tags', 'slos', ...WITHOUT_DATABASE].includes(s))
    const rssByPhase = {}
    if (wantServer) {
      server = await startServerProcess({ MONGODB_URI: database.uri, MONGODB_DB: dbName, LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn' })
      log(`statbucket listening at ${server.url} (pid ${server.pid})`)
    }

    if (opts.only.includes('ingest')) {
      const s = scale.phaseSeconds
      log(`ingest: naive per-event upserts, ${s} s`)
      const naive = await benchNaive({ db, seconds: s })
      log(`  ${fmt(naive.eventsPerS)} events/s`)
      log(`ingest: in-process coalescing writer, ${s} s`)
      const writer = await benchWriter({ db, seconds: s, dbPid: database.pid })
      log(`  ${fmt(writer.eventsPerS)} events/s`)
      log(`ingest: HTTP batches of 1,000, ${scale.warmupSeconds} s warm-up + ${s} s`)
      const http = await benchHttpBatched({ server, seconds: s, warmupSeconds: scale.warmupSeconds, dbPid: database.pid })
      log(`  ${fmt(http.eventsPerS)} events/s`)
      const inDb = await dailySum(db, 'bench.http.')
      http.check = inDb >= http.acknowledgedEvents && inDb <= http.sentEvents
        ? `yes (${fmt(http.acknowledgedEvents)} acknowledged, ${fmt(inDb)} in the day documents)`
        : `**NO** (${fmt(http.acknowledgedEvents)} acknowledged, ${fmt(inDb)} in the day documents, ${fmt(http.sentEvents)} sent)`
      rssByPhase['batched ingest'] = http.rssPeakBytes
      // the same batches of timer values (distributions), right after: side by side
      log(`ingest: HTTP batches of 1,000 timer values (kind distribution), ${scale.warmupSeconds} s warm-up + ${s} s`)
      const httpTimer = await benchHttpBatched({ server, seconds: s, warmupSeconds: scale.warmupSeconds, prefix: 'bench.timer.http.', timers: true, dbPid: database.pid })
      log(`  ${fmt(httpTimer.eventsPerS)} values/s, ${fmt(httpTimer.service.cpuUsPerRequest / httpTimer.batch, 2)} µs of service CPU per value`)
      const timerValues = await distributionCount(db, 'bench.timer.http.')
      httpTimer.check = timerValues >= httpTimer.acknowledgedEvents && timerValues <= httpTimer.sentEvents
        ? `yes (${fmt(httpTimer.acknowledgedEvents)} acknowledged, ${fmt(timerValues)} counted in the day documents)`
        : `**NO** (${fmt(httpTimer.acknowledgedEvents)} acknowledged, ${fmt(timerValues)} counted in the day documents, ${fmt(httpTimer.sentEvents)} sent)`
      rssByPhase['batched timers'] = httpTimer.rssPeakBytes
      // the same HTTP batches with a fixed 10 ms cut instead of adaptive group commit
      log(`ingest: HTTP batches of 1,000 with FLUSH_INTERVAL_MS=10, ${scale.warmupSeconds} s warm-up + ${s} s`)
      const fixed = await startServerProcess({ MONGODB_URI: database.uri, MONGODB_DB: dbName, LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn', FLUSH_INTERVAL_MS: '10' })
      let httpFixed
      try {
        httpFixed = await benchHttpBatched({ server: fixed, seconds: s, warmupSeconds: scale.warmupSeconds, prefix: 'bench.http10.', dbPid: database.pid })
      } finally {
        await fixed.stop()
      }
      log(`  ${fmt(httpFixed.eventsPerS)} events/s`)
      rssByPhase['batched ingest, FLUSH_INTERVAL_MS=10 (its own process)'] = httpFixed.rssPeakBytes
      figures.ingest = { naive, writer, http, httpTimer, httpFixed }
    }
    if (opts.only.includes('single')) {
      log(`single-event requests: 64 connections, ${scale.warmupSeconds} s warm-up + ${scale.phaseSeconds} s`)
      figures.single = await benchSingle({ server, seconds: scale.phaseSeconds, warmupSeconds: scale.warmupSeconds, dbPid: database.pid })
      log(`  ${fmt(figures.single.requestsPerS)} req/s, p99 ${figures.single.p99Ms} ms`)
      rssByPhase['single-event'] = figures.single.rssPeakBytes
      const y = scale.yardstick
      log(`single-event requests beside the naive writer and the bare route: ${y.connections.join(' and ')} connections, ${y.rounds} rounds of ${y.warmupSeconds} s warm-up + ${y.seconds} s each, in turns`)
      figures.yardstick = await benchYardstick({ uri: database.uri, dbName, dbPid: database.pid, connectionCounts: y.connections, rounds: y.rounds, seconds: y.seconds, warmupSeconds: y.warmupSeconds, log })
      rssByPhase['single-event beside the yardsticks'] = figures.yardstick.rssPeakBytes
    }
    let readSeed = null
    if (opts.only.includes('reads') || opts.only.includes('graphite')) {
      log(`reads: seeding ${scale.reads.metrics} metrics × ${scale.reads.days} days`)
      const t0 = performance.now()
      readSeed = await seedReads(db, scale.reads)
      log(`  seeded ${fmt(readSeed.dailyDocs)} daily documents in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
    }
    if (opts.only.includes('reads')) {
      const seed = readSeed
      log(`reads: 4 queries × ${scale.readSeconds} s`)
      const reads = await benchReads({ server, db, seed, seconds: scale.readSeconds })
      figures.reads = { ...reads, seed: { metrics: seed.metrics.length, days: seed.days, eventsPerDay: seed.perDay, dailyDocs: seed.dailyDocs, monthlyDocs: seed.monthlyDocs } }
      rssByPhase.reads = reads.rssPeakBytes
    }
    if (opts.only.includes('graphite')) {
      log(`graphite: /render sumSeries over ${readSeed.metrics.length} metrics × 24 h against ${readSeed.metrics.length} /series requests, ${scale.readSeconds} s each`)
      await server.resetPeak()
      figures.graphite = await benchGraphite({ server, seed: readSeed, seconds: scale.readSeconds })
      rssByPhase.graphite = (await server.stats()).rssPeak
      log(`  /render p50 ${fmt(figures.graphite.render.p50Ms, 0)} ms, /series × ${readSeed.metrics.length} p50 ${fmt(figures.graphite.series.p50Ms, 0)} ms; same total: ${figures.graphite.sameTotal}`)
    }
    if (opts.only.includes('reads')) {
      const t = scale.timerReads
      // the counters' reads and the ingest phases are done with: their documents go, so the busy
      // timers' fit (mongo-java-server holds ~2.6 MB of heap per 250 KB day document)
      for (const name of ['daily', 'monthly', 'distributionDaily', 'distributionMonthly']) await db.collection(name).drop().catch(() => {})
      log(`timer reads: seeding ${t.metrics} busy timers × ${t.days} days and today (a latency a second)`)
      const t0 = performance.now()
      const seed = await seedTimerReads(db, { ...t, log })
      log(`  seeded ${fmt(seed.dailyDocs)} day + ${fmt(seed.monthlyDocs)} monthly documents (${fmt(seed.dailyBytes / 1e6, 0)} MB of day documents) in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
      log(`timer reads: 2 queries × ${scale.readSeconds} s`)
      const timerReads = await benchTimerReads({ server, db, seed, seconds: scale.readSeconds })
      for (const q of timerReads.queries) log(`  ${q.name}: p50 ${fmt(q.p50Ms, 0)} ms, p99 ${fmt(q.p99Ms, 0)} ms, ${fmt(q.docsPerQuery, 1)} documents`)
      figures.timerReads = { ...timerReads, seed: { metrics: seed.metrics.length, days: seed.days, perSecond: seed.perSecond, dailyDocs: seed.dailyDocs, monthlyDocs: seed.monthlyDocs, dailyBytes: seed.dailyBytes, values: seed.values, dayBuckets: seed.dayBuckets } }
      rssByPhase['timer reads'] = timerReads.rssPeakBytes
    }
    // sizes are computed (BSON), the same on any backend: always part of the report
    figures.sizes = [documentSizes({ value: 7 }), documentSizes({ value: 12345.5 })]
    figures.timerSizes = timerDocumentSizes()
    if (server) {
      await server.stop()
      server = null
    }
    if (opts.only.includes('statsd')) {
      // its own child, with the StatsD listeners on; the one above is stopped (it would only hold memory)
      figures.statsd = await benchStatsd({ uri: database.uri, dbName, db, dbPid: database.pid, seconds: scale.phaseSeconds, warmupSeconds: scale.warmupSeconds, clients: opts.statsdClients, log })
      rssByPhase.statsd = figures.statsd.rssPeakBytes
    }
    if (opts.only.includes('otlp')) {
      // its own child with StatsD on: OTLP points and StatsD lines per core of one process
      figures.otlp = await benchOtlp({ uri: database.uri, dbName, db, dbPid: database.pid, seconds: scale.phaseSeconds, warmupSeconds: scale.warmupSeconds, clients: opts.statsdClients, log })
      rssByPhase.otlp = figures.otlp.rssPeakBytes
    }
    if (wantServer || opts.only.includes('statsd') || opts.only.includes('otlp')) {
      figures.rss = { peakBytes: Math.max(0, ...Object.values(rssByPhase)), byPhase: rssByPhase }
    }
    if (opts.only.includes('storage')) {
      // The service's collections are done with: free the database's memory first.
      for (const name of ['daily', 'monthly', 'distributionDaily', 'distributionMonthly', 'metrics']) await db.collection(name).drop().catch(() => {})
      log(`storage comparison: ${scale.storage.metrics} metrics × 31 days × ${scale.storage.perDay} events per day`)
      figures.storage = await benchStorage(db, { ...scale.storage, log })
      for (const name of figures.storage.collections) await db.collection(name).drop().catch(() => {})
    }

    if (opts.only.includes('jobs')) {
      log(`jobs: check and a retention pass over ${scale.jobs.metrics} metrics × ${scale.jobs.days} days`)
      figures.jobs = await benchJobs(db, { ...scale.jobs, log })
    }

    if (opts.only.includes('wiredtiger')) figures.wiredtiger = await runWiredtiger(opts)
    if (opts.only.includes('amplification')) figures.amplification = await runAmplification(argv)

    if (opts.only.includes('talk')) {
      figures.talk = await benchTalk({ uri: database.uri, dbName, speedup: opts.talkSpeedup, log })
    }

    if (opts.only.includes('cardinality')) {
      // its own service child on a simulated clock, and its own database (dropped when it ends)
      figures.cardinality = await benchCardinality({ uri: database.uri, dbName: `${dbName}_card`, scale: scale.cardinality, keep: opts.keep, log })
      figures.cardinality.javaHeap = database.javaHeap ?? null
      const full = SCALES.full.cardinality
      if (scale.cardinality.metrics !== full.metrics) figures.notes.push(`Cardinality scaled down (${scaleName}): ${fmt(scale.cardinality.metrics)} metrics (${fmt(scale.cardinality.busy)} busy) instead of ${fmt(full.metrics)} (${fmt(full.busy)}).`)
    }

    if (opts.only.includes('tags')) {
      // its own service children and databases (dropped when it ends)
      figures.tags = await benchTags({ uri: database.uri, dbName: `${dbName}_tags`, scale: scale.tags, dbPid: database.pid, keep: opts.keep, log })
      figures.tags.javaHeap = database.javaHeap ?? null
      const full = SCALES.full.tags
      if (scale.tags.names * scale.tags.combinations !== full.names * full.combinations) figures.notes.push(`Tags scaled down (${scaleName}): ${fmt(scale.tags.names * scale.tags.combinations)} series in the index, ${fmt(scale.tags.busySeries)} on the filtered name, top over ${fmt(scale.tags.topSeries)} instead of ${fmt(full.names * full.combinations)}, ${fmt(full.busySeries)} and ${fmt(full.topSeries)}.`)
    }

    if (opts.only.includes('slos')) {
      // its own service child and database (dropped when it ends)
      figures.slos = await benchSlos({ uri: database.uri, dbName: `${dbName}_slos`, scale: scale.slos, keep: opts.keep, log })
      figures.slos.javaHeap = database.javaHeap ?? null
    }

    if (figures.talk?.runs.some(r => r.requestsPerMinute < NOISY_BELOW)) {
      figures.notes.push(`The talk's runs averaged fewer than ${NOISY_BELOW} requests per simulated minute: their per-minute figures are noise; lower --talk-speedup.`)
    }
    if (backendName === 'mongo-java-server') {
      figures.notes.push('mongo-java-server is an in-memory Java imitation of MongoDB (no WiredTiger, no storage engine sizes, time series collections made plain): its figures show statbucket\'s own costs and the relative gains, not what a real mongod does.')
    }
    figures.targets = evaluateTargets(figures).map(({ key, value, limit, op, met }) => ({ key, value, limit, op, met }))
  } finally {
    if (server) await server.stop().catch(() => {})
    if (!opts.keep) await db.dropDatabase().catch(() => {})
    await client.close()
    await database.stop()
  }

  const run = renderMarkdown(figures)
  const markdown = run + (figures.wiredtiger ? '\n' + renderWiredtiger(figures.wiredtiger) : '') + (figures.amplification ? '\n' + renderAmplification(figures.amplification) : '')
  if (opts.json) {
    process.stderr.write('\n' + markdown)
    process.stdout.write(JSON.stringify(figures, null, 2) + '\n')
  } else {
    process.stdout.write('\n' + markdown)
  }
  if (opts.writeDocs && figures.slos) {
    writeFileSync(SECTIONS_PAGE, writeSection(readFileSync(SECTIONS_PAGE, 'utf8'), 'slos', slosDocSection(figures)))
    log('wrote the slos table into docs/benchmarks-tags-otlp-slos.md (between its bench:slos markers)')
  } else if (opts.writeDocs && figures.tags) {
    writeFileSync(SECTIONS_PAGE, writeSection(readFileSync(SECTIONS_PAGE, 'utf8'), 'tags', tagsDocSection(figures)))
    log('wrote the tags table into docs/benchmarks-tags-otlp-slos.md (between its bench:tags markers)')
  } else if (opts.writeDocs && figures.otlp && opts.only.length === 1) {
    writeFileSync(SECTIONS_PAGE, writeSection(readFileSync(SECTIONS_PAGE, 'utf8'), 'otlp', otlpDocSection(figures)))
    log('wrote the otlp table into docs/benchmarks-tags-otlp-slos.md (between its bench:otlp markers)')
  } else if (opts.writeDocs) {
    let page = writeLatestRun(readFileSync(BENCHMARKS_PAGE, 'utf8'), run)
    if (figures.amplification) page = writeSection(page, 'amplification', amplificationSection(figures.amplification))
    writeFileSync(BENCHMARKS_PAGE, page)
    log('wrote the run into docs/benchmarks.md (between its bench:latest markers, and the amplification table between its own)')
  }
  log(`done in ${((Date.now() - started) / 1000).toFixed(0)} s`)
  return EXIT.OK
}

export const main = defineCommand({ name: 'bench', usage: BENCH_HELP, parse: parseBenchArgs, run: runBench, badSettings: [ConfigError] })

runIfMain(import.meta.url, 'bench', main)
