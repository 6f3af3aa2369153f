// The conformance table (issue 27, item 3): every kind × every door × every
// read × every job, against a model of the raw values (./model.js). The
// tagged doors (model.js DOORS) send each value to one of two series of the
// metric: every read of the name still equals the model of all the values,
// and (issue 28) its reads by tag (model.js tagReadCells: series, total and
// ytd with tag= and by=) equal the model of each series' values, the name's
// own read their sum or merge. Each metric has two stored SLOs
// (./slo-model.js): their reports are a column of every row, on every page.
//
// Rows: the kinds (model.js KINDS) × the doors (DOORS); one app per row, on a
// database of its own, whose door writes three metrics of that kind: `main`
// (read on the written data and after preallocation, check and
// check --repair), `aged` (RETENTION_RULES keep its minutes 4 days: read after
// the retention pass) and `doomed` (read after its deletion). The StatsD doors
// stamp receipt time, so the clock walks through the raw values' times; JSON
// sends `ts`, out of order. Columns: the reads (model.js readCells) — series
// at every step in UTC and Pacific/Chatham for every stat, total, ytd,
// quantiles, /render of every stat leaf with and without maxDataPoints,
// /metrics/find; on a tagged row the reads by tag besides. Pages (PAGES): the written data, then the jobs, each run once
// per row when a cell first needs it, after which every read runs again
// against the model; each job has cells of its own besides (JOB_CELLS). Every
// cell is a test named `kind × door × read[ × stat][ × after jobs]`; each
// passes alone and in any order (the clock only moves forward, the jobs
// commute as far as any read can tell, and the model of a read allows for
// the jobs that may have run before it).
import dgram from 'node:dgram'
import net from 'node:net'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { ExportMetricsServiceRequest } from '../../src/otlp/otlp-codec.js'
import { minuteHistogramKeptFromFor } from '../../src/bucket/retention-horizons.js'
import { fakeTimers } from '../helpers/fake-timers.js'
import { checkApp } from '../helpers/job-runs.js'
import { testApp } from '../helpers/test-app.js'
import * as M from './model.js'
import * as S from './slo-model.js'
import { gzipSync } from 'node:zlib'

const STATSD_FLUSH_MS = 1000
const READS_AT_ONCE = 4
// the first cell of a page runs its jobs and all its reads
const CELL_TIMEOUT_MS = 60_000
const iso = (t) => new Date(t).toISOString()
/** Every collection a metric has documents in: the registry and each kind's */
const COLLECTIONS = ['metrics', ...new Set(M.KINDS.flatMap(kind => Object.values(kind.documents)))]

let rulesDir
let rulesFile
beforeAll(() => {
  rulesDir = mkdtempSync(join(tmpdir(), 'statbucket-conformance-'))
  rulesFile = join(rulesDir, 'retention-rules.json')
  writeFileSync(rulesFile, JSON.stringify(M.RETENTION_RULES))
})
afterAll(() => { if (rulesDir) rmSync(rulesDir, { recursive: true, force: true }) })

// ---------------------------------------------------------------- a row: one app, one door, three metrics

/** Counts the StatsD values each transport read, and waits for a count */
function receivedCounter () {
  const seen = { udp: 0, tcp: 0, http: 0 }
  let waiters = []
  return {
    observer: {
      statsdReceived: ({ transport, values }) => {
        seen[transport] += values
        const ready = waiters.filter(w => seen[w.transport] >= w.n)
        waiters = waiters.filter(w => seen[w.transport] < w.n)
        for (const w of ready) { clearTimeout(w.guard); w.resolve() }
      }
    },
    /** Resolves once `transport` read n values (a guard rejects after 20 s: a lost datagram, not an order) */
    until (transport, n) {
      if (seen[transport] >= n) return Promise.resolve()
      return new Promise((resolve, reject) => {
        const w = { transport, n, resolve }
        w.guard = setTimeout(() => reject(new Error(`${transport}: ${seen[transport]} of ${n} values read`)), 20_000)
        waiters.push(w)
      })
    }
  }
}

function rowOf (kind, door) {
  const row = { kind, door, clock: manualClock(M.SCHEDULE[0] - M.MINUTE), jobs: new Map(), pages: new Map(), results: {}, app: null, close: [] }
  row.metric = (role) => M.metricName(kind, door, role)
  return row
}

