// Short load generator runs against the suite's database: through the HTTP
// API of an app listening on 127.0.0.1, and straight to MongoDB. Asserts the
// CSV's shape and that every acknowledged event is in the database; no timing.
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CSV_COLUMNS } from '../../../scripts/loadgen/minute-stats.js'
import { directDb, mongodbUri, testApp, uniqueDbName } from '../../helpers/test-app.js'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'statbucket-loadgen-'))
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }))

function loadgen (args) {
  return new Promise(resolve => {
    execFile(process.execPath, ['scripts/loadgen/loadgen.js', '--quiet', '--json', ...args], { cwd: ROOT, timeout: 60_000 }, (err, stdout, stderr) => {
      let summary = null
      try { summary = JSON.parse(stdout) } catch {}
      resolve({ code: err ? err.code : 0, summary, stdout, stderr })
    })
  })
}

function readCsv (file) {
  const [header, ...lines] = fs.readFileSync(file, 'utf8').trimEnd().split('\n')
  return { header: header.split(','), rows: lines.map(l => Object.fromEntries(l.split(',').map((v, i) => [CSV_COLUMNS[i], v]))) }
}

function expectCsvShape ({ header, rows }, { phase, minutes, firstMinuteOfDay }) {
  expect(header).toEqual(CSV_COLUMNS)
  expect(rows.map(r => r.phase)).toEqual(new Array(minutes).fill(phase))
  rows.forEach((r, i) => {
    expect(Number(r.minute_of_day)).toBe((firstMinuteOfDay + i) % 1440)
    expect(r.sim_minute).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}Z$/)
    for (const k of ['events', 'requests', 'failed_events']) expect(r[k]).toMatch(/^\d+$/)
    expect(Number(r.real_ms)).toBeGreaterThan(0)
    expect(Number(r.events_per_s)).toBeGreaterThanOrEqual(0)
    if (r.events !== '0') expect(Number(r.p99_ms)).toBeGreaterThanOrEqual(Number(r.p50_ms))
    else expect([r.p50_ms, r.p99_ms]).toEqual(['', ''])
  })
}

/** Sums of `daily` in day documents and `monthly` in month documents of metrics starting with prefix */
async function totals (db, prefix, dailyCollection = 'daily') {
  const range = { _id: { $gte: prefix, $lt: prefix + '\uffff' } }
  const sum = async (coll, field) => (await db.collection(coll).find(range, { projection: { [field]: 1 } }).toArray()).reduce((s, d) => s + (d[field] ?? 0), 0)
  return { daily: await sum(dailyCollection, 'daily'), monthly: await sum('monthly', 'monthly') }
}

describe('loadgen --url', () => {
  let app, url
  beforeAll(async () => {
    app = await testApp('loadgenhttp')
    await app.listen({ host: '127.0.0.1', port: 0 })
    url = `http://127.0.0.1:${app.server.address().port}`
  })
  afterAll(async () => { await app?.close() })

  it('runs across a simulated midnight, writes one CSV row per simulated minute, and every acknowledged event is stored', async () => {
    const csv = path.join(tmp, 'http.csv')
    const report = path.join(tmp, 'http.svg')
    // 23:59 → 00:02 of yesterday at 60×: 3 simulated minutes in 3 s
    const { code, summary, stderr } = await loadgen(['--url', url, '--start', '23:59', '--sim-minutes', '3', '--speedup', '60',
      '--metrics', '5', '--metric-prefix', 'lgh.', '--concurrency', '4', '--batch', '20', '--csv', csv, '--report', report, '--verify', '--warmup', '0.5', '--keep'])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    const phase = summary.phases[0]
    expect(phase.acked).toBeGreaterThan(0)
    expect(phase.failed).toEqual({ rejected: 0, notApplied: 0, notReached: 0, unknown: 0 })
    expect(summary.run.verify.ok).toBe(true)

    const table = readCsv(csv)
    expectCsvShape(table, { phase: 'main', minutes: 3, firstMinuteOfDay: 1439 })
    expect(table.rows.reduce((s, r) => s + Number(r.events), 0)).toBe(phase.acked)
    expect(fs.readFileSync(report, 'utf8')).toMatch(/^<svg[\s\S]*midnight[\s\S]*<\/svg>\n$/)

    // straight from the database: the day and month documents hold exactly the acknowledged events (values 1);
    // the warm-up wrote to metrics of its own
    expect(await totals(app.mongo.db, 'lgh.m')).toEqual({ daily: phase.acked, monthly: phase.acked })
    expect((await totals(app.mongo.db, 'lgh.warmup.')).daily).toBeGreaterThan(0)
    const days = await app.mongo.db.collection('daily').distinct('date', { metric: /^lgh\.m/ })
    expect(days.length).toBeGreaterThanOrEqual(2) // both sides of midnight
  })
})

