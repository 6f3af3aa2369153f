#!/usr/bin/env node
// Write amplification on WiredTiger (docs/benchmarks.md#write-amplification-on-wiredtiger,
// docs/adr/0056-wiredtiger-write-amplification.md): a day of ingest
// (wt-writes-workload.js) written through mongod's update path
// (wt-writes-store.js, mongod-update.js) into WiredTiger databases set as
// mongod's (scripts/bench/wiredtiger/writes.py, in the venv of setup-venv.sh),
// one per population × layout × compressor × mode; bytes written to disk per
// event (the block manager's and the journal's, from the statistics
// cursor), bytes stored per event, CPU per write.
//
//   node scripts/bench/bench-wt-writes.js [--scale quick|bench|full] [--mode replset|standalone|both] [--json] [--check]
//   npm run bench -- --only amplification
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { EXIT, UsageError, defineCommand, parseFlags, runIfMain } from '../../src/cli.js'
import { writeSection } from './bench-docs.js'
import { wiredtigerPython } from './bench-wiredtiger.js'
import { createDatabase, createRecordStream } from './wt-writes-store.js'
import { LAYOUTS, createDay, runDay, sampledMinutes } from './wt-writes-workload.js'

const WRITES = fileURLToPath(new URL('./wiredtiger/writes.py', import.meta.url))
export const BENCHMARKS_PAGE = fileURLToPath(new URL('../../docs/benchmarks.md', import.meta.url))

/** The issue's day: 10,000 counters (100 busy), 100 timers */
export const FULL_DAY = Object.freeze({ counters: 10_000, busy: 100, timers: 100 })
/**
 * Scales: the full day's metrics (quick: fewer), one minute measured in each
 * `every` per population (sampledMinutes). Timers are not fewer at bench and
 * full: an append-only table (the oplog, raw events) is rewritten up to its
 * in-memory page's 10 MB at each checkpoint, whatever its rate, so its bytes
 * per event depend on how many events share them.
 */
export const WT_WRITES_SCALES = Object.freeze({
  quick: Object.freeze({ counters: 1_000, busy: 10, timers: 10, every: Object.freeze({ counters: 240, timers: 240 }) }),
  bench: Object.freeze({ counters: 10_000, busy: 100, timers: 100, every: Object.freeze({ counters: 120, timers: 240 }) }),
  full: Object.freeze({ counters: 10_000, busy: 100, timers: 100, every: Object.freeze({ counters: 15, timers: 60 }) })
})
export const COMPRESSORS = Object.freeze(['snappy', 'zstd'])
export const MODES = Object.freeze(['replset', 'standalone'])

/** A writes.py process: write(buffer), report() → its JSON */
function writesProcess (python, { compressor, mode }) {
  const child = spawn(python, [WRITES, '--compressor', compressor, '--mode', mode], { stdio: ['pipe', 'pipe', 'inherit'] })
  let out = ''
  child.stdout.on('data', (d) => { out += d })
  const exited = new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code) => code === 0 ? resolve() : reject(new Error(`writes.py (${compressor}, ${mode}) exited ${code}`)))
  })
  exited.catch(() => {})
  return {
    async write (buf) {
      if (!child.stdin.write(buf)) await Promise.race([once(child.stdin, 'drain'), exited])
    },
    async report () {
      child.stdin.end()
      await exited
      return JSON.parse(out)
    }
  }
}

/**
 * The figures of one database from its report and the run's segments:
 * bytes written (block manager, journal) and events, each minute by its
 * weight; bytes stored (the tables' live bytes after the day less before,
 * the oplog left out); CPU per write over the measured minutes.
 * inserted: the events stored (raw: the sampled minutes' only; else all the day's).
 */