/** The row's app, and every raw value sent through its door */
async function setUp (row) {
  const { kind, door, clock } = row
  const listens = door.transport === 'udp' || door.transport === 'tcp'
  const received = receivedCounter()
  const statsdTimers = fakeTimers(0)
  row.app = await testApp(`conf_${kind.id}_${door.id}`, {
    clock,
    observer: received.observer,
    statsdTimers,
    env: {
      PREALLOC_PROBABILITY: '0',
      PREALLOC_BUSY_MINUTES: '1',
      PREALLOC_SWEEP_RATE: '100000',
      RETENTION_RULES: rulesFile,
      RETENTION_RATE: '100000',
      MINUTE_RETENTION_DAYS: String(M.MINUTE_RETENTION_DAYS),
      STATSD_FLUSH_INTERVAL_MS: String(STATSD_FLUSH_MS),
      DISTRIBUTION_THRESHOLDS: JSON.stringify(S.DISTRIBUTION_THRESHOLDS),
      ...(door.rollup ? { ROLLUP_RULES: JSON.stringify(M.ROLLUP_RULES) } : {})
    },
    // the StatsD listeners on a free port of 127.0.0.1 (test/helpers/test-app.js)
    statsd: listens
  })
  const app = row.app
  row.rollupSince = M.rollupSince(clock.now())
  // each metric's SLOs, stored before anything is sent (slo-model.js)
  for (const role of Object.keys(M.ROLES)) {
    for (const { name, body } of S.sloDefinitions(kind, door, row.metric(role))) {
      const res = await app.inject({ method: 'PUT', url: `/v1/slos/${name}`, payload: body })
      expect(res.statusCode, res.body).toBe(200)
    }
  }
  if (door.transport === 'json') {
    clock.set(M.T_READ)
    for (const payload of M.jsonRequests(kind, door)) {
      const res = await app.inject(door.gzip
        ? { method: 'POST', url: '/v1/events', payload: gzipSync(JSON.stringify(payload)), headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } }
        : { method: 'POST', url: '/v1/events', payload })
      expect(res.statusCode, res.body).toBe(200)
    }
    return
  }
  if (door.transport === 'otlp') {
    clock.set(M.T_READ)
    for (const body of M.otlpRequests(kind, door)) {
      const res = await app.inject(door.protobuf
        ? { method: 'POST', url: '/v1/metrics', payload: Buffer.from(ExportMetricsServiceRequest.encode(ExportMetricsServiceRequest.fromObject(body)).finish()), headers: { 'content-type': 'application/x-protobuf' } }
        : { method: 'POST', url: '/v1/metrics', payload: body })
      expect(res.statusCode, res.body).toBe(200)
      if (!door.protobuf) expect(res.json(), 'no point rejected').toEqual({})
    }
    return
  }
  if (door.transport === 'http') {
    for (const { t, lines } of M.statsdSends(kind, door)) {
      clock.set(t)
      const text = lines.join('\n')
      const res = await app.inject({ method: 'POST', url: '/v1/statsd', payload: door.gzip ? gzipSync(text) : text, headers: { 'content-type': 'text/plain', ...(door.gzip ? { 'content-encoding': 'gzip' } : {}) } })
      expect(res.statusCode, res.body).toBe(200)
    }
    clock.set(M.T_READ)
    return
  }
  // UDP and TCP: each time's lines read at that time, then the pipeline's flush timer fired and its submit awaited
  const inflight = new Set()
  const submit = app.ingest.submit.bind(app.ingest)
  app.ingest.submit = (...args) => {
    const p = submit(...args)
    inflight.add(p)
    p.finally(() => inflight.delete(p)).catch(() => {})
    return p
  }
  const { port } = app.statsd
  let write
  if (door.transport === 'udp') {
    const socket = dgram.createSocket('udp4')
    row.close.push(() => new Promise(resolve => socket.close(resolve)))
    write = (text) => new Promise((resolve, reject) => socket.send(text, port, '127.0.0.1', err => (err ? reject(err) : resolve())))
  } else {
    const socket = net.connect(port, '127.0.0.1')
    await new Promise((resolve, reject) => { socket.once('connect', resolve); socket.once('error', reject) })
    row.close.push(() => new Promise(resolve => { socket.once('close', resolve); socket.end() }))
    write = (text) => new Promise((resolve, reject) => socket.write(text + '\n', err => (err ? reject(err) : resolve())))
  }
  let sent = 0
  for (const { t, lines } of M.statsdSends(kind, door)) {
    clock.set(t)
    sent += lines.length
    await write(lines.join('\n'))
    await received.until(door.transport, sent)
    await statsdTimers.advance(STATSD_FLUSH_MS)
    while (inflight.size > 0) await Promise.allSettled([...inflight])
  }
  expect(app.statsd.stats().heldEvents[door.transport], 'values the pipeline still holds').toBe(0)
  clock.set(M.T_READ)
}

async function tearDown (row) {
  for (const close of row.close) await close()
  await row.app?.close()
}

/** Every document of the row's database, by collection, sorted by _id */
async function snapshot (app) {
  const out = {}
  for (const name of COLLECTIONS) out[name] = await app.mongo.db.collection(name).find({}).sort({ _id: 1 }).toArray()
  return out
}

const check = (row, options = {}) => {
  const found = []
  const now = row.clock.now()
  return checkApp(row.app, row.clock, { minuteHistogramKeptFrom: minuteHistogramKeptFromFor(row.app.config, now), onViolation: (v, state) => found.push({ ...v, state }), ...options })
    .then(summary => ({ summary, found }))
}

// ---------------------------------------------------------------- the jobs (the table's pages)

/**
 * Each job runs once per row, the first time a cell needs it; the clock
 * only moves forward (the retention pass's is T_LATE), and no job changes
 * what another's reads are judged by: the model of a read allows for every
 * job that may have run before it.
 */