describe('loadgen --url, without --keep', () => {
  let app, url
  beforeAll(async () => {
    app = await testApp('loadgenclean')
    await app.listen({ host: '127.0.0.1', port: 0 })
    url = `http://127.0.0.1:${app.server.address().port}`
  })
  afterAll(async () => { await app?.close() })

  it('leaves the registry as it found it: deletes the metrics it created, keeps one that was there', async () => {
    expect((await app.inject({ method: 'POST', url: '/v1/events', payload: { metric: 'lgc.m001', value: 7 } })).statusCode).toBe(200)
    const names = async () => (await app.inject({ url: '/v1/metrics?prefix=lgc.' })).json().metrics.map(m => m.name)
    expect(await names()).toEqual(['lgc.m001'])
    const { code, summary, stderr } = await loadgen(['--url', url, '--seconds', '1', '--speedup', '60', '--metrics', '3', '--metric-prefix', 'lgc.',
      '--concurrency', '2', '--batch', '10', '--csv', path.join(tmp, 'clean.csv'), '--warmup', '0.3'])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(summary.phases[0].acked).toBeGreaterThan(0)
    expect(await names()).toEqual(['lgc.m001'])
    expect(await app.mongo.db.collection('daily').countDocuments({ metric: { $in: ['lgc.m000', 'lgc.m002', 'lgc.warmup.m000'] } })).toBe(0)
  })
})

describe('loadgen --url, the service gone mid-run', () => {
  it('counts the refused requests as not reached, and stops with exit 1 and one line once nothing reached it for --give-up-after', async () => {
    const app = await testApp('loadgengone')
    let closed = false
    try {
      await app.listen({ host: '127.0.0.1', port: 0 })
      const url = `http://127.0.0.1:${app.server.address().port}`
      // a run of 10 minutes of real time, far longer than this test waits
      const run = loadgen(['--url', url, '--seconds', '600', '--speedup', '1', '--metrics', '3', '--metric-prefix', 'lgg.',
        '--concurrency', '2', '--batch', '5', '--csv', path.join(tmp, 'gone.csv'), '--warmup', '0', '--keep', '--give-up-after', '1'])
      const stored = async () => (await app.mongo.db.collection('daily').countDocuments({ metric: { $in: ['lgg.m000', 'lgg.m001', 'lgg.m002'] } }))
      for (let i = 0; i < 300 && await stored() < 3; i++) await new Promise(resolve => setTimeout(resolve, 20))
      await app.close()
      closed = true
      const { code, summary, stderr } = await run
      expect(stderr).toMatch(new RegExp(`^loadgen: statbucket at ${url.replace(/\./g, '\\.')} could not be reached for 1 s \\(ECONNREFUSED\\); stopped \\(the \\d+ events sent meanwhile were not applied\\)\\n$`))
      expect(code).toBe(1)
      const phase = summary.phases[0]
      expect(phase.acked).toBeGreaterThan(0)
      expect(phase.failed.notReached).toBeGreaterThan(0)
      expect(phase.failed.notReached).toBe(Number(/the (\d+) events/.exec(stderr)[1]))
    } finally {
      if (!closed) await app.close()
    }
  })
})

describe('loadgen --mongodb', () => {
  const dbName = uniqueDbName('loadgendirect')
  let client, db
  beforeAll(async () => { ({ client, db } = await directDb(dbName)) })
  afterAll(async () => {
    await db?.dropDatabase().catch(() => {})
    await client?.close()
  })

  it.each([
    ['naive', []],
    ['coalesce', ['--coalesce', '--batch', '10', '--out-of-order', '0.3', '--ooo-window', '2h', '--compare-ooo']],
    ['flat', ['--layout', 'flat', '--prealloc', '0']]
  ])('%s: every acknowledged event is in the database', async (label, extra) => {
    const csv = path.join(tmp, `${label}.csv`)
    const prefix = `lgd${label}.`
    const { code, summary, stderr } = await loadgen(['--mongodb', mongodbUri(), '--db', dbName, '--start', '2026-03-01T12:00:00Z', '--seconds', '1.5',
      '--speedup', '40', '--metrics', '4', '--metric-prefix', prefix, '--concurrency', '3', '--csv', csv, '--verify', '--warmup', '0', ...extra])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    const acked = summary.phases.reduce((s, p) => s + p.acked, 0)
    expect(acked).toBeGreaterThan(0)
    expect(summary.run.verify.ok).toBe(true)
    const phases = summary.phases.map(p => p.phase)
    const table = readCsv(csv)
    expect(table.header).toEqual(CSV_COLUMNS)
    expect([...new Set(table.rows.map(r => r.phase))]).toEqual(phases)
    for (const phase of phases) expectCsvShape({ header: table.header, rows: table.rows.filter(r => r.phase === phase) }, { phase, minutes: 1, firstMinuteOfDay: 720 })
    expect(await totals(db, prefix, label === 'flat' ? 'daily_flat' : 'daily')).toEqual({ daily: acked, monthly: acked })
    // the registry knows the metrics, so the HTTP API can read them
    expect(await db.collection('metrics').countDocuments({ _id: { $gte: prefix, $lt: prefix + '\uffff' } })).toBe(4)
    if (label === 'coalesce') {
      expect(phases).toEqual(['ooo-0', 'ooo-0.3'])
      expect(summary.outOfOrderCost).toBeGreaterThan(0)
    }
  })
})