export function databaseFigures (report, segments, { inserted }) {
  if (report.segments.length !== segments.length) throw new Error(`writes.py measured ${report.segments.length} segments, the run ${segments.length}`)
  let events = 0
  const written = { block: 0, log: 0, checkpoint: 0 }
  const measured = { writes: 0, modifies: 0, updates: 0, modifiedUpdates: 0, inserts: 0, cpuOps: 0, cpuCheckpoint: 0, historyInserts: 0, historyFullValues: 0, historyReverseModifies: 0, historyBytes: 0, dirtyEvictions: 0, logPayloadBytes: 0 }
  let writes = 0
  const perMinute = [] // bytes written per event of each measured minute: the spread of the estimate
  report.segments.forEach((seg, i) => {
    const w = segments[i].weight
    perMinute.push(Math.round((seg.blockBytes + seg.logBytes) / segments[i].events))
    events += w * segments[i].events
    written.block += w * seg.blockBytes
    written.log += w * seg.logBytes
    written.checkpoint += w * seg.checkpointBytes
    const n = seg.inserts + seg.modifies + seg.updates
    writes += w * n
    measured.writes += n
    for (const k of Object.keys(measured)) if (k !== 'writes') measured[k] += seg[k]
  })
  const [before, after] = [report.marks[0], report.marks[report.marks.length - 1]]
  let stored = 0
  for (const [name, t] of Object.entries(after.tables)) {
    const b = before.tables[name] ?? { live: 0, indexLive: 0 }
    stored += t.live + t.indexLive - b.live - b.indexLive
  }
  return {
    compressor: report.compressor,
    mode: report.mode,
    events,
    writesPerEvent: writes / events,
    inPlaceShare: measured.writes ? measured.modifies / measured.writes : 0,
    writtenPerEvent: (written.block + written.log) / events,
    blockPerEvent: written.block / events,
    logPerEvent: written.log / events,
    storedPerEvent: stored / inserted,
    cpuPerWriteUs: measured.writes ? 1e6 * (measured.cpuOps + measured.cpuCheckpoint) / measured.writes : null,
    checkpointCpuPerWriteUs: measured.writes ? 1e6 * measured.cpuCheckpoint / measured.writes : null,
    measured,
    perMinute
  }
}

/** The day's total of a layout: counters plus timers multiplied up to FULL_DAY's → { events, written, stored } per compressor × mode, bytes per event */
export function dayTotal (rows, scale) {
  const k = FULL_DAY.timers / scale.timers
  const out = []
  for (const layout of LAYOUTS) {
    const counters = rows.find(r => r.population === 'counters' && r.layout === layout)
    const timers = rows.find(r => r.population === 'timers' && r.layout === layout)
    if (!counters || !timers) continue
    const runs = counters.runs.map((c) => {
      const t = timers.runs.find(x => x.compressor === c.compressor && x.mode === c.mode)
      const events = c.events + k * t.events
      return {
        compressor: c.compressor,
        mode: c.mode,
        events,
        writtenPerEvent: (c.writtenPerEvent * c.events + k * t.writtenPerEvent * t.events) / events,
        storedPerEvent: (c.storedPerEvent * c.events + k * t.storedPerEvent * t.events) / events,
        writtenPerDay: c.writtenPerEvent * c.events + k * t.writtenPerEvent * t.events
      }
    })
    out.push({ layout, runs })
  }
  return out
}

/**
 * Runs each population's day through the three layouts, each layout's
 * records to one writes.py per compressor × mode.
 * → { scale, every, modes, wiredtiger, rows: [{ population, layout, runs: [databaseFigures] }], total }
 */