const JOBS = {
  // the sweep (PREALLOC_BUSY_MINUTES=1: every metric written on the clock's day is busy), then PREALLOC_DAY made for
  // the read metrics of a kind that is preallocated, as the sweep and the probabilistic preallocator make a day (a
  // sweep after the retention pass moved the clock finds nothing busy on its day)
  async preallocation (row) {
    const app = row.app
    if (row.kind.preallocated) {
      // a hit on each metric the door sent (a tagged door's: its series), as an event's draw makes one: each preallocates
      // its group (a series, then its name and rollups), the sweep not run yet; what that made is kept for the check
      const sent = (role) => (row.door.tags ? M.seriesNames(row.door, row.metric(role)) : [row.metric(role)])
      app.preallocator.preallocateDrawn(['main', 'aged'].flatMap(sent).map(metric => ({ metric, time: M.PREALLOC_DAY - M.DAY })))
      await app.preallocator.idle()
      row.results.drawn = await preallocatedDays(row)
    }
    row.results.sweep = await app.sweep.runOnce()
  },
  async retention (row) {
    row.clock.set(Math.max(row.clock.now(), M.T_LATE))
    row.results.retention = await row.app.retention.runOnce()
  },
  // `check`, then `check --repair` (the two change nothing: their reads are one page)
  async check (row) {
    row.results.check = await check(row)
    const before = await snapshot(row.app)
    row.results.repair = { ...await check(row, { repair: true }), before, after: await snapshot(row.app) }
  },
  async deletion (row) {
    const doomed = row.metric('doomed')
    // a day the preallocation made (the sweep makes it for a counter busy on the clock's day) is deleted too, the
    // name's and its series' (a tagged door's)
    const day = M.isoDay(M.PREALLOC_DAY).replaceAll('-', '')
    const preallocated = await row.app.mongo.db.collection(row.kind.documents.daily).countDocuments({ _id: { $in: [doomed, ...M.seriesNames(row.door, doomed), ...M.rollupSeriesNames(row.door, doomed)].map(m => `${m}/${day}`) } })
    const before = await snapshot(row.app)
    const res = await row.app.inject({ method: 'DELETE', url: `/v1/metrics/${doomed}` })
    row.results.deletion = { status: res.statusCode, body: res.json(), preallocated, before, after: await snapshot(row.app) }
  }
}

/** The metrics whose day document of PREALLOC_DAY exists (a preallocation made it: no event of the schedule is on it), sorted */
async function preallocatedDays (row) {
  const docs = await row.app.mongo.db.collection(row.kind.documents.daily).find({ date: new Date(M.PREALLOC_DAY) }, { projection: { metric: 1 } }).toArray()
  return docs.map(d => d.metric).sort()
}

/** Runs the jobs, in order, each once per row */
async function ensure (row, jobs) {
  for (const job of jobs) {
    if (!row.jobs.has(job)) row.jobs.set(job, JOBS[job](row))
    await row.jobs.get(job)
  }
}

/**
 * The pages: the jobs run before the reads, which metric the reads are of,
 * what the model is told. Preallocation, check and check --repair share a
 * page: check and check --repair change nothing (their own cells say so,
 * documents compared whole), so their reads are the preallocation's.
 */
const PAGES = [
  { id: 'written', jobs: [], suffix: '', role: 'main', byTag: true },
  // no reads by tag here: the jobs of this page change no document a read by tag reads but a day of the name's (the
  // table also runs on FerretDB, .ci/run)
  { id: 'kept', jobs: ['preallocation', 'check'], suffix: ' × after preallocation, check, check --repair', role: 'main', preallocRan: true, byTag: false },
  { id: 'aged', jobs: ['retention'], suffix: ' × after retention', role: 'aged', byTag: true },
  // every read of the deleted metric; the others' documents are compared whole (JOB_CELLS.deletion)
  { id: 'deleted', jobs: ['deletion'], suffix: ' × after deletion', role: 'doomed', deleted: true, byTag: true }
]

// ---------------------------------------------------------------- a cell: one read of one metric against the model

const MAX_SHOWN = 12
const problemsOf = () => {
  const list = []
  return {
    add: (p) => list.push(p),
    /** the list, at most MAX_SHOWN of it with how many more */
    get list () { return list.length > MAX_SHOWN ? [...list.slice(0, MAX_SHOWN), `… and ${list.length - MAX_SHOWN} more`] : list }
  }
}

async function get (app, url) {
  const res = await app.inject(url)
  let body
  try { body = res.json() } catch { body = res.body }
  return { status: res.statusCode, body }
}

function refusal (problems, got, expected) {
  if (got.status !== expected.status) { problems.add(`status ${got.status} (${JSON.stringify(got.body).slice(0, 300)}), expected ${expected.status}`); return }
  if (!expected.mentions.some(m => String(got.body?.message).includes(m))) problems.add(`message ${JSON.stringify(got.body?.message)} says none of ${JSON.stringify(expected.mentions)}`)
}

/** where(): the point's name, made only when it disagrees */
const agreeOrSay = (problems, kind, stat, where, got, expected) => {
  if (!M.agrees(kind, stat, got, expected)) problems.add(`${where()}: got ${JSON.stringify(got)}, expected ${M.show(expected)}`)
}

/** The model answers something for the cell: it checks data, not only absences */
const holdsData = (problems, expectations) => {
  if (!expectations.some(e => e !== null && e !== M.NULL_OR_ZERO)) problems.add('the model expects no value anywhere in this read: the cell would check nothing')
}

