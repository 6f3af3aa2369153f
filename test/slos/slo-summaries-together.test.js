// The summaries of many SLOs read together (GET /metrics, GET /v1/slos;
// docs/adr/0074-slo-summaries-read-together.md) against a model of the events
// sent: SLOs over every calendar window in five zones (half-hour and
// 45-minute offsets, Lord Howe's half-hour DST) and two rolling ones, their
// selectors overlapping (one name's series under several filters, a shared
// total, a pair of plain counters, a name never written); events dense
// around the periods' first local hours and in the burn-rate windows. Every
// SLO's good, total and burn rates on /metrics and in the listing equal the
// model's, and the per-SLO report's. The model places an event by its local
// date from Intl (test/helpers/intl-local-time.js), sharing no code with src/.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Collection, MongoServerError } from 'mongodb'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { manualClock } from '../../src/clock.js'
import { seededRandom } from '../../scripts/shared/workload.js'
import { testApp } from '../helpers/test-app.js'
import { intlWall } from '../helpers/intl-local-time.js'
import { parseMetrics } from '../helpers/prometheus-text.js'

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR
const NOW = Date.UTC(2026, 9, 1, 9, 42, 30) // a month's, a quarter's first local day in every zone here
const END = Math.floor(NOW / MINUTE) * MINUTE + MINUTE // the burn windows end with the current minute
const ZONES = ['UTC', 'Europe/Berlin', 'Asia/Kolkata', 'America/St_Johns', 'Australia/Lord_Howe']
const WINDOWS = [
  ...['1d', '1w', '1M', '1Q', '1y'].flatMap(duration => ZONES.map(zone => ({ duration, zone }))),
  { duration: '7d', rolling: true }, { duration: '28d', rolling: true }
]
const BURN = [['5m', 5], ['30m', 30], ['1h', 60], ['6h', 360], ['1d', 1440], ['3d', 4320]]
const TARGETS = [[0.99, 100, 1], [0.9, 10, 1], [0.999, 1000, 1]] // target, denominator, denominator − numerator

const is5xx = e => e.status.startsWith('5')
// selector sets: [good or bad, total] as tags, and the model's predicates
const SETS = [
  { good: ['status!=~5..'], total: [], isGood: e => e.metric === 'api.requests' && !is5xx(e), isTotal: e => e.metric === 'api.requests' },
  { bad: ['route=/a', 'status=~5..'], total: ['route=/a'], isGood: e => e.metric === 'api.requests' && e.route === '/a' && !is5xx(e), isTotal: e => e.metric === 'api.requests' && e.route === '/a' },
  { good: ['route=/a', 'status!=~5..'], total: ['route=/a'], isGood: e => e.metric === 'api.requests' && e.route === '/a' && !is5xx(e), isTotal: e => e.metric === 'api.requests' && e.route === '/a' },
  { plain: true, isGood: e => e.metric === 'plain.good', isTotal: e => e.metric === 'plain.total' },
  { never: true, isGood: () => false, isTotal: () => false }
]
// 38 SLOs: each window with one set, the first eleven with another too
const SLOS = [...WINDOWS.map((w, i) => ({ ...w, set: i % 4 })), ...WINDOWS.slice(0, 11).map((w, i) => ({ ...w, set: (i + 1) % SETS.length }))]
  .map((s, i) => ({ ...s, name: `s${String(i).padStart(2, '0')}-${s.duration.toLowerCase()}-${(s.zone ?? 'rolling').split('/').at(-1).toLowerCase().replace('_', '')}`, target: TARGETS[i % TARGETS.length] }))

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'slo-together-'))
const file = path.join(dir, 'slos.yaml')
const source = (metric, tags) => ({ metricSource: { type: 'statbucket', spec: { metric, tags } } })
function definition ({ name, duration, zone, rolling, set, target }) {
  const s = SETS[set]
  let ratioMetric
  if (s.plain) ratioMetric = { good: source('plain.good', []), total: source('plain.total', []) }
  else if (s.never) ratioMetric = { good: source('never.written.ok', []), total: source('never.written', []) }
  else ratioMetric = { [s.good ? 'good' : 'bad']: source('api.requests', s.good ?? s.bad), total: source('api.requests', s.total) }
  const timeWindow = rolling ? { duration, isRolling: true } : { duration, isRolling: false, calendar: { timeZone: zone } }
  return JSON.stringify({ apiVersion: 'openslo/v1', kind: 'SLO', metadata: { name }, spec: { indicator: { spec: { ratioMetric } }, timeWindow: [timeWindow], budgetingMethod: 'Occurrences', objectives: [{ target: target[0] }] } })
}

