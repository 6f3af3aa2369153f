// The SLO page (/slos.html) in headless Chromium: an SLO_FILE with an
// availability SLO in Europe/Berlin over web.requests (good: status!=~5..),
// a weekly one starting on Sundays and a rolling one; events sent through
// POST /v1/events; READ_TOKENS set. Every figure, bar, burn-down point and
// burn-rate cell shown equals the API's report for the same period; the
// picker steps back to October (its 25-hour day) and to the week before;
// a period not begun and a 503 show in the status line.
// docs/adr/0069-dashboard-slo-page.md
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { seededRandom } from '../../scripts/shared/workload.js'
import { manualClock } from '../../src/clock.js'
import { formatNumber } from '../../src/dashboard/js/format.js'
import { formatBurnRate, formatPercent } from '../../src/dashboard/js/slo-view.js'
import { UnavailableError } from '../../src/errors.js'
import { testApp } from '../helpers/test-app.js'
import { CHROMIUM_FLAGS, findChromium } from './chromium.js'
import { chartLabels, overlappingPairs, plotData, recordCanvasText, recordPlots } from './page-probes.js'

const chromiumPath = findChromium()
const skip = !chromiumPath && !process.env.CI // CI installs it: there a missing browser fails
if (skip) console.log('dashboard SLO browser test skipped: no chromium on this machine (apt-get install chromium)')

const NOW = Date.UTC(2026, 10, 28, 12, 0) // Saturday 2026-11-28, 13:00 in Berlin
const MIN = 60_000
const HOUR = 60 * MIN
const SCREENSHOTS = new URL('../../test-results/', import.meta.url)
const READ = 'slo-page-read-token-0001'
const WINDOWS = ['5m', '30m', '1h', '6h', '1d', '3d']

const source = (metric, tags) => `{ metricSource: { type: statbucket, spec: { metric: ${metric}${tags ? `, tags: ${JSON.stringify(tags)}` : ''} } } }`
const slo = (name, window, target) => `apiVersion: openslo/v1
kind: SLO
metadata: { name: ${name} }
spec:
  service: web
  indicator:
    spec:
      ratioMetric:
        counter: true
        good: ${source('web.requests', ['status!=~5..', 'route=~/.*'])}
        total: ${source('web.requests', ['route=~/.*'])}
  timeWindow: [${window}]
  budgetingMethod: Occurrences
  objectives: [{ target: ${target} }]
`
const SLOS = [
  slo('availability', '{ duration: 1M, isRolling: false, calendar: { timeZone: Europe/Berlin } }', 0.99),
  slo('weekly', '{ duration: 1w, isRolling: false, calendar: { timeZone: Europe/Berlin, startTime: "2026-11-01 00:00:00" } }', 0.995),
  slo('rolling', '{ duration: 7d, isRolling: true }', 0.99)
].join('---\n')