function checkSeries (answer, state, cell, problems) {
  const expected = M.expectSeries(state, cell)
  const got = answer(M.urlOf(cell, state.metric))
  if (expected.status !== 200) return refusal(problems, got, expected)
  if (got.status !== 200) return problems.add(`status ${got.status}: ${JSON.stringify(got.body).slice(0, 300)}`)
  const { body } = got
  for (const [field, value] of Object.entries(expected.body)) if (body[field] !== value) problems.add(`${field}: got ${JSON.stringify(body[field])}, expected ${JSON.stringify(value)}`)
  if (cell.param && body.stat !== cell.param) problems.add(`stat: got ${JSON.stringify(body.stat)}, expected ${cell.param}`)
  const ts = expected.points.map(p => p.t)
  if (JSON.stringify(body.timestamps) !== JSON.stringify(ts)) {
    problems.add(`timestamps: got ${body.timestamps?.length} from ${iso(body.timestamps?.[0])}, expected ${ts.length} from ${iso(ts[0])}; first difference at ${iso(ts.find((t, i) => body.timestamps?.[i] !== t) ?? ts.at(-1))}`)
    return
  }
  expected.points.forEach((p, i) => agreeOrSay(problems, state.kind, cell.stat, () => iso(p.t), body.values[i], p.expected))
  holdsData(problems, expected.points.map(p => p.expected))
}

function compareFields (problems, got, fields, where = '') {
  for (const [field, value] of Object.entries(fields)) {
    const ok = field === 'sum' && typeof value === 'number' && typeof got[field] === 'number'
      ? Math.abs(got[field] - value) <= 1e-9 * Math.max(1, Math.abs(value))
      : got[field] === value
    if (!ok) problems.add(`${where}${field}: got ${JSON.stringify(got[field])}, expected ${JSON.stringify(value)}`)
  }
}

function checkRange (answer, state, cell, problems) {
  const expected = M.expectRange(state, cell)
  const got = answer(M.urlOf(cell, state.metric))
  if (expected.status !== 200) return refusal(problems, got, expected)
  if (got.status !== 200) return problems.add(`status ${got.status}: ${JSON.stringify(got.body).slice(0, 300)}`)
  compareFields(problems, got.body, { from: cell.range.from, to: cell.range.to, ...expected.fields })
  if (expected.quantiles) {
    const qs = got.body.quantiles ?? []
    if (qs.length !== expected.quantiles.length) problems.add(`quantiles: got ${qs.length}, expected ${expected.quantiles.length}`)
    expected.quantiles.forEach(({ q, value }, i) => {
      if (qs[i]?.q !== q) problems.add(`quantile ${i}: q ${qs[i]?.q}, expected ${q}`)
      else if (!M.agrees(M.DISTRIBUTION, 'p50', qs[i].value, value)) problems.add(`q ${q}: got ${qs[i].value}, expected ${value} within α = ${M.ALPHA}`)
    })
  }
}

function checkYtd (answer, state, cell, problems) {
  const expected = M.expectYtd(state, cell)
  const got = answer(M.urlOf(cell, state.metric))
  if (expected.status !== 200) return refusal(problems, got, expected)
  if (got.status !== 200) return problems.add(`status ${got.status}: ${JSON.stringify(got.body).slice(0, 300)}`)
  compareFields(problems, got.body, expected.fields)
  const months = got.body.months ?? []
  if (months.length !== expected.months.length) problems.add(`months: got ${JSON.stringify(months.map(m => m.month))}, expected ${JSON.stringify(expected.months.map(m => m.month))}`)
  expected.months.forEach((m, i) => compareFields(problems, months[i] ?? {}, m, `${m.month} `))
}

function checkRender (answer, state, cell, problems) {
  const expected = M.expectRender(state, cell)
  const got = answer(M.urlOf(cell, state.metric))
  if (got.status !== 200) return problems.add(`status ${got.status}: ${JSON.stringify(got.body).slice(0, 300)}`)
  const targets = got.body.map(s => s.target)
  const series = got.body.find(s => s.target === expected.target)
  if (!series) return problems.add(`no series ${expected.target} in the answer (its series: ${JSON.stringify(targets)})`)
  if (got.body.length !== 1) problems.add(`series: got ${JSON.stringify(targets)}, expected only ${expected.target}`)
  const points = series.datapoints
  const ts = expected.points.map(p => p.t)
  if (JSON.stringify(points.map(p => p[1])) !== JSON.stringify(ts)) {
    problems.add(`timestamps: got ${points.length} points every ${points[1]?.[1] - points[0]?.[1]} s from ${points[0]?.[1]}, expected ${ts.length} every ${ts[1] - ts[0]} s from ${ts[0]} (native step ${expected.step} s)`)
    return
  }
  expected.points.forEach((p, i) => agreeOrSay(problems, state.kind, cell.stat, () => `${p.t} [${iso(p.from)}, ${iso(p.to)})`, points[i][0], p.expected))
  holdsData(problems, expected.points.map(p => p.expected))
}

const findUrl = (query) => `/metrics/find?query=${encodeURIComponent(query)}`
/** /metrics/find's queries of a metric: a glob that matches its name (its door's part a *), and the nodes below it */
const findQueries = (row, metric) => [`conf.${row.kind.id}.*.${metric.slice(metric.lastIndexOf('.') + 1)}`, `${metric}.*`]

/** The requests a cell makes of a metric */
const cellUrls = (row, cell, metric) => {
  if (cell.read === 'slo') return [S.sloUrl(cell, metric)]
  if (cell.read === 'find') return findQueries(row, metric).map(findUrl)
  // a read by tag is judged beside the name's own read
  return cell.base ? [M.urlOf(cell, metric), M.urlOf(cell.base, metric)] : [M.urlOf(cell, metric)]
}