export async function benchWtWrites ({ scale = 'bench', modes = MODES, flushSeconds = 1, python, log = () => {} } = {}) {
  const s = WT_WRITES_SCALES[scale]
  const rows = []
  let wiredtiger = null
  for (const population of ['counters', 'timers']) {
    const t0 = performance.now()
    const minutes = sampledMinutes(s.every[population])
    const day = createDay({ kind: population, counters: s.counters, busy: s.busy, timers: s.timers, seed: population === 'counters' ? 1 : 4 })
    const databases = {}
    for (const layout of LAYOUTS) {
      const stream = createRecordStream()
      const sinks = []
      for (const mode of modes) for (const compressor of COMPRESSORS) sinks.push({ mode, compressor, process: writesProcess(python, { compressor, mode }) })
      databases[layout] = {
        db: createDatabase({ stream, oplog: modes.includes('replset') }),
        stream,
        sinks,
        async flush () {
          if (stream.size < (1 << 20) && !this.final) return
          const frame = stream.take()
          if (frame) await Promise.all(sinks.map(k => k.process.write(frame)))
        }
      }
    }
    log(`${population}: ${population === 'counters' ? `${s.counters.toLocaleString('en-US')} counters, ${s.busy} busy` : `${s.timers} timers`}; ${minutes.size} minutes measured (1 in ${s.every[population]}), ${LAYOUTS.length} layouts × ${COMPRESSORS.length} compressors × ${modes.length} mode${modes.length > 1 ? 's' : ''}`)
    const run = await runDay({ day, databases, minutes, flushSeconds, log })
    for (const layout of LAYOUTS) {
      const d = databases[layout]
      d.final = true
      await d.flush()
      const inserted = layout === 'raw' ? run.segments.reduce((n, x) => n + x.events, 0) : run.events
      const runs = []
      for (const sink of d.sinks) {
        const report = await sink.process.report()
        wiredtiger ??= report.wiredtiger
        runs.push(databaseFigures(report, run.segments, { inserted }))
      }
      rows.push({ population, layout, dayEvents: run.events, runs })
    }
    log(`  ${population} done in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
  }
  return { scale, ...s, modes, flushSeconds, wiredtiger, rows, total: dayTotal(rows, s) }
}

const fmt = (n, digits = 0) => n === null || n === undefined || !Number.isFinite(n) ? '–' : n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
const LAYOUT_LABEL = { day: '(a) day', hour: '(b) hour', raw: '(c) raw' }

/** One mode's table: population × layout; per compressor bytes written per event (the journal's), stored per event, CPU per write (the checkpoint's) and per event; the day's total last */
function modeTable (figures, mode) {
  const head = ['', 'layout', 'writes / event (in place)']
  for (const c of COMPRESSORS) head.push(`${c}: B written / event (journal)`, 'B stored / event', 'CPU µs / write (checkpoint) · / event')
  const rows = figures.rows.map((r) => {
    const cells = [r.population, LAYOUT_LABEL[r.layout]]
    COMPRESSORS.map(c => r.runs.find(x => x.compressor === c && x.mode === mode)).forEach((x, i) => {
      if (i === 0) cells.push(`${fmt(x.writesPerEvent, 2)} (${fmt(100 * x.inPlaceShare)} %)`)
      cells.push(`${fmt(x.writtenPerEvent)} (${fmt(x.logPerEvent)})`, fmt(x.storedPerEvent, 1), `${fmt(x.cpuPerWriteUs)} (${fmt(x.checkpointCpuPerWriteUs)}) · ${fmt(x.cpuPerWriteUs * x.writesPerEvent)}`)
    })
    return cells
  })
  for (const t of figures.total) {
    const cells = [`the day, ${fmt(FULL_DAY.timers)} timers`, LAYOUT_LABEL[t.layout], '']
    for (const c of COMPRESSORS) {
      const x = t.runs.find(y => y.compressor === c && y.mode === mode)
      cells.push(`${fmt(x.writtenPerEvent)} (${fmt(x.writtenPerDay / 1e9, 1)} GB a day)`, fmt(x.storedPerEvent, 1), '')
    }
    rows.push(cells)
  }
  const what = mode === 'replset'
    ? '*A replica set* (as docker/compose.yaml): collection tables unlogged, the journal holds the oplog; 300 s of history.'
    : '*A standalone mongod*: every table logged, the journal holds each write (a whole document when not in place).'
  return `${what}\n\n${table(head, rows)}\n`
}

/** The markdown: what was run, then per mode (all the run's, or `modes`) its table */
export function renderWtWrites (figures, { modes = figures.modes } = {}) {
  const k = FULL_DAY.timers / figures.timers
  const out = [`**Write amplification on WiredTiger** (${figures.wiredtiger?.replace(/:.*/, '') ?? 'WiredTiger'}; ${figures.scale}: a day of ${fmt(figures.counters)} counters, ${fmt(figures.busy)} of them an event a second, and ${fmt(figures.timers)} timers a value a second each${k === 1 ? '' : ` (of the day's ${FULL_DAY.timers}: their bytes × ${fmt(k)} in the day's total)`}; ${figures.flushSeconds === 1 ? 'a flush a second' : `a flush every ${figures.flushSeconds} s`}; a checkpoint every 60 s; minutes measured: one drawn in each ${figures.every.counters} for the counters, ${figures.every.timers} for the timers). Layouts: (a) today's day documents, (b) an hour document per metric for the minutes, (c) a document inserted per event; documents read for a busy metric's day of minutes: 1, 24, 86,400. Written: the block manager's bytes and the journal's (statistics cursor) per event; stored: the tables' live bytes added by the day per event; CPU: WiredTiger's (and its Python binding's).`, '']
  for (const mode of modes) out.push(modeTable(figures, mode))
  return out.join('\n')
}

/** What docs/benchmarks.md keeps of a run (bench-docs.js writeSection 'amplification'): its date and command, the first mode's table */
export function amplificationSection (figures) {
  if (figures.error) return `**Write amplification on WiredTiger**: n/a (${figures.error})`
  return `**Run** ${figures.date} · \`${figures.command}\`\n\n` + modeTable(figures, figures.modes[0])
}

function table (head, rows) {
  return [`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`, ...rows.map(r => `| ${r.join(' | ')} |`)].join('\n')
}

/**
 * The end-to-end check of .ci/run: every database wrote blocks and journal,
 * the day layout's busy counters were updated in place, every layout stored
 * bytes, and zstd stored at most 1.2 × snappy. → [{ what, ok, why }]
 */
export function checkWtWrites (figures) {
  const out = []
  for (const r of figures.rows) {
    for (const x of r.runs) {
      const problems = []
      if (!(x.blockPerEvent > 0)) problems.push('no block written')
      if (!(x.logPerEvent > 0)) problems.push('no journal written')
      if (!(x.storedPerEvent > 0)) problems.push('nothing stored')
      if (r.population === 'counters' && r.layout === 'day' && !(x.inPlaceShare > 0.5)) problems.push(`only ${fmt(100 * x.inPlaceShare)} % of writes in place`)
      out.push({ what: `${r.population} ${r.layout} ${x.compressor} ${x.mode}`, ok: problems.length === 0, why: problems.join('; ') || `written ${fmt(x.writtenPerEvent)} B, stored ${fmt(x.storedPerEvent, 1)} B per event` })
    }
    for (const mode of figures.modes) {
      const [snappy, zstd] = COMPRESSORS.map(c => r.runs.find(x => x.compressor === c && x.mode === mode))
      const ok = zstd.storedPerEvent <= 1.2 * snappy.storedPerEvent
      out.push({ what: `${r.population} ${r.layout} ${mode}: zstd stored ≤ 1.2 × snappy`, ok, why: `zstd ${fmt(zstd.storedPerEvent, 1)} B, snappy ${fmt(snappy.storedPerEvent, 1)} B` })
    }
  }
  return out
}

export const WT_WRITES_HELP = `Usage: node scripts/bench/bench-wt-writes.js [--scale quick|bench|full] [--mode replset|standalone|both] [--flush-seconds N] [--json] [--check]

A day of ingest (${FULL_DAY.counters.toLocaleString('en-US')} counters, ${FULL_DAY.busy} busy; ${FULL_DAY.timers} timers) written as mongod
writes it into WiredTiger databases set as mongod's (snappy and zstd; the
journal on; a checkpoint every 60 s of simulated time), in three layouts:
today's day documents, hour documents for the minutes, raw events. Prints bytes
written to disk per event (block manager and journal), bytes stored per event
and CPU per write. Builds its Python venv the first time (setup-venv.sh).

  --scale S   quick (${WT_WRITES_SCALES.quick.counters} counters, ${WT_WRITES_SCALES.quick.timers} timers, a minute in ${WT_WRITES_SCALES.quick.every.counters}: CI),
              bench (a minute in ${WT_WRITES_SCALES.bench.every.counters} for counters, ${WT_WRITES_SCALES.bench.every.timers} for timers: npm run bench's, the default)
              or full (a minute in ${WT_WRITES_SCALES.full.every.counters} and ${WT_WRITES_SCALES.full.every.timers}: the decision record's)
  --mode M    replset (a replica set, as docker/compose.yaml; the default), standalone, or both
  --flush-seconds N  the events of N seconds are one flush (a divisor of 60; default 1:
              StatsD's STATSD_FLUSH_INTERVAL_MS, and about what single events get)
  --json      the figures as JSON on stdout (the markdown goes to stderr)
  --write-docs  also write the run (its first mode's table) into docs/benchmarks.md,
              between its bench:amplification markers
  --check     then check (.ci/run): blocks and journal written, busy counters
              updated in place, bytes stored, zstd at most 1.2 × snappy; exit 1 if not
`

/** --mode's value → the modes to run */
export function parseModes (value) {
  const mode = value ?? 'replset'
  if (mode === 'both') return [...MODES]
  if (!MODES.includes(mode)) throw new UsageError(`--mode must be replset, standalone or both, got ${JSON.stringify(value)}`)
  return [mode]
}

/** --flush-seconds's value → seconds a flush gathers (a divisor of 60) */
export function parseFlushSeconds (value) {
  if (value === undefined) return 1
  const n = Number(value)
  if (!Number.isInteger(n) || n < 1 || 60 % n !== 0) throw new UsageError(`--flush-seconds must divide 60 (1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30, 60), got ${JSON.stringify(value)}`)
  return n
}

/** --scale's value → a WT_WRITES_SCALES name */
export function parseWritesScale (value, fallback = 'bench') {
  const scale = value ?? fallback
  if (!Object.hasOwn(WT_WRITES_SCALES, scale)) throw new UsageError(`--scale must be quick, bench or full, got ${JSON.stringify(value)}`)
  return scale
}

export const main = defineCommand({
  name: 'bench-wt-writes',
  usage: WT_WRITES_HELP,
  parse: (argv) => {
    const { values } = parseFlags(argv, { scale: { type: 'string' }, mode: { type: 'string' }, 'flush-seconds': { type: 'string' }, json: { type: 'boolean' }, check: { type: 'boolean' }, 'write-docs': { type: 'boolean' } })
    if (values.help) return { help: true }
    return { scale: parseWritesScale(values.scale), modes: parseModes(values.mode), flushSeconds: parseFlushSeconds(values['flush-seconds']), json: Boolean(values.json), check: Boolean(values.check), writeDocs: Boolean(values['write-docs']), argv }
  },
  run: async (opts) => {
    const log = (msg) => process.stderr.write(`bench-wt-writes: ${msg}\n`)
    const started = performance.now()
    const python = wiredtigerPython({ log })
    const figures = await benchWtWrites({ scale: opts.scale, modes: opts.modes, flushSeconds: opts.flushSeconds, python, log })
    figures.date = new Date().toISOString().replace(/\.\d+Z$/, 'Z')
    figures.command = ['node scripts/bench/bench-wt-writes.js', ...opts.argv.filter(a => a !== '--write-docs' && a !== '--json' && a !== '--check')].join(' ')
    const markdown = renderWtWrites(figures)
    if (opts.json) {
      process.stderr.write(markdown)
      process.stdout.write(JSON.stringify(figures, null, 2) + '\n')
    } else process.stdout.write(markdown)
    let failed = 0
    if (opts.check) {
      for (const c of checkWtWrites(figures)) {
        if (!c.ok) failed++
        if (!c.ok || opts.json) log(`check ${c.what}: ${c.ok ? 'ok' : 'FAILED'} (${c.why})`)
      }
      log(`check: ${failed ? `${failed} FAILED` : 'all ok'}`)
    }
    if (opts.writeDocs) {
      writeFileSync(BENCHMARKS_PAGE, writeSection(readFileSync(BENCHMARKS_PAGE, 'utf8'), 'amplification', amplificationSection(figures)))
      log('wrote the run into docs/benchmarks.md (between its bench:amplification markers)')
    }
    log(`done in ${((performance.now() - started) / 1000).toFixed(1)} s`)
    return failed ? EXIT.PROBLEM : EXIT.OK
  }
})

runIfMain(import.meta.url, 'bench-wt-writes', main)
