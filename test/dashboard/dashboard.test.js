// The dashboard in a real browser: headless Chromium (Debian's package)
// driven by playwright-core, against a listening statbucket with known data
// and 10,000 more metrics in the registry. The browser's clock is set to the
// app's manual clock so that "last hour" means the same to both.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { colorOf } from '../../src/dashboard/js/colors.js'
import { formatNumber } from '../../src/dashboard/js/format.js'
import { countPoints } from '../../src/dashboard/js/step-fit.js'
import { testApp } from '../helpers/test-app.js'
import { CHROMIUM_FLAGS, findChromium } from './chromium.js'
import {
  FINER, chartLabels, isSeriesRequest, overlappingPairs, plotWidth, pointsAsked, recordCanvasText,
  recordSeriesRequests, seriesRequest
} from './page-probes.js'

const chromiumPath = findChromium()
// In CI the browser is installed by .ci/run: a missing one must fail, not skip.
const skip = !chromiumPath && !process.env.CI
if (skip) console.log('dashboard browser test skipped: no chromium on this machine (apt-get install chromium); CI installs it and runs this test')

const NOW = Date.UTC(2026, 10, 21, 12, 0)
const MIN = 60_000
const HOUR = 60 * MIN
const DAY = 24 * HOUR
const BULK = 10_000
const SCREENSHOTS = new URL('../../test-results/', import.meta.url)
const READ_TOKEN = 'dashboard-test-read-token'

// web.hits over the year: 3 + 2 + 10 + 7 + 100 + 1000
const HITS = [[NOW - 5 * MIN, 3], [NOW - 30 * MIN, 2], [NOW - 3 * HOUR, 10], [NOW - 2 * DAY, 7], [Date.UTC(2026, 9, 15, 9), 100], [Date.UTC(2026, 1, 1, 0, 30), 1000]]
const HITS_TOTAL = 1122
// sales.units: a large count every month, January to November, none far from the others
const SALES = [550_000, 715_000, 530_000, 600_000, 640_000, 580_000, 700_000, 560_000, 610_000, 690_000, 540_000]
// ratio.load: fractional values, 1000.123456 in March and 234.5 in November
const RATIO = [[Date.UTC(2026, 2, 10), 1000.123456], [Date.UTC(2026, 10, 3), 234.5]]
// short.* keeps no minute detail before today (a retention rule): a 24 h window must be read coarser
const SHORT_RULES = [{ match: 'short.*', minuteDays: 0 }]
// Distributions: in one minute each, values whose p50, p90 and p99 are known, the
// values at ranks floor(q·(n−1)) of the sorted values (the API's estimate is
// within its 1 % relative accuracy; all values alike, exactly). `index`: the
// minute's point on a 24 h window at NOW (from Nov 20 12:00).
const times = (n, value) => Array(n).fill(value)
const minuteIndex = at => (at - (NOW - DAY)) / MIN
const WEB_LATENCY = [
  { at: Date.UTC(2026, 10, 21, 9, 5), values: Array.from({ length: 100 }, (_, i) => i + 1), p: [50, 90, 99] },
  { at: Date.UTC(2026, 10, 21, 10, 35), values: times(5, 250), p: [250, 250, 250] },
  { at: Date.UTC(2026, 10, 21, 11, 20), values: [...times(50, 10), ...times(40, 20), ...times(9, 50), 100], p: [10, 20, 50] }
].map(point => ({ ...point, index: minuteIndex(point.at) }))
const DB_LATENCY = [{ at: Date.UTC(2026, 10, 21, 10, 1), values: times(10, 4), p: [4, 4, 4] }].map(point => ({ ...point, index: minuteIndex(point.at) }))
// short.latency: a distribution under the short.* rule, its minutes kept today only; 7s an hour ago, 3s yesterday
const SHORT_LATENCY = [{ at: NOW - HOUR, values: times(3, 7) }, { at: NOW - 20 * HOUR, values: times(2, 3) }]
// queue.depth: a gauge, its levels today far from 0
const QUEUE = [[NOW - 3 * HOUR, 120], [NOW - 50 * MIN, 135], [NOW - 20 * MIN, 128]]
const WINDOW = { width: 1280, height: 800 }
// wide enough for a 24 h chart at minutes to give each minute a pixel or more, so the cursor can read any of them
const WIDE = { width: 2200, height: 800 }
const RANGES = [['24h', 'minute'], ['7d', 'quarter-hour'], ['30d', 'hour']] // the steps auto fits on this window's 842 px plot