function checkFind (answer, row, state, problems) {
  const [glob, below] = findQueries(row, state.metric)
  const expected = M.expectFind(state.kind, state.metric, glob)
  for (const [query, nodes] of [[glob, expected.node], [below, expected.below]]) {
    const got = answer(findUrl(query))
    if (got.status !== 200 || JSON.stringify(got.body) !== JSON.stringify(nodes)) problems.add(`find ${query}: got ${got.status} ${JSON.stringify(got.body)}, expected ${JSON.stringify(nodes)}`)
  }
}

// ---------------------------------------------------------------- a read by tag: its series' values, grouped in the model

/**
 * The model of each group of a read by tag (model.js SELECTIONS): the name's
 * raw values of that group's series only → [{ tags, series, state }]
 */
const groupsOf = (cell, stateOf) => cell.selection.groups.map(shards => ({
  tags: cell.selection.by ? { shard: shards[0] } : undefined,
  series: shards.length,
  state: stateOf(shards)
}))

/** The answer's groups in the model's order, each { tags, series, … } (a filter's answer: itself); null, and said, where they differ */
function answerGroups (problems, body, cell, expected) {
  if (!cell.selection.by) return [body]
  const groups = body.groups ?? []
  const tags = JSON.stringify(groups.map(g => g.tags))
  if (tags !== JSON.stringify(expected.map(g => g.tags))) { problems.add(`groups: got ${tags}, expected ${JSON.stringify(expected.map(g => g.tags))}`); return null }
  return groups
}

/** The declared rollup the answer says it read (docs/tags.md#declared-rollups): the model's, or none */
function rollupRead (problems, body, rollup) {
  if (JSON.stringify(body.rollup ?? null) !== JSON.stringify(rollup)) problems.add(`rollup: got ${JSON.stringify(body.rollup)}, expected ${JSON.stringify(rollup ?? undefined)}`)
}

/** Each group's count of series, as the model has it */
const seriesCounts = (problems, got, expected) => expected.forEach((g, i) => {
  if (got[i].series !== g.series) problems.add(`${g.tags ? `${JSON.stringify(g.tags)} ` : ''}series: got ${got[i].series}, expected ${g.series}`)
})

/**
 * A series read by tag: every group's points against the model of its
 * series' values; the name's own read, the sum (a counter) or merge of its
 * series: equal to the merged read of every series wherever the model
 * expects a value, and to the sum, least or most of the groups' where the
 * stat adds (count, sum) or bounds (min, max)
 */
function checkTaggedSeries (answer, state, stateOf, cell, rollup, problems) {
  const expected = groupsOf(cell, stateOf).map(g => ({ ...g, answer: M.expectSeries(g.state, cell) }))
  const first = expected[0].answer
  const got = answer(M.urlOf(cell, state.metric))
  if (first.status !== 200) return refusal(problems, got, first)
  if (got.status !== 200) return problems.add(`status ${got.status}: ${JSON.stringify(got.body).slice(0, 300)}`)
  const { body } = got
  rollupRead(problems, body, rollup)
  for (const [field, value] of Object.entries(first.body)) if (body[field] !== value) problems.add(`${field}: got ${JSON.stringify(body[field])}, expected ${JSON.stringify(value)}`)
  if (cell.param && body.stat !== cell.param) problems.add(`stat: got ${JSON.stringify(body.stat)}, expected ${cell.param}`)
  const ts = first.points.map(p => p.t)
  if (JSON.stringify(body.timestamps) !== JSON.stringify(ts)) return problems.add(`timestamps: got ${body.timestamps?.length} from ${iso(body.timestamps?.[0])}, expected ${ts.length} from ${iso(ts[0])}`)
  const groups = answerGroups(problems, body, cell, expected)
  if (!groups) return
  seriesCounts(problems, groups, expected)
  expected.forEach((g, k) => g.answer.points.forEach((p, i) => {
    agreeOrSay(problems, state.kind, cell.stat, () => `${g.tags ? `${JSON.stringify(g.tags)} ` : ''}${iso(p.t)}`, groups[k].values?.[i], p.expected)
  }))
  holdsData(problems, expected.flatMap(g => g.answer.points.map(p => p.expected)))
  // the name's own read: the sum or merge of its series (the merged read of a filter matching every one, or the groups' by)
  if (!cell.selection.every) return
  const name = answer(M.urlOf(cell.base, state.metric))
  if (name.status !== 200) return problems.add(`the name's read: status ${name.status}`)
  const merge = cell.selection.by ? COMBINE[cell.stat] : (vs) => vs[0]
  if (!merge) return
  ts.forEach((t, i) => {
    // a day only the name's preallocation made
    if (expected.every(g => g.answer.points[i].expected === M.NULL_OR_ZERO || g.answer.points[i].expected === null) && name.body.values[i] === 0) return
    const merged = merge(groups.map(g => g.values[i]))
    if (!sameValue(state.kind, cell.stat, name.body.values[i], merged)) problems.add(`${iso(t)}: the name ${JSON.stringify(name.body.values[i])}, its series ${JSON.stringify(merged)}`)
  })
}

/** How the groups' values of a stat make the name's, where they alone do (null: none of them has one) */
const present = (vs) => vs.filter(v => v !== null)
const COMBINE = {
  sum: (vs) => (present(vs).length ? present(vs).reduce((a, b) => a + b, 0) : null),
  count: (vs) => (present(vs).length ? present(vs).reduce((a, b) => a + b, 0) : null),
  min: (vs) => (present(vs).length ? Math.min(...present(vs)) : null),
  max: (vs) => (present(vs).length ? Math.max(...present(vs)) : null)
}

