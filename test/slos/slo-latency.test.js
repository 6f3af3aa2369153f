// Latency SLIs against a real server (docs/slos.md#latency-slis): with
// DISTRIBUTION_THRESHOLDS declared, every tier of a distribution's documents
// — the name's, its tagged series', its declared rollup's, a StatsD timer's —
// keeps the exact count of values ≤ each threshold (a model of the raw values
// says which); an OpenSLO latency SLO (≤ 300 ms) in Europe/Berlin answers
// exact reports for the current month, October (a 25-hour day) and March (a
// 23-hour day), equal to a count of the events sent; a threshold not declared,
// and the days before one was, are estimated from the histograms and flagged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { manualClock } from '../../src/clock.js'
import { dayId, monthId } from '../../src/bucket/time.js'
import { burnWindows } from '../../src/slos/periods.js'
import { seededRandom } from '../../scripts/shared/workload.js'
import { testApp } from '../helpers/test-app.js'
import { intlWall } from '../helpers/intl-local-time.js'
import { until } from '../statsd/helpers.js'

const HOUR = 3_600_000
const DAY = 24 * HOUR
const BOOT = Date.UTC(2026, 1, 1, 0, 0, 30) // the thresholds are first declared: they count from 2026-02-01T00:01Z
const SINCE = Date.UTC(2026, 1, 1, 0, 1)
const NOW = Date.UTC(2026, 10, 28, 12, 0, 30)
const clock = manualClock(BOOT)
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'slo-latency-'))
const file = path.join(dir, 'slos.yaml')
const THRESHOLDS = [100, 300, 1000]
const α = 0.01

const source = (spec) => ({ metricSource: { type: 'statbucket', spec } })
const slo = (name, good, total) => JSON.stringify({
  apiVersion: 'openslo/v1',
  kind: 'SLO',
  metadata: { name },
  spec: {
    indicator: { spec: { ratioMetric: { counter: true, good: source(good), total: source(total) } } },
    timeWindow: [{ duration: '1M', isRolling: false, calendar: { timeZone: 'Europe/Berlin' } }],
    budgetingMethod: 'Occurrences',
    objectives: [{ target: 0.99 }]
  }
})
const SLOS = [
  slo('latency', { metric: 'web.latency', threshold: 300 }, { metric: 'web.latency' }),
  slo('login-latency', { metric: 'web.latency', tags: ['route=/login'], threshold: 300 }, { metric: 'web.latency', tags: ['route=/login'] }),
  slo('latency-250', { metric: 'web.latency', threshold: 250 }, { metric: 'web.latency' })
].join('\n---\n')

let app
const events = [] // { metric, time, value, route? }
const get = async url => { const res = await app.inject(url); return { status: res.statusCode, body: res.json() } }
const berlinDate = t => { const w = intlWall('Europe/Berlin', t); return `${w.y}-${String(w.mo).padStart(2, '0')}-${String(w.d).padStart(2, '0')}` }
const count = (pick) => events.filter(e => e.metric === 'web.latency' && pick(e)).length