/** Whether the event at t lies in the SLO's current period: its local date in the period holding now's (Intl), or the last N × 24 h */
function inPeriod ({ duration, zone, rolling }, t) {
  if (rolling) return t >= END - Number(duration.slice(0, -1)) * DAY && t < END
  const [e, n] = [intlWall(zone, t), intlWall(zone, NOW)]
  const date = w => Date.UTC(w.y, w.mo - 1, w.d)
  if (duration === '1d') return date(e) === date(n)
  if (duration === '1w') { const monday = w => date(w) - ((new Date(date(w)).getUTCDay() + 6) % 7) * DAY; return monday(e) === monday(n) }
  if (duration === '1M') return e.y === n.y && e.mo === n.mo
  if (duration === '1Q') return e.y === n.y && Math.ceil(e.mo / 3) === Math.ceil(n.mo / 3)
  return e.y === n.y
}

const events = []
const sum = (pick) => events.filter(pick).reduce((n, e) => n + e.value, 0)
let app

beforeAll(async () => {
  fs.writeFileSync(file, SLOS.map(definition).join('\n---\n'))
  app = await testApp('slo_together', { clock: manualClock(NOW), env: { SLO_FILE: file }, sloReloadOnHangup: false })
  const random = seededRandom(74)
  const monday = Date.UTC(2026, 8, 28)
  // the year, the last 4 days, and ±15 h around the UTC midnights that begin this year, quarter, month, week and day
  const spans = [[Date.UTC(2025, 11, 30), NOW, 500], [NOW - 4 * DAY, NOW, 700], [NOW - 20 * MINUTE, NOW, 40],
    ...[Date.UTC(2026, 0, 1), Date.UTC(2026, 9, 1), monday, Date.UTC(2026, 8, 30)].map(t => [t - 15 * HOUR, Math.min(t + 15 * HOUR, NOW), 200])]
  for (const [from, to, n] of spans) {
    for (let i = 0; i < n; i++) {
      const time = from + Math.floor(random() * (to - from))
      const value = 1 + Math.floor(random() * 3)
      if (random() < 0.25) {
        events.push({ metric: 'plain.total', time, value })
        if (random() < 0.9) events.push({ metric: 'plain.good', time, value })
      } else {
        events.push({ metric: 'api.requests', time, value, status: ['200', '200', '404', '500', '503'][Math.floor(random() * 5)], route: ['/a', '/b'][Math.floor(random() * 2)] })
      }
    }
  }
  for (let i = 0; i < events.length; i += 1000) {
    const payload = events.slice(i, i + 1000).map(e => ({ metric: e.metric, ...(e.status ? { tags: { status: e.status, route: e.route } } : {}), value: e.value, ts: e.time }))
    const res = await app.inject({ method: 'POST', url: '/v1/events', payload })
    expect(res.json()).toEqual({ accepted: payload.length })
  }
})
afterAll(async () => {
  await app?.close()
  fs.rmSync(dir, { recursive: true, force: true })
})

/** The model's figures of an SLO: good and total of its current period, each burn window's rate (undefined without events) */
function model (slo) {
  const { isGood, isTotal } = SETS[slo.set]
  const [, den, allowed] = slo.target
  const burnRates = Object.fromEntries(BURN.map(([name, minutes]) => {
    const within = e => e.time >= END - minutes * MINUTE && e.time < END
    const [good, total] = [sum(e => within(e) && isGood(e)), sum(e => within(e) && isTotal(e))]
    return [name, total === 0 ? undefined : ((total - good) * den) / (total * allowed)]
  }))
  return { good: sum(e => inPeriod(slo, e.time) && isGood(e)), total: sum(e => inPeriod(slo, e.time) && isTotal(e)), burnRates }
}