/** The name's value and its series' equal: exactly, or up to the rounding of sums added in another order */
const sameValue = (kind, stat, a, b) => a === b || (typeof a === 'number' && typeof b === 'number' && kind.stats[stat].compare === M.CLOSE && Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a)))

/** A total by tag: every group's against the model of its series' values; the name's, their sum */
function checkTaggedRange (answer, state, stateOf, cell, rollup, problems) {
  const expected = groupsOf(cell, stateOf).map(g => ({ ...g, answer: M.expectRange(g.state, cell) }))
  const first = expected[0].answer
  const got = answer(M.urlOf(cell, state.metric))
  if (first.status !== 200) return refusal(problems, got, first)
  if (got.status !== 200) return problems.add(`status ${got.status}: ${JSON.stringify(got.body).slice(0, 300)}`)
  compareFields(problems, got.body, { from: cell.range.from, to: cell.range.to })
  rollupRead(problems, got.body, rollup)
  const groups = answerGroups(problems, got.body, cell, expected)
  if (!groups) return
  seriesCounts(problems, groups, expected)
  expected.forEach((g, k) => compareFields(problems, groups[k], g.answer.fields, g.tags ? `${JSON.stringify(g.tags)} ` : ''))
  if (!cell.selection.every) return
  const name = answer(M.urlOf(cell.base, state.metric))
  if (name.status !== 200) return problems.add(`the name's read: status ${name.status}`)
  const sums = Object.fromEntries(Object.keys(first.fields).map(f => [f, groups.reduce((n, g) => n + g[f], 0)]))
  compareFields(problems, sums, Object.fromEntries(Object.keys(first.fields).map(f => [f, name.body[f]])), 'the sum of its series: ')
}

/** A year to date by tag: every group's against the model of its series' values; the name's, their sum month by month */
function checkTaggedYtd (answer, state, stateOf, cell, rollup, problems) {
  const expected = groupsOf(cell, stateOf).map(g => ({ ...g, answer: M.expectYtd(g.state, cell) }))
  const first = expected[0].answer
  const got = answer(M.urlOf(cell, state.metric))
  if (first.status !== 200) return refusal(problems, got, first)
  if (got.status !== 200) return problems.add(`status ${got.status}: ${JSON.stringify(got.body).slice(0, 300)}`)
  const { total, sum, ...top } = first.fields
  compareFields(problems, got.body, top)
  rollupRead(problems, got.body, rollup)
  const groups = answerGroups(problems, got.body, cell, expected)
  if (!groups) return
  seriesCounts(problems, groups, expected)
  const totals = (fields) => Object.fromEntries(Object.entries(fields).filter(([f]) => f === 'total' || f === 'sum'))
  expected.forEach((g, k) => {
    const where = g.tags ? `${JSON.stringify(g.tags)} ` : ''
    compareFields(problems, groups[k], totals(g.answer.fields), where)
    const months = groups[k].months ?? []
    if (months.length !== g.answer.months.length) problems.add(`${where}months: got ${JSON.stringify(months.map(m => m.month))}, expected ${JSON.stringify(g.answer.months.map(m => m.month))}`)
    g.answer.months.forEach((m, i) => compareFields(problems, months[i] ?? {}, m, `${where}${m.month} `))
  })
  if (!cell.selection.every) return
  const name = answer(M.urlOf(cell.base, state.metric))
  if (name.status !== 200) return problems.add(`the name's read: status ${name.status}`)
  const add = (vs) => (vs.every(v => v === null || v === undefined) ? vs[0] : vs.reduce((n, v) => n + (v ?? 0), 0))
  const fields = Object.keys(totals(first.fields))
  compareFields(problems, Object.fromEntries(fields.map(f => [f, add(groups.map(g => g[f]))])), Object.fromEntries(fields.map(f => [f, name.body[f]])), 'the sum of its series: ')
  name.body.months.forEach((m, i) => {
    const summed = Object.fromEntries(Object.keys(m).map(f => [f, f === 'month' ? m.month : add(groups.map(g => g.months?.[i]?.[f]))]))
    compareFields(problems, summed, m, `the sum of its series: ${m.month} `)
  })
}

/**
 * An SLO's report against the model (slo-model.js): every figure but its
 * cost; a deleted metric's SLO counts nothing
 */
function checkSlo (answer, row, page, now, cell, problems) {
  const metric = row.metric(page.role)
  const expected = S.expectSlo(row.kind, row.door, metric, page.role, cell, { now, deleted: Boolean(page.deleted) })
  const got = answer(S.sloUrl(cell, metric))
  if (expected.status !== 200) return refusal(problems, got, expected)
  if (got.status !== 200) return problems.add(`status ${got.status}: ${JSON.stringify(got.body).slice(0, 300)}`)
  const { days, budget, burnRates, ...top } = expected.body
  compareFields(problems, got.body, top)
  compareFields(problems, got.body.budget ?? {}, budget, 'budget.')
  if (JSON.stringify(got.body.burnRates) !== JSON.stringify(burnRates)) problems.add(`burnRates: got ${JSON.stringify(got.body.burnRates)}, expected ${JSON.stringify(burnRates)}`)
  const gotDays = got.body.days ?? []
  if (JSON.stringify(gotDays.map(d => d.day)) !== JSON.stringify(days.map(d => d.day))) return problems.add(`days: got ${gotDays.length} from ${gotDays[0]?.day}, expected ${days.length} from ${days[0].day}`)
  days.forEach((d, i) => compareFields(problems, gotDays[i], d, `${d.day} `))
  // the threshold was declared before the first value: a distribution's good count is exact
  for (const [selector, value] of Object.entries(got.body.selectors ?? {})) if (value.exact !== true) problems.add(`selectors.${selector}: ${JSON.stringify(value)}, expected exact`)
  if (!page.deleted && !days.some(d => d.total !== 0)) problems.add('the model expects no event in the period: the cell would check nothing')
}