describe.skipIf(skip)('dashboard in headless Chromium', () => {
  let app
  let browser
  let base
  const clock = manualClock(NOW)

  beforeAll(async () => {
    const rules = join(mkdtempSync(join(tmpdir(), 'statbucket-dashboard-')), 'rules.json')
    writeFileSync(rules, JSON.stringify(SHORT_RULES))
    app = await testApp('dashboard', { clock, env: { PREALLOC_PROBABILITY: '0', RETENTION_RULES: rules } })
    const post = payload => app.inject({ method: 'POST', url: '/v1/events', payload })
    expect((await post(HITS.map(([ts, value]) => ({ metric: 'web.hits', ts, value })))).statusCode).toBe(200)
    expect((await post([{ metric: 'short.hits', ts: NOW - HOUR, value: 5 }])).statusCode).toBe(200)
    expect((await post(RATIO.map(([ts, value]) => ({ metric: 'ratio.load', ts, value })))).statusCode).toBe(200)
    expect((await post(SALES.map((value, month) => ({ metric: 'sales.units', ts: Date.UTC(2026, month, 2, 12), value })))).statusCode).toBe(200)
    expect((await post([{ metric: 'web.errors', ts: NOW - 10 * MIN, value: 1 }, { metric: 'web.errors', ts: NOW - 2 * HOUR, value: 4 }])).statusCode).toBe(200)
    for (const [metric, points] of [['web.latency', WEB_LATENCY], ['db.latency', DB_LATENCY], ['short.latency', SHORT_LATENCY]]) {
      const events = points.flatMap(({ at, values }) => values.map(value => ({ metric, kind: 'distribution', value, ts: at })))
      expect((await post(events)).statusCode).toBe(200)
    }
    expect((await post(QUEUE.map(([ts, value]) => ({ metric: 'queue.depth', kind: 'gauge', ts, value })))).statusCode).toBe(200)
    // 10,000 more names in the registry, sorted before web.*: the first page holds only them
    const seen = new Date(NOW - DAY)
    await app.mongo.db.collection('metrics').insertMany(Array.from({ length: BULK }, (_, i) => ({
      _id: `bulk.${String(i).padStart(5, '0')}`, firstSeen: seen, lastSeen: seen, added: seen
    })))
    await app.listen({ port: 0, host: '127.0.0.1' })
    base = `http://127.0.0.1:${app.server.address().port}`
    const { chromium } = await import('playwright-core')
    browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: CHROMIUM_FLAGS })
    mkdirSync(SCREENSHOTS, { recursive: true })
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await app?.close()
  })

  /**
   * viewport: the window's size; labels: record the texts drawn on canvases;
   * timezoneId: the browser's zone (the dashboard shows the viewer's);
   * before(page): runs before the page loads
   */
  async function openPage (hash = '', { viewport = { width: 1280, height: 900 }, labels = false, timezoneId = 'UTC', before } = {}) {
    const context = await browser.newContext({ viewport, timezoneId })
    const page = await context.newPage()
    const errors = []
    page.on('pageerror', err => errors.push(err.message))
    page.on('console', msg => { if (msg.type() === 'error') errors.push(msg.text()) })
    if (labels) await page.addInitScript(recordCanvasText)
    await page.clock.setFixedTime(NOW)
    await before?.(page)
    await page.goto(`${base}/${hash}`)
    return { page, context, errors }
  }

  const screenshot = (page, name) => page.screenshot({ path: new URL(name, SCREENSHOTS).pathname })

  /** ≤ 2 points per pixel of the plot as measured in the page, and over 2 at the next finer step */
  async function expectFitted (page, asked) {
    const width = await plotWidth(page)
    expect(width).toBeGreaterThan(0)
    expect(pointsAsked(asked) / width).toBeLessThanOrEqual(2)
    if (FINER[asked.step]) expect(pointsAsked({ ...asked, step: FINER[asked.step] }) / width).toBeGreaterThan(2)
  }

  /** Clicks a range button; → the series request it caused */
  async function clickRange (page, range) {
    const [request] = await Promise.all([page.waitForRequest(isSeriesRequest), page.click(`[data-range="${range}"]`)])
    return seriesRequest(request.url())
  }

  const points = page => page.$eval('#chart', el => ({ points: Number(el.dataset.points), series: Number(el.dataset.series), nulls: Number(el.dataset.nulls) }))
  const waitPoints = (page, n, series = 1) => page.waitForSelector(`#chart[data-points="${n}"][data-series="${series}"]`, { timeout: 15_000 })
  /** The latency chart drawn with n points of its three percentiles (and of `metric`, when given) */
  const waitLatency = (page, n, metric) => page.waitForSelector(`#latency-chart[data-points="${n}"][data-series="3"]${metric ? `[data-metric="${metric}"]` : ''}`, { timeout: 15_000 })
  const latencyShown = page => page.isVisible('#latency-panel')
  /** The list's rows shown: [name, the text of its kind badge, or null when the badge is not visible] */
  const badges = page => page.$$eval('.metric-row:not([hidden])', rows => rows.map(r => {
    const badge = r.querySelector('.kind-badge')
    return [r.dataset.name, badge.checkVisibility() ? badge.textContent : null]
  }))
  /** A chart's legend after its time: each series' label, and its marker's colour and line style */
  const legendSeries = (page, chart = '#chart') => page.$$eval(`${chart} .u-legend .u-series:not(:first-child)`, rows => rows.map(row => {
    const marker = window.getComputedStyle(row.querySelector('.u-marker'))
    return { label: row.querySelector('.u-label').textContent, colour: marker.borderTopColor, line: marker.borderTopStyle }
  }))
  /** The y tick labels (numbers) and the axis labels (words) last drawn on a chart, and its plot */
  async function yLabels (page, chart = '#chart') {
    const { plot, y } = await chartLabels(page, chart)
    const isTick = b => /^-?[\d.,]+[KMBT]?$/.test(b.text)
    return { plot, ticks: y.filter(isTick), words: y.filter(b => !isTick(b)).map(b => b.text) }
  }

  /**
   * Moves the cursor over `chart` at `fraction` of the plot's width; → the
   * legend's [x, values…] once x reads `x`. Where points lie less than two
   * pixels apart (minutes of 24 h) the pixel the fraction falls in may show
   * the point next to it: the cursor is then moved a pixel at a time towards
   * `x` (legend times in one zone sort as text), a few pixels at most.
   */
  async function readLegend (page, chart, fraction, x) {
    const over = await page.$eval(`${chart} .u-over`, el => { const r = el.getBoundingClientRect(); return { left: r.left, top: r.top, width: r.width, height: r.height } })
    const shownX = () => page.$eval(`${chart} .u-legend .u-series:nth-child(1) .u-value`, el => el.textContent)
    const reads = ([chart, x]) => document.querySelector(`${chart} .u-legend .u-series:nth-child(1) .u-value`).textContent === x
    let left = over.left + Math.min(over.width - 1, over.width * fraction)
    for (let nudges = 0; nudges < 4; nudges++) {
      await page.mouse.move(left, over.top + over.height / 2)
      if (await page.waitForFunction(reads, [chart, x], { timeout: 500 }).then(() => true, () => false)) break
      left += (await shownX()) < x ? 1 : -1
    }
    await page.waitForFunction(reads, [chart, x])
    return page.$$eval(`${chart} .u-legend .u-series .u-value`, els => els.map(el => el.textContent))
  }

  /** What the API answers for a stat of `metric` as the panel asked it ({ from, to, step }) */
  async function apiStat (metric, stat, { from, to, step }) {
    const res = await app.inject(`/v1/metrics/${metric}/series?stat=${stat}&step=${step}&from=${from}&to=${to}&tz=UTC`)
    expect(res.statusCode).toBe(200)
    return res.json().values
  }

  it('picks metrics, switches ranges and steps, shows gaps and the ytd total', async () => {
    const { page, context, errors } = await openPage()
    try {
      // 10,000+ metrics: the list renders only what is in view
      await page.waitForFunction(() => /10,000\+ metrics loaded/.test(document.getElementById('metric-count').textContent))
      expect(await page.$$eval('.metric-row', rows => rows.length)).toBeLessThan(100)

      // search asks the server for the prefix (web.* is past the first page)
      await page.fill('#metric-search', 'web.h')
      await page.click('.metric-row[data-name="web.hits"]')
      await waitPoints(page, 1440) // default range 24 h, auto step on a 842 px plot: minute (1440 ≤ 2 × 842)
      expect(await page.$eval('#step option[value="auto"]', o => o.textContent)).toBe('auto (minute)')
      // the ytd panel has a request of its own, answered before or after the series'
      await page.waitForFunction(() => document.getElementById('ytd-total').dataset.total)
      expect(await page.$eval('#ytd-total', el => el.dataset.total)).toBe(String(HITS_TOTAL))
      expect(await page.textContent('#ytd-total')).toBe('1,122')
      expect(await page.$eval('#ytd-chart', el => el.dataset.months)).toBe('11')

      await page.click('[data-range="1h"]')
      await waitPoints(page, 60)
      expect((await points(page)).nulls).toBe(0) // today's document exists: zeros, not nulls

      await page.click('[data-range="7d"]')
      await waitPoints(page, 7 * 96) // minutes would be 10,080 > 2 × 842: quarter-hours
      // no documents on Nov 14 (from 12:00), 15–18 and 20: nulls there
      expect((await points(page)).nulls).toBe(48 + 4 * 96 + 96)

      await page.click('[data-range="30d"]')
      await waitPoints(page, 30 * 24) // quarter-hours would be 2880 > 2 × 842: hours
      expect(await page.$eval('#step option[value="auto"]', o => o.textContent)).toBe('auto (hour)')

      // a step picked by hand is asked for as it is, finer than auto's
      await page.selectOption('#step', 'quarter-hour')
      await waitPoints(page, 30 * 96)
      expect(await page.$eval('#step option[value="auto"]', o => o.textContent)).toBe('auto')
      await page.selectOption('#step', 'auto')

      await page.click('[data-range="year"]')
      await waitPoints(page, Math.ceil((NOW - Date.UTC(2026, 0, 1)) / DAY)) // hours would be 7788: days, to rounded up to the day

      await page.selectOption('#step', 'hour')
      await waitPoints(page, (NOW - Date.UTC(2026, 0, 1)) / HOUR)
      await page.selectOption('#step', 'auto')

      // a second metric on the same chart
      await page.fill('#metric-search', 'web.e')
      await page.click('.metric-row[data-name="web.errors"]')
      await page.click('[data-range="24h"]')
      await waitPoints(page, 1440, 2)
      expect(await page.$$eval('#selected .chip', chips => chips.map(c => c.dataset.name))).toEqual(['web.hits', 'web.errors'])

      // the chart really draws: pixels of the first series' colour inside the plot (the axes' labels are outside it)
      const hex = colorOf('web.hits')
      const drawn = await page.$eval('#chart', (el, rgb) => {
        const canvas = el.querySelector('canvas')
        const rect = canvas.getBoundingClientRect()
        const over = el.querySelector('.u-over').getBoundingClientRect()
        const scale = canvas.width / rect.width
        const [x, y] = [over.left - rect.left, over.top - rect.top].map(v => Math.round(v * scale))
        const { data } = canvas.getContext('2d').getImageData(x, y, Math.round(over.width * scale), Math.round(over.height * scale))
        let coloured = 0
        for (let i = 0; i < data.length; i += 4) {
          if (Math.abs(data[i] - rgb[0]) < 40 && Math.abs(data[i + 1] - rgb[1]) < 40 && Math.abs(data[i + 2] - rgb[2]) < 40 && data[i + 3] > 100) coloured++
        }
        return { coloured, width: canvas.width, height: canvas.height }
      }, [1, 3, 5].map(i => parseInt(hex.slice(i, i + 2), 16)))
      expect(drawn.width).toBeGreaterThan(300)
      expect(drawn.coloured).toBeGreaterThan(100)
      await page.screenshot({ path: new URL('dashboard.png', SCREENSHOTS).pathname, fullPage: true })
      expect(errors).toEqual([])
    } finally {
      await context.close()
    }
  }, 60_000)

  it('draws 20,000 points of a custom range', async () => {
    const { page, context, errors } = await openPage('#m=web.hits&r=24h&s=minute')
    try {
      await waitPoints(page, 1440)
      await page.click('[data-range="custom"]')
      const iso = ms => new Date(ms).toISOString().slice(0, 16)
      await page.fill('#custom-from', iso(NOW - 20_000 * MIN))
      await page.fill('#custom-to', iso(NOW))
      await page.click('#custom-range button[type="submit"]')
      await waitPoints(page, 20_000)
      expect(await page.textContent('#status')).toContain('20,000 points per metric at step minute')
      await page.screenshot({ path: new URL('dashboard-20000.png', SCREENSHOTS).pathname })
      // over MAX_POINTS: the API's message is shown
      await page.fill('#custom-from', iso(NOW - 20_001 * MIN))
      await page.click('#custom-range button[type="submit"]')
      await page.waitForSelector('#status.error')
      expect(await page.textContent('#status')).toContain('MAX_POINTS = 20000')
      expect(errors.filter(e => !/status of 400/.test(e))).toEqual([])
    } finally {
      await context.close()
    }
  }, 60_000)

  it('draws a last bucket that is not over as partial: the day, the month, the ytd month', async () => {
    const { page, context, errors } = await openPage('#m=web.hits&r=7d&s=day', { viewport: WINDOW })
    const legendAt = (...args) => readLegend(page, ...args)
    const keyShown = () => page.isVisible('#series-partial-key')
    try {
      // 7 d at step day: Nov 14 … Nov 21, today (ends Nov 22 00:00, after 12:00) is partial
      await waitPoints(page, 8)
      expect(await page.$eval('#chart', el => el.dataset.partial)).toBe('true')
      expect(await keyShown()).toBe(true)
      expect(await legendAt('#chart', 1, '2026-11-21 00:00 UTC')).toEqual(['2026-11-21 00:00 UTC', '15 (partial)'])
      expect(await legendAt('#chart', 5 / 7, '2026-11-19 00:00 UTC')).toEqual(['2026-11-19 00:00 UTC', '7'])
      await screenshot(page, 'dashboard-partial-day.png')

      // the year at step month: November is partial
      await page.click('[data-range="year"]')
      await page.selectOption('#step', 'month')
      await waitPoints(page, 11)
      expect(await keyShown()).toBe(true)
      expect(await legendAt('#chart', 1, '2026-11-01 00:00 UTC')).toEqual(['2026-11-01 00:00 UTC', '22 (partial)'])

      // the ytd chart's November too (x runs from 0.5 to 12.5)
      expect(await page.isVisible('#ytd-partial-key')).toBe(true)
      expect(await legendAt('#ytd-chart', (11 - 0.5) / 12, 'Nov')).toEqual(['Nov', '22 (partial)'])
      expect(await legendAt('#ytd-chart', (10 - 0.5) / 12, 'Oct')).toEqual(['Oct', '100'])
      await screenshot(page, 'dashboard-partial-month.png')

      // a window over by now: nothing partial
      await page.goto(`${base}/#m=web.hits&r=custom&from=${Date.UTC(2026, 10, 12)}&to=${Date.UTC(2026, 10, 20)}&s=day`)
      await page.reload() // the page reads its hash at load
      await waitPoints(page, 8)
      expect(await page.$eval('#chart', el => el.dataset.partial)).toBe('false')
      expect(await keyShown()).toBe(false)
      expect(await legendAt('#chart', 1, '2026-11-19 00:00 UTC')).toEqual(['2026-11-19 00:00 UTC', '7'])
      expect(errors).toEqual([])
    } finally {
      await context.close()
    }
  }, 30_000)

  it('says once what keeps a chart blank when every metric is refused for the same reason', async () => {
    const { page, context, errors } = await openPage('#m=web.hits,web.errors&r=24h&s=minute', { viewport: WINDOW })
    try {
      await waitPoints(page, 1440, 2)
      await page.click('[data-range="custom"]')
      const iso = ms => new Date(ms).toISOString().slice(0, 16)
      await page.fill('#custom-from', iso(NOW - 20_001 * MIN))
      await page.fill('#custom-to', iso(NOW))
      await page.click('#custom-range button[type="submit"]')
      await page.waitForSelector('#status.error')
      const status = await page.textContent('#status')
      expect(status.match(/MAX_POINTS/g)).toHaveLength(1)
      expect(status).toMatch(/^web\.hits, web\.errors: step: the range holds 20001 points at step minute, over the limit MAX_POINTS = 20000/)
      expect(await points(page)).toEqual({ points: 0, series: 0, nulls: 0 })
      expect(errors.filter(e => !/status of 400/.test(e))).toEqual([])
    } finally {
      await context.close()
    }
  }, 30_000)

  it('refreshes by itself when auto-refresh is on', async () => {
    const { page, context } = await openPage('#m=web.errors&r=1h&s=auto&auto=1&every=1000')
    try {
      await waitPoints(page, 60)
      const requests = []
      page.on('request', r => { if (r.url().includes('/series?')) requests.push(r.url()) })
      expect(await page.isChecked('#auto-refresh')).toBe(true)
      await page.waitForTimeout(2500)
      expect(requests.length).toBeGreaterThanOrEqual(2)
      await page.uncheck('#auto-refresh')
      const count = requests.length
      await page.waitForTimeout(1500)
      expect(requests.length).toBe(count)
    } finally {
      await context.close()
    }
  }, 30_000)

  it('asks for a read token on 401, stores it and sends it as a bearer token', async () => {
    const context = await browser.newContext({ timezoneId: 'UTC' })
    const page = await context.newPage()
    const seen = []
    try {
      await page.clock.setFixedTime(NOW)
      // Until READ_TOKENS exists server side, the browser plays the server's part.
      await page.route('**/v1/**', route => {
        const auth = route.request().headers().authorization
        seen.push(auth ?? null)
        if (auth === `Bearer ${READ_TOKEN}`) return route.continue()
        return route.fulfill({
          status: auth ? 403 : 401,
          contentType: 'application/json',
          body: JSON.stringify({ statusCode: auth ? 403 : 401, error: auth ? 'Forbidden' : 'Unauthorized', message: 'a read token is required' })
        })
      })
      await page.goto(`${base}/#m=web.hits&r=1h`)
      await page.waitForSelector('#token-dialog[open]')
      await page.fill('#token-input', 'wrong-token-0000000')
      await page.click('#token-save')
      await page.waitForFunction(() => /refused/.test(document.getElementById('token-reason').textContent) && document.getElementById('token-dialog').open)
      await page.fill('#token-input', READ_TOKEN)
      await page.click('#token-save')
      await waitPoints(page, 60)
      await page.waitForFunction(() => /metrics loaded/.test(document.getElementById('metric-count').textContent))
      expect(await page.evaluate(() => window.localStorage.getItem('statbucket.readToken'))).toBe(READ_TOKEN)
      expect(seen[0]).toBe(null)
      expect(seen).toContain('Bearer wrong-token-0000000')
      // a reload uses the stored token at once
      seen.length = 0
      await page.reload()
      await waitPoints(page, 60)
      expect(seen.length).toBeGreaterThan(0)
      expect(seen.every(a => a === `Bearer ${READ_TOKEN}`)).toBe(true)
      expect(await page.$('#token-dialog[open]')).toBe(null)
    } finally {
      await context.close()
    }
  }, 30_000)

  it('auto asks for at most 2 points per pixel of plot width, at the finest step that allows it (24 h, 7 d, 30 d)', async () => {
    const { page, context, errors } = await openPage('#m=web.hits&r=1h&s=auto', { viewport: WINDOW })
    try {
      await waitPoints(page, 60)
      for (const [range, step] of RANGES) {
        const asked = await clickRange(page, range)
        expect(asked).toMatchObject({ metric: 'web.hits', step, to: NOW })
        await waitPoints(page, pointsAsked(asked)) // answered and drawn at that step
        await expectFitted(page, asked)
        expect(await page.$eval('#step option[value="auto"]', o => o.textContent)).toBe(`auto (${step})`)
      }
      expect(errors).toEqual([])
    } finally {
      await context.close()
    }
  }, 30_000)

  it('asks again when a resize changes the fitted step, and only then', async () => {
    const { page, context, errors } = await openPage('#m=web.hits&r=24h&s=auto', { viewport: WINDOW })
    try {
      await waitPoints(page, 1440)
      const requests = recordSeriesRequests(page)
      const chartFollows = () => page.waitForFunction(() => document.querySelector('#chart canvas').getBoundingClientRect().width === document.getElementById('chart').clientWidth)

      // narrower, minutes still fit: the chart follows the width, nothing is asked
      await page.setViewportSize({ width: 1200, height: 800 })
      await chartFollows()
      expect(pointsAsked({ from: NOW - DAY, to: NOW, step: 'minute' }) / await plotWidth(page)).toBeLessThanOrEqual(2)

      // narrower still, minutes no longer fit: quarter-hours are asked for
      const [narrow] = await Promise.all([page.waitForRequest(isSeriesRequest), page.setViewportSize({ width: 900, height: 800 })])
      const askedNarrow = seriesRequest(narrow.url())
      expect(askedNarrow).toMatchObject({ step: 'quarter-hour', from: NOW - DAY, to: NOW })
      await waitPoints(page, 96)
      await expectFitted(page, askedNarrow)
      expect(requests).toEqual([askedNarrow]) // the resize to 1200 px asked nothing
      await screenshot(page, 'dashboard-resized-900.png')

      // wide again: minutes
      const [wide] = await Promise.all([page.waitForRequest(isSeriesRequest), page.setViewportSize(WINDOW)])
      const askedWide = seriesRequest(wide.url())
      expect(askedWide.step).toBe('minute')
      await waitPoints(page, 1440)
      await expectFitted(page, askedWide)
      expect(errors).toEqual([])
    } finally {
      await context.close()
    }
  }, 30_000)

  it('draws no overlapping axis labels, none cut off at an edge (24 h, 7 d, 30 d)', async () => {
    const { page, context, errors } = await openPage('#m=web.hits&r=1h&s=auto', { viewport: WINDOW, labels: true })
    try {
      await waitPoints(page, 60)
      for (const [range] of RANGES) {
        const asked = await clickRange(page, range)
        await waitPoints(page, pointsAsked(asked))
        const { canvas, plot, x, y } = await chartLabels(page)
        expect(x.length, range).toBeGreaterThanOrEqual(5) // the axis is labelled
        expect(y.length, range).toBeGreaterThanOrEqual(2)
        expect(x.some(b => b.left < plot.left), `${range}: a label at the left edge`).toBe(true)
        expect(overlappingPairs([...x, ...y]), range).toEqual([])
        for (const b of [...x, ...y]) {
          expect(b.left, `${range} ${b.text}`).toBeGreaterThanOrEqual(0)
          expect(b.right, `${range} ${b.text}`).toBeLessThanOrEqual(canvas.width)
          expect(b.bottom, `${range} ${b.text}`).toBeLessThanOrEqual(canvas.height)
        }
        await screenshot(page, `dashboard-${range}.png`)
      }
      expect(errors).toEqual([])
    } finally {
      await context.close()
    }
  }, 30_000)

  it('says what to do in the year-to-date panel before a metric is picked', async () => {
    const { page, context, errors } = await openPage('', { viewport: WINDOW })
    try {
      await page.waitForFunction(() => /metrics loaded/.test(document.getElementById('metric-count').textContent))
      expect(await page.isVisible('#ytd-empty')).toBe(true)
      expect(await page.textContent('#ytd-empty')).toBe('Pick a metric on the left to see its year to date.')
      expect(await page.isVisible('#ytd-metric')).toBe(false)
      expect(await page.isVisible('#ytd-summary')).toBe(false)
      expect(await page.isVisible('#chart-empty')).toBe(true)
      await screenshot(page, 'dashboard-empty.png')

      await page.fill('#metric-search', 'web.h')
      await page.click('.metric-row[data-name="web.hits"]')
      await page.waitForSelector(`#ytd-total[data-total="${HITS_TOTAL}"]`)
      expect(await page.isVisible('#ytd-empty')).toBe(false)
      expect(await page.isVisible('#ytd-metric')).toBe(true)
      expect(await page.$eval('#ytd-metric', select => select.value)).toBe('web.hits')
      expect(await page.isVisible('#ytd-summary')).toBe(true)
      expect(errors).toEqual([])
    } finally {
      await context.close()
    }
  }, 30_000)

  it('starts the year-to-date axis at 0', async () => {
    const { page, context, errors } = await openPage('#m=sales.units&r=24h', { viewport: WINDOW, labels: true })
    try {
      await page.waitForSelector(`#ytd-total[data-total="${SALES.reduce((a, b) => a + b)}"]`)
      const { plot, y } = await chartLabels(page, '#ytd-chart')
      expect(y.length).toBeGreaterThanOrEqual(2)
      // the lowest label is 0, drawn at the plot's bottom edge: the bars stand on 0
      const lowest = y.reduce((a, b) => (b.bottom > a.bottom ? b : a))
      expect(lowest.text).toBe('0')
      expect(Math.abs((lowest.top + lowest.bottom) / 2 - plot.bottom)).toBeLessThan(3)
      await screenshot(page, 'dashboard-ytd-from-0.png')
      expect(errors).toEqual([])
    } finally {
      await context.close()
    }
  }, 30_000)

  it('rounds the year-to-date total and the legend\'s values for reading', async () => {
    const { page, context, errors } = await openPage('#m=ratio.load&r=24h', { viewport: WINDOW })
    try {
      await page.waitForFunction(() => document.getElementById('ytd-total').dataset.total !== '')
      expect(Number(await page.$eval('#ytd-total', el => el.dataset.total))).toBeCloseTo(1234.623456, 6) // the exact total is kept
      expect(await page.textContent('#ytd-total')).toBe('1,234.62')
      // March's bar under the cursor: its value in the legend, rounded the same way
      const over = await page.$eval('#ytd-chart .u-over', el => { const r = el.getBoundingClientRect(); return { left: r.left, top: r.top, width: r.width, height: r.height } })
      await page.mouse.move(over.left + over.width * (3 - 0.5) / 12, over.top + over.height - 5) // x runs from 0.5 to 12.5
      await page.waitForFunction(() => document.querySelector('#ytd-chart .u-legend .u-series:nth-child(1) .u-value').textContent === 'Mar')
      expect(await page.textContent('#ytd-chart .u-legend .u-series:nth-child(2) .u-value')).toBe('1,000.12')
      expect(errors).toEqual([])
    } finally {
      await context.close()
    }
  }, 30_000)

  it('gives a metric the same colour in every view, whatever its place in the selection', async () => {
    const rgb = hex => `rgb(${[1, 3, 5].map(i => parseInt(hex.slice(i, i + 2), 16)).join(', ')})`
    /** web.hits's colour in the chip, the list row, the series legend and the ytd legend */
    async function colours (hash, series) {
      const { page, context, errors } = await openPage(hash, { viewport: WINDOW })
      try {
        await waitPoints(page, 60, series)
        await page.waitForSelector('#ytd-chart .u-legend')
        await page.fill('#metric-search', 'web.h')
        await page.waitForSelector('.metric-row[data-name="web.hits"][aria-selected="true"]')
        const found = await page.evaluate(() => {
          const bg = el => window.getComputedStyle(el).backgroundColor
          const legendMarker = (chart, label) => [...document.querySelectorAll(`${chart} .u-legend .u-series`)]
            .find(row => row.querySelector('.u-label').textContent === label)
            .querySelector('.u-marker')
          return {
            chip: bg(document.querySelector('.chip[data-name="web.hits"] .swatch')),
            row: bg(document.querySelector('.metric-row[data-name="web.hits"] .swatch')),
            series: window.getComputedStyle(legendMarker('#chart', 'web.hits')).borderTopColor,
            ytd: window.getComputedStyle(legendMarker('#ytd-chart', 'total')).borderTopColor
          }
        })
        expect(errors).toEqual([])
        return found
      } finally {
        await context.close()
      }
    }
    const colour = rgb(colorOf('web.hits'))
    const alone = await colours('#m=web.hits&r=1h', 1)
    const second = await colours('#m=web.errors,web.hits&r=1h&ytd=web.hits', 2)
    const third = await colours('#m=short.hits,web.errors,web.hits&r=1h&ytd=web.hits', 3)
    expect(alone).toEqual({ chip: colour, row: colour, series: colour, ytd: colour })
    expect(second).toEqual(alone)
    expect(third).toEqual(alone)
  }, 30_000)

  it('shows a focus ring for keyboard focus only: none after load or a mouse click, one at each Tab', async () => {
    /** The focused element and whether it shows an outline; the list's rows that show one */
    const rings = page => page.evaluate(() => {
      const visible = el => { const s = window.getComputedStyle(el); return s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0 }
      const focused = document.activeElement
      return {
        focused: focused.id || focused.dataset.range || focused.tagName.toLowerCase(),
        ring: visible(focused),
        rows: [...document.querySelectorAll('.metric-row:not([hidden])')].filter(visible).map(row => row.dataset.name)
      }
    })
    const listed = page => page.waitForFunction(() => /metrics loaded/.test(document.getElementById('metric-count').textContent))

    const mouse = await openPage('', { viewport: WINDOW })
    try {
      await listed(mouse.page)
      expect(await rings(mouse.page)).toEqual({ focused: 'body', ring: false, rows: [] })
      await mouse.page.click('.metric-row[data-name="bulk.00002"]')
      await mouse.page.waitForSelector('.chip[data-name="bulk.00002"]')
      expect(await rings(mouse.page)).toEqual({ focused: 'metric-list', ring: false, rows: [] })
      expect(mouse.errors).toEqual([])
    } finally {
      await mouse.context.close()
    }

    const keyboard = await openPage('', { viewport: WINDOW })
    const { page } = keyboard
    try {
      await listed(page)
      const seen = []
      for (let i = 0; i < 40 && seen.at(-1)?.focused !== 'metric-list'; i++) {
        await page.keyboard.press('Tab')
        seen.push(await rings(page))
      }
      expect(seen.at(-1).focused).toBe('metric-list')
      expect(seen.filter(r => !r.ring)).toEqual([]) // every element Tab reaches shows a ring
      expect(seen.at(-1).rows).toEqual(['bulk.00000']) // and in the list, the row the keys act on
      await page.keyboard.press('ArrowDown')
      expect(await rings(page)).toEqual({ focused: 'metric-list', ring: true, rows: ['bulk.00001'] })
      await page.keyboard.press('Enter')
      await page.waitForSelector('.metric-row[data-name="bulk.00001"][aria-selected="true"]')
      await screenshot(page, 'dashboard-keyboard.png')
      expect(keyboard.errors).toEqual([])
    } finally {
      await keyboard.context.close()
    }
  }, 30_000)

  it('fills a 1280×800 window: the sidebar to the bottom, no page scrollbar', async () => {
    const { page, context, errors } = await openPage('', { viewport: WINDOW })
    const layout = () => page.evaluate(() => {
      const doc = document.documentElement
      const charts = document.querySelector('.charts')
      return {
        viewport: { width: window.innerWidth, height: window.innerHeight },
        pickerBottom: document.querySelector('.picker').getBoundingClientRect().bottom,
        page: { scrollWidth: doc.scrollWidth, clientWidth: doc.clientWidth, scrollHeight: doc.scrollHeight, clientHeight: doc.clientHeight },
        charts: { scrollHeight: charts.scrollHeight, clientHeight: charts.clientHeight, bottom: charts.getBoundingClientRect().bottom, paddingBottom: parseFloat(window.getComputedStyle(charts).paddingBottom) },
        ytdBottom: document.querySelector('.ytd-panel').getBoundingClientRect().bottom
      }
    })
    const expectFills = l => {
      expect(l.viewport).toEqual(WINDOW)
      expect(Math.abs(l.pickerBottom - WINDOW.height)).toBeLessThanOrEqual(1)
      expect(l.page.scrollHeight).toBeLessThanOrEqual(l.page.clientHeight)
      expect(l.page.scrollWidth).toBeLessThanOrEqual(l.page.clientWidth)
      // the charts column reaches the bottom too, its panels fill it and fit in it
      expect(Math.abs(l.charts.bottom - WINDOW.height)).toBeLessThanOrEqual(1)
      expect(l.charts.scrollHeight).toBeLessThanOrEqual(l.charts.clientHeight)
      expect(Math.abs(l.ytdBottom - (WINDOW.height - l.charts.paddingBottom))).toBeLessThanOrEqual(1)
    }
    try {
      await page.waitForFunction(() => /metrics loaded/.test(document.getElementById('metric-count').textContent))
      expectFills(await layout())
      await page.fill('#metric-search', 'web.h')
      await page.click('.metric-row[data-name="web.hits"]')
      await page.waitForSelector(`#ytd-total[data-total="${HITS_TOTAL}"]`)
      await waitPoints(page, 1440)
      expectFills(await layout())
      expect(await latencyShown(page)).toBe(false) // a counter: no latency panel
      await screenshot(page, 'dashboard-1280x800.png')

      // a distribution too: the latency panel joins the column, which still fits the window
      await page.fill('#metric-search', 'web.l')
      await page.click('.metric-row[data-name="web.latency"]')
      await waitPoints(page, 1440, 2)
      await waitLatency(page, 1440)
      expect(await latencyShown(page)).toBe(true)
      expectFills(await layout())
      await screenshot(page, 'dashboard-latency-1280x800.png')

      // the distribution removed: the panel goes, its room with it
      await page.click('.chip[data-name="web.latency"] button')
      await waitPoints(page, 1440, 1)
      await page.waitForSelector('#latency-panel', { state: 'hidden' })
      expectFills(await layout())
      expect(errors).toEqual([])
    } finally {
      await context.close()
    }
  }, 30_000)

  it('leaves no blank band above the charts: every gap from the top bar down to a chart\'s canvas is at most 16 px (1280×800)', async () => {
    const { page, context, errors } = await openPage('', { viewport: WINDOW })
    /**
     * The vertical gaps between what the page shows, top down: the top bar,
     * the chips and status line when they show anything, each panel shown
     * (series, latency when a distribution is selected, ytd) by its border,
     * and in each its title and its canvas (or the text saying what to pick)
     */
    const gaps = () => page.evaluate(() => {
      const shows = el => el.getClientRects().length > 0 && (el.children.length > 0 || el.textContent.trim() !== '')
      const inPanel = panel => [panel.querySelector('.panel-title'), panel.querySelector('canvas') ?? panel.querySelector('.empty')]
      const name = panel => panel.className.match(/(\w+)-panel/)[1]
      const panels = [...document.querySelectorAll('.charts > .panel')].filter(panel => panel.getClientRects().length > 0)
      const stack = [
        document.querySelector('.topbar'),
        ...[...document.querySelectorAll('.charts > :not(.panel)')].filter(shows),
        panels[0]
      ]
      const between = (name, above, below) => ({ name, gap: Math.round(below.getBoundingClientRect().top - above.getBoundingClientRect().bottom) })
      return [
        ...stack.slice(1).map((el, i) => between(`${stack[i].className} → ${el.className}`, stack[i], el)),
        ...panels.flatMap((panel, i) => [
          ...(i > 0 ? [between(`${name(panels[i - 1])} panel → ${name(panel)} panel`, panels[i - 1], panel)] : []),
          between(`${name(panel)} title → chart`, ...inPanel(panel))
        ])
      ]
    })
    const expectSmall = (list, panels = ['series', 'ytd']) => {
      expect(list.map(g => g.name).filter(n => / title → chart$/.test(n))).toEqual(panels.map(p => `${p} title → chart`))
      expect(list.length).toBeGreaterThanOrEqual(4)
      for (const { name, gap } of list) {
        expect(gap, name).toBeGreaterThanOrEqual(0)
        expect(gap, name).toBeLessThanOrEqual(16)
      }
    }
    try {
      await page.waitForFunction(() => /metrics loaded/.test(document.getElementById('metric-count').textContent))
      expectSmall(await gaps()) // nothing picked: no chips, no status
      await screenshot(page, 'dashboard-empty-1280x800.png')
      await page.fill('#metric-search', 'web.h')
      await page.click('.metric-row[data-name="web.hits"]')
      await page.waitForSelector(`#ytd-total[data-total="${HITS_TOTAL}"]`)
      await waitPoints(page, 1440)
      expectSmall(await gaps())

      // with a distribution: the latency panel between the series and the ytd panels, no band either
      await page.fill('#metric-search', 'web.l')
      await page.click('.metric-row[data-name="web.latency"]')
      await waitLatency(page, 1440)
      expectSmall(await gaps(), ['series', 'latency', 'ytd'])
      expect(errors).toEqual([])
    } finally {
      await context.close()
    }
  }, 30_000)

  it('auto falls back to the step the API names when the detail is not kept, for every metric of the chart', async () => {
    let requests
    const { page, context, errors } = await openPage('#m=web.hits,short.hits&r=24h&s=auto', { viewport: WINDOW, before: p => { requests = recordSeriesRequests(p) } })
    try {
      await waitPoints(page, 96, 2)
      const steps = metric => requests.filter(r => r.metric === metric).map(r => r.step)
      expect(steps('short.hits')).toEqual(['minute', 'quarter-hour']) // minute: 400, "use step=quarter-hour or coarser"
      expect(steps('web.hits')).toEqual(['minute', 'quarter-hour']) // asked again, to share the x axis
      expect(await page.$eval('#step option[value="auto"]', o => o.textContent)).toBe('auto (quarter-hour)')
      expect(await page.$eval('#status', el => el.classList.contains('error'))).toBe(false)

      // a step picked by hand stays as picked: short.hits answers the API's refusal, web.hits its minutes
      await page.selectOption('#step', 'minute')
      await waitPoints(page, 1440, 1)
      await page.waitForSelector('#status.error')
      expect(await page.textContent('#status')).toMatch(/short\.hits: step: minute detail is kept from 2026-11-21 on .* use step=quarter-hour or coarser/)
      expect(errors.filter(e => !/status of 400/.test(e))).toEqual([])
    } finally {
      await context.close()
    }
  }, 30_000)

  it('shows and asks in the browser\'s zone; another zone picked is kept in the URL', async () => {
    const answers = []
    const ytdAsked = []
    const keep = page => page.on('response', async r => {
      const url = new URL(r.url())
      if (url.pathname.endsWith('/series') && r.status() === 200) answers.push(await r.json())
      if (url.pathname.endsWith('/ytd')) ytdAsked.push(url.searchParams.get('tz'))
    })
    const { page, context, errors } = await openPage('#m=web.hits&r=24h', { viewport: WINDOW, labels: true, timezoneId: 'Asia/Kathmandu', before: keep })
    /** The centre of the x label `text`, and where the instant t lies on the axis of the last answer */
    async function labelAt (text, t) {
      const { plot, x } = await chartLabels(page)
      const { timestamps } = answers.at(-1)
      const label = x.find(b => b.text === text)
      expect(label, `a label ${text}`).toBeDefined()
      const at = plot.left + (t - timestamps[0]) / (timestamps.at(-1) - timestamps[0]) * (plot.right - plot.left)
      return { centre: (label.left + label.right) / 2, at }
    }
    try {
      await waitPoints(page, 1440)
      // the browser's name for it (Chromium's ICU still says Asia/Katmandu, an IANA link to Asia/Kathmandu)
      const viewer = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone)
      expect(['Asia/Kathmandu', 'Asia/Katmandu']).toContain(viewer)
      expect(answers.at(-1)).toMatchObject({ tz: viewer, step: 'minute' })
      await page.waitForFunction(() => document.getElementById('ytd-total').dataset.total !== '')
      expect(ytdAsked.at(-1)).toBe(viewer)
      expect(await page.$eval('#tz', el => el.value)).toBe(viewer)
      expect(new URLSearchParams(new URL(page.url()).hash.slice(1)).get('tz')).toBe(viewer)
      // the window and the axis in Kathmandu time: its midnight (18:15 UTC) is labelled 00:00
      expect(await page.textContent('#series-title')).toMatch(/^2026-11-20 17:45 GMT\+5:45 → 2026-11-21 17:45 GMT\+5:45$/)
      const kathmandu = await labelAt('00:00', Date.UTC(2026, 10, 20, 18, 15))
      expect(Math.abs(kathmandu.centre - kathmandu.at)).toBeLessThan(2)
      await screenshot(page, 'dashboard-tz-kathmandu.png')

      const [request] = await Promise.all([page.waitForRequest(isSeriesRequest), page.selectOption('#tz', 'America/New_York')])
      expect(new URL(request.url()).searchParams.get('tz')).toBe('America/New_York')
      await page.waitForFunction(() => /EST/.test(document.getElementById('series-title').textContent))
      await waitPoints(page, 1440)
      expect(answers.at(-1).tz).toBe('America/New_York')
      expect(new URLSearchParams(new URL(page.url()).hash.slice(1)).get('tz')).toBe('America/New_York')
      const newYork = await labelAt('00:00', Date.UTC(2026, 10, 21, 5))
      expect(Math.abs(newYork.centre - newYork.at)).toBeLessThan(2)
      // a reload keeps the zone picked, not the browser's
      answers.length = 0
      await page.reload()
      await waitPoints(page, 1440)
      expect(answers.at(-1).tz).toBe('America/New_York')
      expect(errors).toEqual([])
    } finally {
      await context.close()
    }
  }, 60_000)

  it('draws p50, p90 and p99 of a selected distribution in the latency panel, at the minute points of a minute series chart (24 h)', async () => {
    let requests
    const answers = []
    const { page, context, errors } = await openPage('#m=web.latency&r=24h', {
      viewport: WIDE,
      labels: true,
      before: p => {
        requests = recordSeriesRequests(p)
        p.on('response', async r => { if (isSeriesRequest(r.request()) && r.status() === 200) answers.push(await r.json()) })
      }
    })
    try {
      await waitPoints(page, 1440) // the series chart: auto fits minutes on 24 h
      await waitLatency(page, 1440, 'web.latency') // the panel: its minutes too, each from the minute's histogram
      expect(await latencyShown(page)).toBe(true)
      expect(await page.$eval('#latency-chart .u-over', el => el.getBoundingClientRect().width)).toBeGreaterThanOrEqual(1440) // a pixel a minute (WIDE)
      expect(await page.$eval('#latency-chart', el => el.dataset.step)).toBe('minute')
      expect(await page.textContent('#latency-note')).toBe('')
      expect(await page.$eval('#latency-metric', el => [el.value, [...el.options].map(o => o.value)])).toEqual(['web.latency', ['web.latency']])

      // the series chart asked for the distribution's default series (its count per point), the panel for three percentiles, over one window
      const main = { metric: 'web.latency', stat: null, step: 'minute', from: NOW - DAY, to: NOW }
      expect(requests).toEqual([main, ...['p50', 'p90', 'p99'].map(stat => ({ ...main, stat }))])
      await expect.poll(() => answers.some(a => a.step === 'minute')).toBe(true)
      const count = answers.find(a => a.step === 'minute')
      expect(count.stat).toBe('count')
      expect(count.values.reduce((sum, v) => sum + (v ?? 0), 0)).toBe(WEB_LATENCY.reduce((n, { values }) => n + values.length, 0))

      // three lines: p50, p90, p99; a value only where the minute holds some
      expect(await page.$$eval('#latency-chart .u-legend .u-series .u-label', els => els.map(el => el.textContent))).toEqual(['time (UTC)', 'p50', 'p90', 'p99'])
      expect(await page.$eval('#latency-chart', el => Number(el.dataset.nulls))).toBe(3 * (1440 - WEB_LATENCY.length))
      const asked = { from: NOW - DAY, to: NOW, step: 'minute' }
      const exact = await Promise.all(['p50', 'p90', 'p99'].map(stat => apiStat('web.latency', stat, asked)))
      for (const { at, index, p } of WEB_LATENCY) {
        const x = `2026-11-21 ${new Date(at).toISOString().slice(11, 16)} UTC`
        const [shownX, ...shown] = await readLegend(page, '#latency-chart', index / 1440, x)
        expect(shownX).toBe(x)
        // as the API answers them, and within its 1 % of the values' true percentiles (rounded to 2 decimals to read)
        expect(shown).toEqual(exact.map(values => formatNumber(values[index])))
        shown.forEach((text, i) => expect(Math.abs(Number(text.replace(/,/g, '')) - p[i]), `${x} ${['p50', 'p90', 'p99'][i]} ${text}`).toBeLessThanOrEqual(0.01 * p[i] + 0.005))
      }
      const at = Date.UTC(2026, 10, 21, 10, 45)
      expect((await readLegend(page, '#latency-chart', minuteIndex(at) / 1440, '2026-11-21 10:45 UTC')).slice(1)).toEqual(['no data', 'no data', 'no data'])
      expect((await readLegend(page, '#latency-chart', WEB_LATENCY[1].index / 1440, '2026-11-21 10:35 UTC')).slice(1)).toEqual(['250', '250', '250']) // all alike: exact

      // its axis labels neither overlap nor leave the canvas
      const { canvas, x, y } = await chartLabels(page, '#latency-chart')
      expect(x.length).toBeGreaterThanOrEqual(5)
      expect(y.length).toBeGreaterThanOrEqual(2)
      expect(overlappingPairs([...x, ...y])).toEqual([])
      for (const b of [...x, ...y]) {
        expect(b.left, b.text).toBeGreaterThanOrEqual(0)
        expect(b.right, b.text).toBeLessThanOrEqual(canvas.width)
        expect(b.bottom, b.text).toBeLessThanOrEqual(canvas.height)
      }
      await screenshot(page, 'dashboard-latency.png')
      expect(errors).toEqual([])
    } finally {
      await context.close()
    }
  }, 60_000)

  it('asks the latency panel\'s percentiles at the series chart\'s step, minutes included (1 h, 24 h, 7 d, 30 d, steps picked by hand)', async () => {
    const { page, context, errors } = await openPage('#m=web.latency&r=1h', { viewport: WINDOW })
    /** Waits for the series chart drawn as `asked`, and the panel at the step `expected` (its points over the same window) saying so when coarser */
    async function expectSteps (asked, expected) {
      await waitPoints(page, countPoints(asked.from, asked.to, asked.step))
      const note = expected === asked.step ? '' : `${expected} points, coarser than the series chart's ${asked.step}`
      await page.waitForFunction(([points, step, note]) => {
        const el = document.getElementById('latency-chart')
        return el.dataset.points === points && el.dataset.series === '3' && el.dataset.step === step && document.getElementById('latency-note').textContent === note
      }, [String(countPoints(asked.from, asked.to, expected)), expected, note], { timeout: 15_000 })
    }
    const latencyRequest = stat => page.waitForRequest(r => isSeriesRequest(r) && seriesRequest(r.url()).stat === stat)
    try {
      await expectSteps({ from: NOW - HOUR, to: NOW, step: 'minute' }, 'minute') // 60 minutes
      for (const [range, step] of RANGES) {
        const [asked, p99] = await Promise.all([clickRange(page, range), latencyRequest('p99')])
        expect(asked).toMatchObject({ metric: 'web.latency', stat: null, step })
        expect(seriesRequest(p99.url()), range).toEqual({ ...asked, stat: 'p99' })
        await expectSteps(asked, step)
      }
      // picked by hand: minute on 7 d (10,080 minutes: the panel at minutes too), then day (the panel at days too)
      await clickRange(page, '7d')
      await expectSteps({ from: NOW - 7 * DAY, to: NOW, step: 'quarter-hour' }, 'quarter-hour')
      await page.selectOption('#step', 'minute')
      await expectSteps({ from: NOW - 7 * DAY, to: NOW, step: 'minute' }, 'minute')
      await page.selectOption('#step', 'day')
      await expectSteps({ from: NOW - 7 * DAY, to: NOW, step: 'day' }, 'day')
      expect(errors).toEqual([])
    } finally {
      await context.close()
    }
  }, 60_000)

  it('where a distribution keeps no minutes the panel does as the series chart: the step the API names under auto, its minutes where kept (1 h), the API\'s refusal under a minute picked by hand', async () => {
    let requests
    const { page, context, errors } = await openPage('#m=short.latency&r=24h', { viewport: WINDOW, before: p => { requests = recordSeriesRequests(p) } })
    const asked = () => requests.map(r => `${r.metric} ${r.stat}@${r.step}`)
    try {
      // 24 h: minutes of short.* are kept from today only, so minute is refused and both read quarter-hours
      await waitPoints(page, 96)
      await waitLatency(page, 96, 'short.latency')
      expect(asked()).toEqual(['short.latency null@minute', 'short.latency null@quarter-hour', ...['p50', 'p90', 'p99'].map(stat => `short.latency ${stat}@quarter-hour`)])
      expect(await page.$eval('#latency-chart', el => el.dataset.step)).toBe('quarter-hour')
      expect(await page.textContent('#latency-note')).toBe('') // the series chart's step
      expect((await readLegend(page, '#latency-chart', 16 / 95, '2026-11-20 16:00 UTC')).slice(1)).toEqual(['3', '3', '3'])
      expect((await readLegend(page, '#latency-chart', 92 / 95, '2026-11-21 11:00 UTC')).slice(1)).toEqual(['7', '7', '7'])

      // 1 h, all of it today: minutes are kept, and the panel reads them
      requests.length = 0
      await clickRange(page, '1h')
      await waitPoints(page, 60)
      await waitLatency(page, 60, 'short.latency')
      expect(asked()).toEqual(['short.latency null@minute', ...['p50', 'p90', 'p99'].map(stat => `short.latency ${stat}@minute`)])
      expect(await page.textContent('#latency-note')).toBe('')
      expect((await readLegend(page, '#latency-chart', 0, '2026-11-21 11:00 UTC')).slice(1)).toEqual(['7', '7', '7'])

      // 24 h with minute picked by hand: the series chart shows the API's refusal, and so does the panel
      await clickRange(page, '24h')
      await waitLatency(page, 96, 'short.latency')
      requests.length = 0
      await page.selectOption('#step', 'minute')
      await page.waitForSelector('#latency-empty:not([hidden])')
      expect(asked()).toEqual(['short.latency null@minute', ...['p50', 'p90', 'p99'].map(stat => `short.latency ${stat}@minute`)])
      expect(await page.textContent('#status')).toMatch(/^short\.latency: step: minute detail is kept from 2026-11-21 on .* use step=quarter-hour or coarser/)
      expect(await page.textContent('#latency-empty')).toMatch(/^short\.latency p50: step: minute detail is kept from 2026-11-21 on .* use step=quarter-hour or coarser/)
      expect(await page.$eval('#latency-chart', el => el.dataset.points)).toBe('0')
      expect(errors.filter(e => !/status of 400/.test(e))).toEqual([])
    } finally {
      await context.close()
    }
  }, 60_000)

  it('picks the distribution the latency panel shows with its selector, keeps it in the URL, and shows no panel for counters only', async () => {
    let requests
    const { page, context, errors } = await openPage('#m=web.hits,web.latency,db.latency&r=24h', { viewport: WIDE, before: p => { requests = recordSeriesRequests(p) } })
    const hashOf = () => new URLSearchParams(new URL(page.url()).hash.slice(1))
    try {
      await waitPoints(page, 1440, 3) // the series chart keeps every metric's default series
      await waitLatency(page, 1440, 'web.latency') // the first distribution selected
      expect(await page.$eval('#latency-metric', el => [...el.options].map(o => o.value))).toEqual(['web.latency', 'db.latency']) // distributions only
      expect(hashOf().get('lat')).toBe('web.latency')

      requests.length = 0
      await page.selectOption('#latency-metric', 'db.latency')
      await waitLatency(page, 1440, 'db.latency')
      expect(requests.map(r => `${r.metric} ${r.stat}@${r.step}`)).toEqual(['db.latency p50@minute', 'db.latency p90@minute', 'db.latency p99@minute']) // the series chart is not asked again
      const [{ index, p }] = DB_LATENCY
      expect(await readLegend(page, '#latency-chart', index / 1440, '2026-11-21 10:01 UTC')).toEqual(['2026-11-21 10:01 UTC', ...p.map(String)])
      expect(hashOf().get('lat')).toBe('db.latency')
      await screenshot(page, 'dashboard-latency-picked.png')

      // a reload keeps it
      await page.reload()
      await waitLatency(page, 1440, 'db.latency')
      expect(await page.$eval('#latency-metric', el => el.value)).toBe('db.latency')

      // db.latency removed: the panel shows the distribution left; that removed too, no panel
      await page.click('.chip[data-name="db.latency"] button')
      await waitLatency(page, 1440, 'web.latency')
      expect(await page.$eval('#latency-metric', el => [...el.options].map(o => o.value))).toEqual(['web.latency'])
      await page.click('.chip[data-name="web.latency"] button')
      await waitPoints(page, 1440, 1)
      await page.waitForSelector('#latency-panel', { state: 'hidden' })
      expect(await page.$eval('#latency-chart', el => el.dataset.points)).toBe('0')
      expect(hashOf().has('lat')).toBe(false)

      // the list marks the distributions (the registry is past one page: the search asks for names starting with the text)
      await page.fill('#metric-search', 'web.')
      await page.waitForSelector('#metric-list[data-shown="3"]')
      expect(await badges(page)).toEqual([['web.errors', 'counter'], ['web.hits', 'counter'], ['web.latency', 'distribution']])
      await page.fill('#metric-search', 'db.')
      await page.waitForSelector('#metric-list[data-shown="1"]')
      expect(await badges(page)).toEqual([['db.latency', 'distribution']])
      expect(errors).toEqual([])
    } finally {
      await context.close()
    }

    // counters only from the start: the panel never shows, no percentile is asked
    let asked
    const counters = await openPage('#m=web.hits,web.errors&r=24h', { viewport: WINDOW, before: p => { asked = recordSeriesRequests(p) } })
    try {
      await waitPoints(counters.page, 1440, 2)
      await counters.page.waitForSelector(`#ytd-total[data-total="${HITS_TOTAL}"]`) // drawn after the kinds are known
      expect(await latencyShown(counters.page)).toBe(false)
      expect(asked.map(r => r.stat)).toEqual([null, null])
      expect(counters.errors).toEqual([])
    } finally {
      await counters.context.close()
    }
  }, 60_000)
  it('asks no year to date of a gauge and shows no error for it; a counter beside it has its own', async () => {
    const ytdAsked = []
    const { page, context, errors } = await openPage('#m=queue.depth&r=24h', {
      viewport: WINDOW,
      before: p => p.on('request', r => { if (new URL(r.url()).pathname.endsWith('/ytd')) ytdAsked.push(new URL(r.url()).pathname) })
    })
    try {
      await waitPoints(page, 1440)
      // the ytd panel done: it says why it is empty, or the status line shows an error
      await page.waitForFunction(() => /no year to date/i.test(document.getElementById('ytd-empty').textContent) || document.getElementById('status').classList.contains('error'))
      expect(ytdAsked).toEqual([])
      expect(await page.$eval('#status', el => el.classList.contains('error'))).toBe(false)
      expect(await page.isVisible('#ytd-empty')).toBe(true)
      expect(await page.textContent('#ytd-empty')).toBe('No year to date for queue.depth (gauge).')
      expect(await page.isVisible('#ytd-metric')).toBe(false)
      await screenshot(page, 'dashboard-gauge.png')

      // a counter beside it: the ytd selector offers the counter only, and only it is asked
      await page.fill('#metric-search', 'web.h')
      await page.click('.metric-row[data-name="web.hits"]')
      await page.waitForSelector(`#ytd-total[data-total="${HITS_TOTAL}"]`)
      expect(await page.$eval('#ytd-metric', el => [...el.options].map(o => o.value))).toEqual(['web.hits'])
      expect(ytdAsked).toEqual(['/v1/metrics/web.hits/ytd'])
      expect(await page.$eval('#status', el => el.classList.contains('error'))).toBe(false)
      expect(errors).toEqual([])
    } finally {
      await context.close()
    }
  }, 30_000)

  it('marks every metric in the list with a badge naming its kind, a gauge too', async () => {
    const { page, context, errors } = await openPage('', { viewport: WINDOW })
    try {
      await page.waitForFunction(() => /metrics loaded/.test(document.getElementById('metric-count').textContent))
      await page.fill('#metric-search', 'queue.')
      await page.waitForSelector('#metric-list[data-shown="1"]')
      expect(await badges(page)).toEqual([['queue.depth', 'gauge']])
      expect(await page.$eval('.metric-row[data-name="queue.depth"] .kind-badge', el => el.title)).toBe('gauge: a point is its level')
      await page.fill('#metric-search', 'bulk.0000')
      await page.waitForSelector('#metric-list[data-shown="10"]')
      expect((await badges(page)).every(([, badge]) => badge === 'counter')).toBe(true) // a registry entry without a kind is a counter
      expect(errors).toEqual([])
    } finally {
      await context.close()
    }
  }, 30_000)

  it('names the default stat of a distribution and of a gauge in the series legend', async () => {
    const { page, context, errors } = await openPage('#m=web.hits,web.latency,queue.depth&r=24h', { viewport: WIDE })
    try {
      await waitPoints(page, 1440, 3)
      expect((await legendSeries(page)).map(s => s.label)).toEqual(['web.hits', 'web.latency (count)', 'queue.depth (last)'])
      expect(errors).toEqual([])
    } finally {
      await context.close()
    }
  }, 30_000)

  it('labels every y axis with what a point is and per which step: one axis per kind of point', async () => {
    const { page, context, errors } = await openPage('#m=web.hits,web.latency,queue.depth&r=24h', { viewport: WIDE, labels: true })
    try {
      await waitPoints(page, 1440, 3)
      await waitLatency(page, 1440, 'web.latency')
      await page.waitForSelector(`#ytd-total[data-total="${HITS_TOTAL}"]`)
      // one y axis per kind of point: counts per minute, values per minute, a level
      expect((await yLabels(page)).words).toEqual(['count per minute', 'values per minute', 'level'])
      expect((await yLabels(page, '#latency-chart')).words).toEqual(['minute percentiles'])
      expect((await yLabels(page, '#ytd-chart')).words).toEqual(['count per month'])
      await screenshot(page, 'dashboard-kinds-24h.png')

      // 7 d: quarter-hours
      const asked = await clickRange(page, '7d')
      expect(asked.step).toBe('quarter-hour')
      await waitPoints(page, pointsAsked(asked), 3)
      expect((await yLabels(page)).words).toEqual(['count per quarter-hour', 'values per quarter-hour', 'level'])
      expect(errors).toEqual([])
    } finally {
      await context.close()
    }
  }, 30_000)

  it('gives two metrics shown together two colours and draws both solid, even where their names hash to one colour', async () => {
    expect(colorOf('db.latency')).toBe(colorOf('web.hits'))
    const { page, context, errors } = await openPage('#m=web.hits,db.latency&r=1h', { viewport: WINDOW })
    try {
      await waitPoints(page, 60, 2)
      const [hits, latency] = await legendSeries(page)
      expect(hits.colour).not.toBe(latency.colour)
      expect([hits.line, latency.line]).toEqual(['solid', 'solid'])
      // the chips show the colours the chart draws
      expect(await page.$$eval('#selected .chip .swatch', els => els.map(el => window.getComputedStyle(el).backgroundColor))).toEqual([hits.colour, latency.colour])
      await screenshot(page, 'dashboard-two-colours.png')
      expect(errors).toEqual([])
    } finally {
      await context.close()
    }
  }, 30_000)

  it('starts the series chart\'s y axis at 0 for counts ("This year" too), not for a gauge\'s level', async () => {
    const { page, context, errors } = await openPage('#m=sales.units&r=year', { viewport: WINDOW, labels: true })
    try {
      await waitPoints(page, Math.ceil((NOW - Date.UTC(2026, 0, 1)) / DAY))
      const { plot, ticks } = await yLabels(page)
      expect(ticks.length).toBeGreaterThanOrEqual(2)
      const lowest = ticks.reduce((a, b) => (b.bottom > a.bottom ? b : a))
      expect(lowest.text).toBe('0')
      expect(Math.abs((lowest.top + lowest.bottom) / 2 - plot.bottom)).toBeLessThan(3)
      await screenshot(page, 'dashboard-year-from-0.png')
      expect(errors).toEqual([])
    } finally {
      await context.close()
    }
    // a level keeps its own range: levels of 120 to 135 are not drawn from 0
    const gauge = await openPage('#m=queue.depth&r=24h', { viewport: WINDOW, labels: true })
    try {
      await waitPoints(gauge.page, 1440)
      const { ticks } = await yLabels(gauge.page)
      expect(ticks.length).toBeGreaterThanOrEqual(2)
      expect(ticks.map(b => b.text)).not.toContain('0')
      expect(gauge.errors).toEqual([])
    } finally {
      await gauge.context.close()
    }
  }, 30_000)
})