beforeAll(async () => {
  fs.writeFileSync(file, SLOS)
  app = await testApp('slo_latency', {
    clock,
    random: () => 0.99,
    env: { SLO_FILE: file, DISTRIBUTION_THRESHOLDS: JSON.stringify({ 'web.latency*': THRESHOLDS }), ROLLUP_RULES: '[{"match":"web.latency","by":[["route"]]}]', WRITE_TIMEOUT_MS: '120000' },
    sloReloadOnHangup: false
  })
  clock.set(NOW)
  const random = seededRandom(66)
  // October and March with their edges and clock changes, February's first day (the declaration's), January (before it), the last days
  const spans = [
    [Date.UTC(2026, 9, 24, 20), Date.UTC(2026, 9, 26, 2)], [Date.UTC(2026, 9, 31, 20), Date.UTC(2026, 10, 1, 2)], [Date.UTC(2026, 8, 30, 20), Date.UTC(2026, 9, 1, 2)],
    [Date.UTC(2026, 2, 28, 20), Date.UTC(2026, 2, 30, 2)], [Date.UTC(2026, 1, 28, 20), Date.UTC(2026, 2, 1, 2)], [Date.UTC(2026, 2, 31, 20), Date.UTC(2026, 3, 1, 2)],
    [Date.UTC(2026, 9, 1), Date.UTC(2026, 9, 31)], [Date.UTC(2026, 2, 1), Date.UTC(2026, 2, 31)], [Date.UTC(2026, 0, 31, 20), Date.UTC(2026, 1, 2)],
    [Date.UTC(2026, 0, 1), Date.UTC(2026, 1, 1)], [NOW - 30 * DAY, NOW], [NOW - 6 * HOUR, NOW - 30_000]
  ]
  const latencies = [1, 99.9, 100, 100.5, 250, 299, 300, 300.5, 301, 999, 1000, 1000.01, 5000]
  for (const [from, to] of spans) {
    for (let i = 0; i < 120; i++) {
      const value = random() < 0.5 ? latencies[Math.floor(random() * latencies.length)] : Math.round(Math.exp(random() * 8) * 100) / 100
      const route = [undefined, '/login', '/home'][Math.floor(random() * 3)]
      events.push({ metric: 'web.latency', time: from + Math.floor(random() * (to - from)), value, route })
    }
  }
  for (let i = 0; i < events.length; i += 250) {
    const batch = events.slice(i, i + 250).map(e => ({ metric: e.metric, kind: 'distribution', value: e.value, ts: e.time, ...(e.route ? { tags: { route: e.route } } : {}) }))
    expect((await app.inject({ method: 'POST', url: '/v1/events', payload: batch })).json()).toEqual({ accepted: batch.length })
  }
  // StatsD timers, now: a tagged and an untagged series of web.latency_timer
  const timers = latencies.flatMap((value, i) => [{ metric: 'web.latency_timer', time: NOW, value, route: i % 2 ? '/login' : undefined }])
  const lines = timers.map(e => `web.latency_timer:${e.value}|ms${e.route ? `|#route:${e.route}` : ''}`).join('\n')
  expect((await app.inject({ method: 'POST', url: '/v1/statsd', payload: lines, headers: { 'content-type': 'text/plain' } })).statusCode).toBe(200)
  events.push(...timers)
  await until(async () => (await app.collections.distributionDaily.findOne({ _id: dayId('web.latency_timer', NOW) }))?.daily?.count === timers.length, 'the timers written')
}, 120_000)
afterAll(async () => {
  await app?.close()
  fs.rmSync(dir, { recursive: true, force: true })
})

/** The model: per document id and tier path, the values' count and their count ≤ each threshold, from the raw events */
function model () {
  const tiers = new Map()
  const add = (id, tier, value) => {
    const key = `${id} ${tier}`
    const t = tiers.get(key) ?? { count: 0, le: Object.fromEntries(THRESHOLDS.map(x => [String(x), 0])) }
    t.count++
    for (const x of THRESHOLDS) if (value <= x) t.le[String(x)]++
    tiers.set(key, t)
  }
  for (const e of events) {
    const d = new Date(e.time)
    const [h, m] = [d.getUTCHours(), d.getUTCMinutes()]
    // a tagged event counts in its series, its name and its declared rollup (ROLLUP_RULES: web.latency's; docs/tags.md#declared-rollups)
    const targets = e.route ? [`${e.metric};route=${e.route}`, e.metric, ...(e.metric === 'web.latency' ? [`${e.metric};~route;route=${e.route}`] : [])] : [e.metric]
    for (const metric of targets) {
      for (const tier of ['daily', `hourly.${h}`, `quarterHourly.${h}.${Math.floor(m / 15)}`, `minute.${h}.${m}`]) add(dayId(metric, e.time), tier, e.value)
      for (const tier of ['monthly', `daily.${d.getUTCDate()}`]) add(monthId(metric, e.time), tier, e.value)
    }
  }
  return tiers
}

/** A stored document's tiers: id and tier path → { count, le } */
function storedTiers (doc, monthly) {
  const out = new Map()
  const put = (tier, node) => out.set(`${doc._id} ${tier}`, { count: node.count, le: Object.fromEntries(THRESHOLDS.map(x => [String(x), node.le?.[String(x)] ?? 0])) })
  if (monthly) {
    put('monthly', doc.monthly)
    for (const [d, node] of Object.entries(doc.daily ?? {})) put(`daily.${d}`, node)
    return out
  }
  put('daily', doc.daily)
  for (const [h, node] of Object.entries(doc.hourly ?? {})) put(`hourly.${h}`, node)
  for (const [h, quarters] of Object.entries(doc.quarterHourly ?? {})) for (const [q, node] of Object.entries(quarters)) put(`quarterHourly.${h}.${q}`, node)
  for (const [h, minutes] of Object.entries(doc.minute ?? {})) for (const [m, node] of Object.entries(minutes)) put(`minute.${h}.${m}`, node)
  return out
}

describe('the threshold counts of every tier', () => {
  it('equal a model of the raw values: name, tagged series, declared rollup and StatsD timers, every tier of the day and month documents', async () => {
    const expected = model()
    const stored = new Map()
    for (const [collection, monthly] of [['distributionDaily', false], ['distributionMonthly', true]]) {
      for (const doc of await app.collections[collection].find({ metric: /^web\.latency/ }).toArray()) {
        for (const [key, tier] of storedTiers(doc, monthly)) stored.set(key, tier)
      }
    }
    // every tier the model has is stored (minutes only where the day keeps them: MINUTE_RETENTION_DAYS), and no other
    const kept = [...expected.keys()].filter(k => stored.has(k) || !/ minute\./.test(k))
    expect(kept.length).toBeGreaterThan(5000)
    for (const key of kept) expect([key, stored.get(key)]).toEqual([key, expected.get(key)])
    for (const key of stored.keys()) expect(expected.has(key)).toBe(true)
    // the StatsD timers' series too
    expect(stored.get(`${dayId('web.latency_timer;route=/login', NOW)} daily`)).toEqual(expected.get(`${dayId('web.latency_timer;route=/login', NOW)} daily`))
  })
})

describe('the latency SLO (≤ 300 ms) in Europe/Berlin', () => {
  it.each([['2026-10', 25], ['2026-03', 23], ['2026-11', 24]])('%s: exact, every figure equal to a count of the events sent (its clock-change day: %d hours)', async (period) => {
    const { status, body } = await get(`/v1/slos/latency/report?period=${period}`)
    expect(status).toBe(200)
    const inPeriod = e => berlinDate(e.time).startsWith(period)
    const good = count(e => inPeriod(e) && e.value <= 300)
    const total = count(inPeriod)
    expect(total).toBeGreaterThan(100)
    expect(good).toBeLessThan(total)
    expect(body).toMatchObject({ period, good, total, attainment: good / total, selectors: { good: { exact: true }, total: { exact: true } } })
    for (const d of body.days) expect(d).toEqual({ day: d.day, good: count(e => berlinDate(e.time) === d.day && e.value <= 300), total: count(e => berlinDate(e.time) === d.day) })
    expect(body.days.map(d => d.day)).toContain(`${period}-01`)
  })

  it('the current period\'s burn rates are exact too: the bad fraction of each window ÷ (1 − target)', async () => {
    const { body } = await get('/v1/slos/latency/report')
    for (const { name, from, to } of burnWindows(NOW)) {
      const inWindow = e => e.time >= from && e.time < to
      const total = count(inWindow)
      const bad = count(e => inWindow(e) && e.value > 300)
      expect([name, body.burnRates[name]]).toEqual([name, total === 0 ? null : expect.closeTo((bad / total) / 0.01, 9)])
    }
    expect(count(e => e.time >= NOW - HOUR)).toBeGreaterThan(0)
  })

  it('a tag filter reads the matching series (or the declared rollup): exact', async () => {
    const { body } = await get('/v1/slos/login-latency/report?period=2026-10')
    const login = e => e.route === '/login' && berlinDate(e.time).startsWith('2026-10')
    expect(body).toMatchObject({ good: count(e => login(e) && e.value <= 300), total: count(login), selectors: { good: { exact: true } } })
  })

  it('a threshold not declared: estimated from the histograms, within α, and flagged', async () => {
    const { body } = await get('/v1/slos/latency-250/report?period=2026-10')
    expect(body.selectors).toEqual({ good: { exact: false, accuracy: α, estimatedDays: 31 }, total: { exact: true } })
    const october = e => berlinDate(e.time).startsWith('2026-10')
    expect(body.total).toBe(count(october))
    // each selector reads a daily document per UTC day the local month touches, each once however many local days share it
    expect(body.documents).toBeLessThanOrEqual(2 * 32)
    expect(body.good).toBeGreaterThanOrEqual(count(e => october(e) && e.value <= 250 / (1 + α)))
    expect(body.good).toBeLessThanOrEqual(count(e => october(e) && e.value <= 250 / (1 - α)))
  })

  it('before the threshold was declared: never zeros, but estimates, flagged; February\'s first Berlin day began an hour before it', async () => {
    const january = await get('/v1/slos/latency/report?period=2026-01')
    expect(january.body.selectors.good).toEqual({ exact: false, accuracy: α, estimatedDays: 31 })
    const inJanuary = e => berlinDate(e.time).startsWith('2026-01')
    expect(january.body.good).toBeGreaterThanOrEqual(count(e => inJanuary(e) && e.value <= 300 / (1 + α)))
    expect(january.body.good).toBeLessThanOrEqual(count(e => inJanuary(e) && e.value <= 300 / (1 - α)))
    expect(january.body.good).toBeGreaterThan(0)
    const february = await get('/v1/slos/latency/report?period=2026-02')
    expect(february.body.selectors.good).toEqual({ exact: false, accuracy: α, estimatedDays: 1 })
    expect(february.body.from).toBeLessThan(SINCE)
    for (const d of february.body.days.slice(1)) expect(d.good).toBe(count(e => berlinDate(e.time) === d.day && e.value <= 300))
  })
})