function checkCell (answer, row, state, cell, problems) {
  if (cell.selection) {
    const stateOf = (shards) => M.metricState(state.kind, state.metric, state.role, { now: state.now, preallocRan: state.preallocRan, shards })
    const rollup = M.rollupOf(row.door, M.readFrom(cell), row.rollupSince)
    if (cell.read === 'series') return checkTaggedSeries(answer, state, stateOf, cell, rollup, problems)
    if (cell.read === 'total') return checkTaggedRange(answer, state, stateOf, cell, rollup, problems)
    if (cell.read === 'ytd') return checkTaggedYtd(answer, state, stateOf, cell, rollup, problems)
    throw new Error(`no check of ${cell.read} by tag`)
  }
  switch (cell.read) {
    case 'series': return checkSeries(answer, state, cell, problems)
    case 'total':
    case 'quantiles': return checkRange(answer, state, cell, problems)
    case 'ytd': return checkYtd(answer, state, cell, problems)
    case 'render': return checkRender(answer, state, cell, problems)
    case 'render-branch': {
      // a kind with stat leaves is a branch: its own name has no series, unless the kind reads it as one stat
      if (state.kind.bareLeaf) return checkRender(answer, state, cell, problems)
      const got = answer(M.urlOf(cell, state.metric))
      if (got.status !== 200 || JSON.stringify(got.body) !== '[]') problems.add(`got ${got.status} ${JSON.stringify(got.body).slice(0, 400)}, expected [] (a branch has no series)`)
      return
    }
    case 'find': return checkFind(answer, row, state, problems)
    default: throw new Error(`no check for ${cell.read}`)
  }
}

/** Every read of a deleted metric: 404 from the JSON API; Graphite finds no such path (no series, no node) */
function checkDeleted (answer, row, metric, cell, problems) {
  const graphite = cell.read === 'render' || cell.read === 'render-branch' || cell.read === 'find'
  for (const url of cellUrls(row, cell, metric)) {
    const got = answer(url)
    if (graphite && !(got.status === 200 && JSON.stringify(got.body) === '[]')) problems.add(`deleted: ${url}: got ${got.status} ${JSON.stringify(got.body).slice(0, 300)}, expected [] (no such path)`)
    if (!graphite && got.status !== 404) problems.add(`deleted: got ${got.status} ${JSON.stringify(got.body).slice(0, 300)}, expected 404`)
  }
}

/**
 * A page's reads, all made once its job ran (the first time a cell of the
 * page needs them), a few at a time, and awaited whole before any cell is
 * judged: → { now (the clock they were read at), answer(url) }
 */
function pageReads (row, page, cells) {
  if (!row.pages.has(page.id)) {
    row.pages.set(page.id, (async () => {
      await ensure(row, page.jobs)
      await row.app.nameIndex.refresh()
      const now = row.clock.now()
      const urls = new Set()
      for (const cell of cells) for (const url of cellUrls(row, cell, row.metric(page.role))) urls.add(url)
      const answers = new Map()
      const queue = [...urls]
      await Promise.all(Array.from({ length: READS_AT_ONCE }, async () => {
        while (queue.length) {
          const url = queue.shift()
          answers.set(url, await get(row.app, url))
        }
      }))
      return { now, answer: (url) => answers.get(url) }
    })())
  }
  return row.pages.get(page.id)
}

// ---------------------------------------------------------------- what each job itself must have done