describe('the SLO summaries read together', () => {
  it('/metrics: every SLO\'s good, total and burn rates equal the model\'s', async () => {
    const res = await app.inject({ url: '/metrics' })
    expect(res.statusCode, res.body).toBe(200)
    const samples = parseMetrics(res.body)
    expect(samples.get('statbucket_slo_report_errors{reason="refused"}')).toBe(0)
    let counted = 0
    for (const slo of SLOS) {
      const expected = model(slo)
      const at = (name, labels = '') => samples.get(`${name}{slo="${slo.name}"${labels}}`)
      expect({ good: at('statbucket_slo_period_good_events'), total: at('statbucket_slo_period_events') }, slo.name).toEqual({ good: expected.good, total: expected.total })
      for (const [window] of BURN) expect(at('statbucket_slo_burn_rate', `,window="${window}"`), `${slo.name} ${window}`).toBe(expected.burnRates[window])
      if (expected.total > 0) counted++
    }
    expect(counted).toBeGreaterThan(30) // the model is not all zeros
  })

  it('GET /v1/slos equals the model, and each SLO\'s own report; every document counted once', async () => {
    const listed = (await app.inject('/v1/slos')).json()
    expect(listed.slos.map(s => s.name)).toEqual(SLOS.map(s => s.name))
    let reportsDocuments = 0
    for (const slo of SLOS) {
      const expected = model(slo)
      const row = listed.slos.find(s => s.name === slo.name)
      expect({ good: row.good, total: row.total }, slo.name).toEqual({ good: expected.good, total: expected.total })
      const report = (await app.inject(`/v1/slos/${slo.name}/report`)).json()
      expect({ good: report.good, total: report.total, attainment: report.attainment }, slo.name).toEqual({ good: row.good, total: row.total, attainment: row.attainment })
      expect(report.burnRates, slo.name).toEqual(Object.fromEntries(BURN.map(([w]) => [w, expected.burnRates[w] ?? null])))
      reportsDocuments += report.documents
    }
    const scraped = parseMetrics((await app.inject({ url: '/metrics' })).body)
    expect(scraped.get('statbucket_slo_documents_read')).toBe(listed.documents)
    // a document several SLOs read is counted by the first: fewer than the SLOs' own reports read
    expect(listed.documents).toBeGreaterThan(0)
    expect(listed.documents).toBeLessThan(reportsDocuments)
  })

  it('a database error while the documents are read: the listing is a 503, /metrics a 200 without the SLO series, the failure counted', async () => {
    const find = Collection.prototype.find
    // the counters' documents fail; the registry and the stored SLOs answer
    Collection.prototype.find = function (...args) {
      if (!['daily', 'monthly'].includes(this.collectionName)) return find.apply(this, args)
      return { toArray: () => Promise.reject(new MongoServerError({ message: 'injected: not primary', code: 10107 })) }
    }
    try {
      const listed = await app.inject('/v1/slos')
      expect(listed.statusCode, listed.body).toBe(503)
      const res = await app.inject({ url: '/metrics' })
      expect(res.statusCode, res.body).toBe(200)
      const samples = parseMetrics(res.body)
      // the SLOs over a name never written read no document: theirs are the only SLO series; the others are counted
      const never = SLOS.filter(s => SETS[s.set].never).map(s => s.name)
      const named = [...samples.keys()].filter(k => k.startsWith('statbucket_slo_') && k.includes('slo="')).map(k => /slo="([^"]+)"/.exec(k)[1])
      expect([...new Set(named)].sort()).toEqual(never.sort())
      expect(never.length).toBeGreaterThan(0)
      expect(samples.get('statbucket_slo_report_errors{reason="database"}')).toBe(SLOS.length - never.length)
    } finally {
      Collection.prototype.find = find
    }
    expect((await app.inject('/v1/slos')).statusCode).toBe(200)
  })
})
