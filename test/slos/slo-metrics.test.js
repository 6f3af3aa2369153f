// GET /metrics' SLO series (docs/slos.md#alerting) against a real server:
// every figure equals a count of the events sent (Berlin's local dates read
// from Intl), a figure without events is left out (never a zero), an SLO its
// selectors cannot answer is left out and counted, the rest of /metrics is
// untouched, and METRICS_TOKENS guards it as before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
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
const NOW = Date.UTC(2026, 10, 28, 12, 0, 30)
const END = Math.floor(NOW / MINUTE) * MINUTE + MINUTE // the burn windows end with the current minute
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'slo-metrics-'))
const file = path.join(dir, 'slos.yaml')

const source = (metric, tags = []) => ({ metricSource: { type: 'statbucket', spec: { metric, tags } } })
const slo = (name, ratioMetric, timeWindow, target) => JSON.stringify({
  apiVersion: 'openslo/v1',
  kind: 'SLO',
  metadata: { name },
  spec: { indicator: { spec: { ratioMetric } }, timeWindow: [timeWindow], budgetingMethod: 'Occurrences', objectives: [{ target }] }
})
const BERLIN_MONTH = { duration: '1M', isRolling: false, calendar: { timeZone: 'Europe/Berlin' } }
const SLOS = [
  slo('availability', { good: source('web.requests', ['status!=~5..']), total: source('web.requests') }, BERLIN_MONTH, 0.999),
  slo('login-errors', { bad: source('web.requests', ['route=/login', 'status=~5..']), total: source('web.requests', ['route=/login']) }, { duration: '7d', isRolling: true }, 0.9),
  slo('quiet', { good: source('never.written.ok'), total: source('never.written') }, { duration: '1d' }, 0.99),
  slo('latency', { good: source('web.latency'), total: source('web.latency') }, BERLIN_MONTH, 0.99) // a gauge: refused
].join('\n---\n') // JSON is YAML

let app
const events = []
const berlinMonth = t => { const w = intlWall('Europe/Berlin', t); return `${w.y}-${String(w.mo).padStart(2, '0')}` }
const count = (pick) => events.filter(pick).reduce((n, e) => n + e.value, 0)
const within = (minutes) => e => e.time >= END - minutes * MINUTE && e.time < END
const scrape = async (instance = app, headers = {}) => {
  const res = await instance.inject({ url: '/metrics', headers })
  expect(res.statusCode, res.body).toBe(200)
  return parseMetrics(res.body)
}
const series = (samples, prefix) => [...samples.keys()].filter(k => k.startsWith(prefix)).sort()

beforeAll(async () => {
  fs.writeFileSync(file, SLOS)
  app = await testApp('slo_metrics', { clock: manualClock(NOW), env: { SLO_FILE: file }, sloReloadOnHangup: false })
  const random = seededRandom(67)
  // November in Berlin up to 10 minutes ago (its first local hours are October's last UTC ones), denser in the last day
  for (const [from, to, n] of [[Date.UTC(2026, 9, 31, 22), NOW - 10 * MINUTE, 600], [NOW - 26 * HOUR, NOW - 10 * MINUTE, 600], [Date.UTC(2026, 9, 31, 20), Date.UTC(2026, 9, 31, 23), 40]]) {
    for (let i = 0; i < n; i++) {
      events.push({
        time: from + Math.floor(random() * (to - from)),
        status: ['200', '200', '200', '404', '500', '503'][Math.floor(random() * 6)],
        route: ['/login', '/home'][Math.floor(random() * 2)],
        value: 1 + Math.floor(random() * 3)
      })
    }
  }
  for (let i = 0; i < events.length; i += 1000) {
    const res = await app.inject({ method: 'POST', url: '/v1/events', payload: events.slice(i, i + 1000).map(e => ({ metric: 'web.requests', tags: { status: e.status, route: e.route }, value: e.value, ts: e.time })) })
    expect(res.json()).toEqual({ accepted: Math.min(1000, events.length - i) })
  }
  expect((await app.inject({ method: 'POST', url: '/v1/events', payload: { metric: 'web.latency', kind: 'gauge', value: 120, ts: NOW - MINUTE } })).statusCode).toBe(200)
})
afterAll(async () => {
  await app?.close()
  fs.rmSync(dir, { recursive: true, force: true })
})