describe.skipIf(skip)('the SLO page in headless Chromium', () => {
  let app
  let browser
  let base
  let dir
  const clock = manualClock(NOW)
  const auth = { authorization: `Bearer ${READ}` }
  const api = async url => {
    const res = await app.inject({ url, headers: auth })
    expect(res.statusCode, res.body).toBe(200)
    return res.json()
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'statbucket-slo-page-'))
    writeFileSync(join(dir, 'slos.yaml'), SLOS)
    app = await testApp('dashboard_slos', { clock, env: { PREALLOC_PROBABILITY: '0', SLO_FILE: join(dir, 'slos.yaml'), READ_TOKENS: READ, WRITE_TIMEOUT_MS: '60000' }, sloReloadOnHangup: false })
    // every hour from September 30 to now: good requests, and now and then a few 5xx; more in the last minutes (the burn rates)
    const random = seededRandom(69)
    const events = []
    const route = () => ['/home', '/login'][Math.floor(random() * 2)]
    for (let t = Date.UTC(2026, 8, 30, 20); t < NOW; t += HOUR) {
      const at = () => t + Math.floor(random() * HOUR)
      events.push({ metric: 'web.requests', tags: { status: '200', route: route() }, value: 50 + Math.floor(random() * 100), ts: at() })
      if (random() < 0.3) events.push({ metric: 'web.requests', tags: { status: ['500', '503'][Math.floor(random() * 2)], route: route() }, value: 1 + Math.floor(random() * 3), ts: at() })
    }
    for (const [ago, status, value] of [[2, '500', 4], [3, '200', 40], [20, '503', 2], [50, '200', 90]]) events.push({ metric: 'web.requests', tags: { status, route: '/home' }, value, ts: NOW - ago * MIN })
    // a loaded machine's database may take its time: each write is waited for (WRITE_TIMEOUT_MS), none retried
    for (let i = 0; i < events.length; i += 500) {
      const res = await app.inject({ method: 'POST', url: '/v1/events', payload: events.slice(i, i + 500) })
      expect(res.statusCode, res.body).toBe(200)
    }
    await app.listen({ port: 0, host: '127.0.0.1' })
    base = `http://127.0.0.1:${app.server.address().port}`
    const { chromium } = await import('playwright-core')
    browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: CHROMIUM_FLAGS })
    mkdirSync(SCREENSHOTS, { recursive: true })
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await app?.close()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  /** The page at `hash`, the token already stored unless `token` is false */
  async function openPage (hash = '', { token = true } = {}) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 1000 }, timezoneId: 'America/New_York' })
    const page = await context.newPage()
    const errors = []
    page.on('pageerror', err => errors.push(err.message))
    page.on('console', msg => { if (msg.type() === 'error' && !/status of (400|401|503)/.test(msg.text())) errors.push(msg.text()) })
    await page.addInitScript(recordPlots)
    await page.addInitScript(recordCanvasText)
    if (token) await page.addInitScript(t => window.localStorage.setItem('statbucket.readToken', t), READ)
    await page.clock.setFixedTime(NOW)
    await page.goto(`${base}/slos.html${hash}`)
    return { page, context, errors }
  }

  /** The page showing `period` of the SLO (its label in the picker, or the report's in the header) with `days` days */
  async function waitReport (page, period, days) {
    await page.waitForFunction(([p, n]) => document.getElementById('slo-period').textContent.startsWith(`${p}:`) &&
      document.getElementById('slo-days').dataset.days === String(n) && document.getElementById('slo-burndown').dataset.days === String(n), [period, days], { timeout: 15_000 })
  }

  const valueOf = (page, id) => page.$eval(`#${id}`, el => [el.dataset.value, el.textContent])

  /** Every figure, bar, burn-down point and burn-rate cell the page shows equals the report's; → the number of days begun */
  async function expectShows (page, report) {
    const shown = async (id, value, text) => expect(await valueOf(page, id), id).toEqual([value === null ? '' : String(value), text])
    await shown('slo-attainment', report.attainment, formatPercent(report.attainment))
    await shown('slo-target', report.target, formatPercent(report.target))
    await shown('slo-good', report.good, formatNumber(report.good))
    await shown('slo-total', report.total, formatNumber(report.total))
    await shown('slo-remaining-ratio', report.budget.remainingRatio, formatPercent(report.budget.remainingRatio))
    await shown('slo-allowed', report.budget.allowed, formatNumber(report.budget.allowed))
    await shown('slo-consumed', report.budget.consumed, formatNumber(report.budget.consumed))
    await shown('slo-projected', report.projectedAttainment, formatPercent(report.projectedAttainment))

    const [x, good, bad] = await plotData(page, '#slo-days')
    const begun = good.filter(v => v !== null).length
    expect(x).toEqual(report.days.map((d, i) => i + 0.5))
    expect(good).toEqual(report.days.map((d, i) => (i < begun ? d.good : null)))
    expect(bad).toEqual(report.days.map((d, i) => (i < begun ? d.total - d.good : null)))
    // the burn-down: 1 at the first midnight, (allowed − bad so far) ÷ allowed after each day begun, the last the report's remainingRatio
    const [bx, remaining] = await plotData(page, '#slo-burndown')
    expect(bx).toEqual(Array.from({ length: report.days.length + 1 }, (_, k) => k))
    expect(remaining[0]).toBe(1)
    let sum = 0
    report.days.forEach((d, i) => {
      sum += d.total - d.good
      expect(remaining[i + 1], d.day).toBe(i < begun ? (report.budget.allowed - sum) / report.budget.allowed : null)
    })
    expect(remaining[begun]).toBe(report.budget.remainingRatio)

    const cells = await page.$$eval('#slo-burn-rates:not([hidden]) td', tds => tds.map(td => [td.dataset.window, td.dataset.value, td.textContent]))
    if (report.burnRates === null) expect(cells).toEqual([])
    else expect(cells).toEqual(WINDOWS.map(w => [w, report.burnRates[w] === null ? '' : String(report.burnRates[w]), formatBurnRate(report.burnRates[w])]))
    expect(await page.isVisible('#slo-burn-note')).toBe(report.burnRates === null)
    return begun
  }

  it('asks for the read token, shows the current month as the API reports it, steps back to October and forward again', async () => {
    const { page, context, errors } = await openPage('', { token: false })
    try {
      await page.waitForSelector('#token-dialog[open]')
      await page.fill('#token-input', READ)
      await page.click('#token-save')
      await waitReport(page, '2026-11', 30)
      expect(new URL(page.url()).hash).toBe('#slo=availability')

      // the list: every SLO with GET /v1/slos's status
      const { slos } = await api('/v1/slos')
      expect(await page.$$eval('.slo-row', rows => rows.map(r => [r.dataset.name, r.querySelector('.slo-status').textContent]))).toEqual(slos.map(s => [s.name, s.status]))
      expect(await page.textContent('#slo-status')).toBe(slos[0].status)

      const november = await api('/v1/slos/availability/report')
      expect(november.period).toBe('2026-11')
      expect(november.burnRates['5m']).toBeGreaterThan(0) // the minutes before now hold 5xx
      expect(await expectShows(page, november)).toBe(28) // Nov 1 … 28 begun in Berlin at 13:00
      expect(await page.textContent('#period-label')).toBe('2026-11')
      expect(await page.isDisabled('#period-next')).toBe(true)
      expect(await page.isDisabled('#period-current')).toBe(true)
      await page.screenshot({ path: new URL('slo-page.png', SCREENSHOTS).pathname })

      // October: 31 days, the 25th 25 hours long, one slot as the report lists it; no burn rates
      await page.click('#period-prev')
      await waitReport(page, '2026-10', 31)
      expect(new URL(page.url()).hash).toBe('#slo=availability&period=2026-10')
      const october = await api('/v1/slos/availability/report?period=2026-10')
      expect(october.days.map(d => d.day)).toEqual(Array.from({ length: 31 }, (_, i) => `2026-10-${String(i + 1).padStart(2, '0')}`))
      expect(await expectShows(page, october)).toBe(31)
      expect(await page.textContent('#slo-period')).toBe('2026-10: 2026-10-01 00:00 GMT+2 → 2026-11-01 00:00 GMT+1')
      // the day labels drawn under the bars are the report's days, in order, none overlapping
      const { x } = await chartLabels(page, '#slo-days')
      const days = october.days.map(d => d.day.slice(5))
      expect(x.length).toBeGreaterThan(5)
      expect(x.map(b => days.indexOf(b.text))).toEqual([...x.map(b => days.indexOf(b.text))].sort((a, b) => a - b))
      expect(x.every(b => days.includes(b.text))).toBe(true)
      expect(overlappingPairs(x)).toEqual([])
      // the cursor on the 25th: the legend reads its day and hours, good and bad as the report counts them
      const over = await page.$eval('#slo-days .u-over', el => { const r = el.getBoundingClientRect(); return { left: r.left, top: r.top, width: r.width, height: r.height } })
      await page.mouse.move(over.left + over.width * 24.5 / 31, over.top + over.height / 2)
      const the25th = october.days[24]
      expect(the25th.day).toBe('2026-10-25')
      await page.waitForFunction(() => document.querySelector('#slo-days .u-legend .u-series .u-value').textContent.startsWith('2026-10-25'))
      expect(await page.$$eval('#slo-days .u-legend .u-series .u-value', els => els.map(el => el.textContent))).toEqual(['2026-10-25 (25 h)', formatNumber(the25th.good), formatNumber(the25th.total - the25th.good)])
      await page.screenshot({ path: new URL('slo-page-october.png', SCREENSHOTS).pathname })

      await page.click('#period-next')
      await waitReport(page, '2026-11', 30)
      await page.click('#period-prev')
      await waitReport(page, '2026-10', 31)
      await page.click('#period-current')
      await waitReport(page, '2026-11', 30)
      expect(new URL(page.url()).hash).toBe('#slo=availability')
      expect(errors).toEqual([])
    } finally {
      await context.close()
    }
  })

  it('steps a weekly SLO by its weeks (from Sunday) and shows no picker for a rolling one', async () => {
    const { page, context, errors } = await openPage('#slo=weekly')
    try {
      await waitReport(page, '2026-11-22', 7)
      expect(await expectShows(page, await api('/v1/slos/weekly/report'))).toBe(7) // Sunday 22 … Saturday 28
      await page.click('#period-prev')
      await waitReport(page, '2026-11-15', 7)
      expect(await expectShows(page, await api('/v1/slos/weekly/report?period=2026-11-15'))).toBe(7)

      await page.click('.slo-row[data-name="rolling"]')
      const rolling = await api('/v1/slos/rolling/report')
      await waitReport(page, rolling.period, rolling.days.length)
      expect(await page.isHidden('#period-picker')).toBe(true)
      expect(await expectShows(page, rolling)).toBe(rolling.days.length)
      expect(errors).toEqual([])
    } finally {
      await context.close()
    }
  })

  it('shows a period not begun and a 503 in the status line, the picker left to step elsewhere', async () => {
    const { page, context, errors } = await openPage('#slo=availability&period=2026-12')
    try {
      await page.waitForFunction(() => document.getElementById('status').classList.contains('error'))
      expect(await page.textContent('#status')).toBe('availability 2026-12: period: 2026-12 has not begun')
      expect(await page.textContent('#period-label')).toBe('2026-12')
      expect(await valueOf(page, 'slo-attainment')).toEqual(['', '—'])
      expect(await page.$eval('#slo-days', el => el.dataset.days)).toBe('0')
      await page.click('#period-prev')
      await waitReport(page, '2026-11', 30)
      expect(await page.$eval('#status', el => el.classList.contains('error'))).toBe(false)

      // a hostile label in the URL: the API's 400, shown as text
      await page.goto(`${base}/slos.html#slo=availability&period=${encodeURIComponent('<b id="x">2026</b>')}`)
      await page.reload() // the hash alone changed: load the page anew
      await page.waitForFunction(() => document.getElementById('status').classList.contains('error'))
      expect(await page.textContent('#status')).toBe('availability <b id="x">2026</b>: querystring.period: must be at most 16 characters')
      expect(await page.$('#x')).toBe(null)
      expect(await page.isHidden('#period-prev')).toBe(false)
      await page.click('#period-current')
      await waitReport(page, '2026-11', 30)

      // the database gone: the API's 503, as the server answers it
      const report = app.slos.report
      app.slos.report = async () => { throw new UnavailableError('the database is unavailable') }
      try {
        await page.click('#period-prev')
        await page.waitForFunction(() => document.getElementById('status').classList.contains('error'))
        expect(await page.textContent('#status')).toBe('availability 2026-10: the database is unavailable')
      } finally {
        app.slos.report = report
      }
      expect(errors).toEqual([])
    } finally {
      await context.close()
    }
  })
})