const JOB_CELLS = {
  preallocation: {
    id: 'preallocation',
    name: 'preallocation makes the next day of counters only',
    async check (row, problems) {
      const days = row.app.mongo.db.collection(row.kind.documents.daily)
      if (row.kind.preallocated) {
        // the hits' groups (docs/adr/0081-preallocate-a-series-with-its-name-and-rollups.md): the name's day, and a
        // tagged door's every series' and rollup series' day with it; nothing else of that day
        const expected = ['main', 'aged'].flatMap(role => [row.metric(role), ...M.seriesNames(row.door, row.metric(role)), ...M.rollupSeriesNames(row.door, row.metric(role))]).sort()
        if (JSON.stringify(row.results.drawn) !== JSON.stringify(expected)) problems.add(`the hits preallocated ${JSON.stringify(row.results.drawn)}, not ${JSON.stringify(expected)}`)
        const id = `${row.metric('main')}/${M.isoDay(M.PREALLOC_DAY).replaceAll('-', '')}`
        if (!await days.findOne({ _id: id })) problems.add(`no document ${id}`)
      } else {
        // distributions and gauges are never preallocated (a preallocated zero would be a value nobody sent)
        const n = await days.countDocuments({ date: new Date(M.PREALLOC_DAY) })
        if (n) problems.add(`${n} documents of ${M.isoDay(M.PREALLOC_DAY)} in ${row.kind.documents.daily}`)
      }
    }
  },
  retention: {
    id: 'retention',
    name: 'the retention pass downsamples the aged metric\'s days past its horizon, and only those',
    async check (row, problems) {
      const pass = row.results.retention
      // the pass drops minutes of days more than a day past the minute horizon (docs/operations.md#commands)
      const before = M.minuteHorizon('aged', M.T_LATE) - M.DAY
      // the name's days, and each of its series' and rollup series' (a tagged door's: a series keeps what its name keeps)
      const aged = row.metric('aged')
      const daysOf = (indexes) => new Set(indexes.filter(i => M.SCHEDULE[i] < before).map(i => M.isoDay(M.SCHEDULE[i])))
      const series = [...M.seriesNames(row.door, aged), ...M.rollupSeriesNames(row.door, aged)]
      const days = [M.SCHEDULE.map((_, i) => i), ...series.map(s => M.indexesOf(row.door, s))].map(daysOf)
      compareFields(problems, pass, { status: 'done', downsampled: days.reduce((n, d) => n + d.size, 0), unvouched: 0 })
    }
  },
  check: {
    id: 'check',
    name: 'check finds nothing',
    async check (row, problems) {
      const { summary, found } = row.results.check
      if (found.length) problems.add(`found: ${JSON.stringify(found).slice(0, 600)}`)
      compareFields(problems, summary, { violations: 0, unsettled: 0 })
      // it read the row's documents (`daily` counts every kind's day documents read; the row's app holds its kind's only)
      if (!(summary.daily > 0)) problems.add(`read no day document: ${JSON.stringify(summary)}`)
    }
  },
  repair: {
    id: 'repair',
    job: 'check',
    name: 'check --repair changes nothing',
    async check (row, problems) {
      const { summary, found, before, after } = row.results.repair
      if (found.length) problems.add(`found: ${JSON.stringify(found).slice(0, 600)}`)
      compareFields(problems, summary, { violations: 0, repaired: 0, unrepaired: 0, unsettled: 0 })
      for (const name of COLLECTIONS) {
        if (JSON.stringify(before[name]) !== JSON.stringify(after[name])) problems.add(`${name} changed`)
      }
    }
  },
  deletion: {
    id: 'deletion',
    name: 'DELETE removes the metric\'s registry entry and every document of it, and no other metric\'s',
    async check (row, problems) {
      const { status, body, preallocated, before, after } = row.results.deletion
      const doomed = row.metric('doomed')
      // the name's days and months, and each of its series' and rollup series' (a tagged door's: they go with their name;
      // a rollup series is no series of the client's, but a registry entry of the service's)
      const series = M.seriesNames(row.door, doomed)
      const rollups = M.rollupSeriesNames(row.door, doomed)
      const daysOf = (indexes) => new Set(indexes.map(i => M.isoDay(M.SCHEDULE[i])))
      const all = M.SCHEDULE.map((_, i) => i)
      const days = [all, ...[...series, ...rollups].map(s => M.indexesOf(row.door, s))].map(daysOf)
      const months = days.map(d => new Set([...d].map(day => day.slice(0, 7))))
      const count = (sets) => sets.reduce((n, set) => n + set.size, 0)
      if (status !== 200) problems.add(`status ${status}: ${JSON.stringify(body)}`)
      compareFields(problems, body.deleted ?? {}, { registry: 1 + series.length + rollups.length, series: series.length, daily: count(days) + preallocated, monthly: count(months) })
      // the other metrics untouched: every other document as it was
      const mine = (id) => id === doomed || id.startsWith(`${doomed}/`) || id.startsWith(`${doomed};`)
      const others = docs => docs.filter(d => !mine(String(d._id)))
      for (const name of COLLECTIONS) {
        if (JSON.stringify(others(before[name])) !== JSON.stringify(after[name])) problems.add(`${name}: other documents changed, or ${doomed}'s left`)
        if (Object.values(row.kind.documents).includes(name) && before[name].length === others(before[name]).length) problems.add(`${name} held nothing of ${doomed} before the deletion`)
      }
    }
  }
}

// ---------------------------------------------------------------- the table

for (const kind of M.KINDS) {
  for (const door of M.DOORS) {
    describe(`${kind.name} × ${door.name}`, () => {
      const row = rowOf(kind, door)
      const cells = [...M.readCells(kind), ...(door.tags ? M.tagReadCells(kind) : []), ...S.SLO_CELLS]
      beforeAll(() => setUp(row), 120_000)
      afterAll(() => tearDown(row))

      for (const page of PAGES) {
        for (const jobCell of Object.values(JOB_CELLS).filter(c => page.jobs.includes(c.job ?? c.id))) {
          it(`× ${jobCell.name}`, async () => {
            await ensure(row, [jobCell.job ?? jobCell.id])
            const problems = problemsOf()
            await jobCell.check(row, problems)
            expect(problems.list).toEqual([])
          }, CELL_TIMEOUT_MS)
        }
        const pageCells = cells.filter(cell => !cell.selection || page.byTag)
        for (const cell of pageCells) {
          it(`× ${cell.id}${page.suffix}`, async () => {
            const { now, answer } = await pageReads(row, page, pageCells)
            const problems = problemsOf()
            const metric = row.metric(page.role)
            if (cell.read === 'slo') checkSlo(answer, row, page, now, cell, problems)
            else if (page.deleted) checkDeleted(answer, row, metric, cell, problems)
            else checkCell(answer, row, M.metricState(kind, metric, page.role, { now, preallocRan: page.preallocRan }), cell, problems)
            expect(problems.list).toEqual([])
          }, CELL_TIMEOUT_MS)
        }
      }
    })
  }
}