describe('the SLO series of /metrics', () => {
  it('a Berlin month: good, total, attainment, budget and each burn rate equal a count of the events sent; a window without events is left out', async () => {
    const samples = await scrape()
    const at = (name, labels = '') => samples.get(`${name}{slo="availability"${labels}}`)
    const isGood = e => !e.status.startsWith('5')
    const november = e => berlinMonth(e.time) === '2026-11'
    const [good, total] = [count(e => november(e) && isGood(e)), count(november)]
    expect(total).toBeGreaterThan(1000)
    expect(events.some(e => !november(e))).toBe(true) // October's last Berlin hours were sent and are not counted
    const allowed = Math.floor(total / 1000) // ⌊(1 − 0.999) × total⌋
    expect(at('statbucket_slo_target')).toBe(0.999)
    expect(at('statbucket_slo_period_good_events')).toBe(good)
    expect(at('statbucket_slo_period_events')).toBe(total)
    expect(at('statbucket_slo_attainment')).toBe(good / total)
    expect(at('statbucket_slo_error_budget_remaining_events')).toBe(allowed - (total - good))
    expect(at('statbucket_slo_error_budget_remaining_ratio')).toBe((allowed - (total - good)) / allowed)
    for (const [window, minutes] of [['5m', 5], ['30m', 30], ['1h', 60], ['6h', 360], ['1d', 1440], ['3d', 4320]]) {
      const t = count(within(minutes))
      const bad = t - count(e => within(minutes)(e) && isGood(e))
      expect(at('statbucket_slo_burn_rate', `,window="${window}"`), window).toBe(t === 0 ? undefined : (bad * 1000) / t)
    }
    expect(count(within(5))).toBe(0) // the 5m window had no events: its series is left out, not 0
  })

  it('a rolling window with a bad selector: the last 7 × 24 hours', async () => {
    const samples = await scrape()
    const login = e => e.route === '/login' && e.time >= END - 7 * 24 * HOUR && e.time < END
    const [bad, total] = [count(e => login(e) && e.status.startsWith('5')), count(login)]
    expect(samples.get('statbucket_slo_period_events{slo="login-errors"}')).toBe(total)
    expect(samples.get('statbucket_slo_period_good_events{slo="login-errors"}')).toBe(total - bad)
    expect(samples.get('statbucket_slo_burn_rate{slo="login-errors",window="1d"}')).toBe(
      count(e => e.route === '/login' && within(1440)(e) && e.status.startsWith('5')) * 10 / count(e => e.route === '/login' && within(1440)(e)))
  })

  it('no events: the SLO is there (target, zero counts), its attainment, budget ratio and burn rates are left out', async () => {
    const samples = await scrape()
    expect(series(samples, 'statbucket_slo_').filter(k => k.includes('slo="quiet"'))).toEqual([
      'statbucket_slo_error_budget_remaining_events{slo="quiet"}',
      'statbucket_slo_period_events{slo="quiet"}',
      'statbucket_slo_period_good_events{slo="quiet"}',
      'statbucket_slo_target{slo="quiet"}'
    ])
    expect(samples.get('statbucket_slo_period_events{slo="quiet"}')).toBe(0)
    expect(samples.get('statbucket_slo_target{slo="quiet"}')).toBe(0.99)
  })

  it('an SLO its selectors cannot answer is left out and counted; GET /v1/slos says why; the rest of /metrics is there', async () => {
    const samples = await scrape()
    expect(series(samples, 'statbucket_slo_').filter(k => k.includes('slo="latency"'))).toEqual([])
    expect(samples.get('statbucket_slo_report_errors{reason="refused"}')).toBe(1)
    expect(samples.get('statbucket_slo_report_errors{reason="database"}')).toBe(0)
    expect(samples.get('statbucket_slo_report_errors{reason="internal"}')).toBe(0)
    const listed = (await app.inject('/v1/slos')).json()
    expect(listed.slos.find(s => s.name === 'latency')).toMatchObject({ status: 'refused', error: expect.stringMatching(/is a gauge/) })
    // the scrape's reports read what the listing's read: the same reports, one read path
    expect(samples.get('statbucket_slo_documents_read')).toBe(listed.documents)
    expect(listed.documents).toBeGreaterThan(0)
    expect(samples.get('statbucket_events_accepted_total')).toBeGreaterThan(0) // the rest of /metrics
    expect(samples.has('process_cpu_user_seconds_total')).toBe(true)
  })

  it('METRICS_TOKENS guards the SLO series as the rest: 401 without a token, the series with one', async () => {
    const token = 'm'.repeat(24)
    const guarded = await testApp('slo_metrics_tokens', { clock: manualClock(NOW), env: { SLO_FILE: file, METRICS_TOKENS: token, MONGODB_DB: app.config.mongodbDb }, keepDatabase: true, sloReloadOnHangup: false })
    try {
      expect((await guarded.inject('/metrics')).statusCode).toBe(401)
      const samples = await scrape(guarded, { authorization: `Bearer ${token}` })
      expect(series(samples, 'statbucket_slo_target')).toEqual(['statbucket_slo_target{slo="availability"}', 'statbucket_slo_target{slo="login-errors"}', 'statbucket_slo_target{slo="quiet"}'])
    } finally {
      await guarded.close()
    }
  })
})
