// The dashboard's tag controls in headless Chromium (as dashboard.test.js,
// whose browser and flags it shares): tagged counters, distributions and
// gauges written through POST /v1/events, picked by tag filter and grouped
// by key, each line checked against the API's answer to the same request,
// the choice kept in the URL, hostile tag values shown as text.
// docs/adr/0061-dashboard-tags.md
import { mkdirSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { formatNumber } from '../../src/dashboard/js/format.js'
import { VALUES_PAGE } from '../../src/dashboard/js/tag-controls.js'
import { LABEL_VALUE_LENGTH } from '../../src/dashboard/js/tag-selection.js'
import { formatIn } from '../../src/dashboard/js/zone.js'
import { testApp } from '../helpers/test-app.js'
import { CHROMIUM_FLAGS, findChromium } from './chromium.js'
import { isSeriesRequest } from './page-probes.js'

const chromiumPath = findChromium()
const skip = !chromiumPath && !process.env.CI // CI installs it: there a missing browser fails
if (skip) console.log('dashboard tags browser test skipped: no chromium on this machine (apt-get install chromium)')

const NOW = Date.UTC(2026, 10, 21, 12, 0)
const MIN = 60_000
const HOUR = 60 * MIN
const LAST_HOUR = NOW - HOUR // the last point of 24 h at step hour (its bucket over at NOW: not partial)
const SCREENSHOTS = new URL('../../test-results/', import.meta.url)
const HOSTILE = '<b>bold</b><img src onerror>'
const LONG = 'W'.repeat(128)
// web.requests: a counter by route and status, in the last hour and 3 hours before
const REQUESTS = [
  [{ route: '/login', status: '500' }, 2], [{ route: '/home', status: '500' }, 1],
  [{ route: '/login', status: '200' }, 5], [{ route: '/home', status: '200' }, 3]
]
// api.latency: a distribution by region; queue.size: a gauge by host, two of them hostile
const LATENCY = { eu: [10, 20, 30], us: [100, 200] }
const LEVELS = { a: [5, 7], [HOSTILE]: [40], [LONG]: [9] }

describe.skipIf(skip)('dashboard tags in headless Chromium', () => {
  let app
  let browser
  let base
  const clock = manualClock(NOW)

  beforeAll(async () => {
    app = await testApp('dashboard-tags', { clock, env: { PREALLOC_PROBABILITY: '0' } })
    const events = [
      ...REQUESTS.flatMap(([tags, value]) => [{ metric: 'web.requests', tags, value, ts: LAST_HOUR + 20 * MIN }, { metric: 'web.requests', tags, value: value * 10, ts: NOW - 3 * HOUR }]),
      ...Object.entries(LATENCY).flatMap(([region, values]) => values.map(value => ({ metric: 'api.latency', kind: 'distribution', tags: { region }, value, ts: LAST_HOUR + 5 * MIN }))),
      ...Object.entries(LEVELS).flatMap(([host, values]) => values.map((value, i) => ({ metric: 'queue.size', kind: 'gauge', tags: { host }, value, ts: LAST_HOUR + (10 + i) * MIN }))),
      { metric: 'plain.hits', value: 4, ts: LAST_HOUR + 30 * MIN },
      // paged.hits: more values of one key than a page of the value list
      ...Array.from({ length: VALUES_PAGE + 5 }, (_, i) => ({ metric: 'paged.hits', tags: { n: String(i).padStart(3, '0') }, value: 1, ts: LAST_HOUR }))
    ]
    const res = await app.inject({ method: 'POST', url: '/v1/events', payload: events })
    expect(res.statusCode, res.body).toBe(200)
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

  async function openPage (hash) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, timezoneId: 'UTC' })
    const page = await context.newPage()
    const errors = []
    page.on('pageerror', err => errors.push(err.message))
    page.on('console', msg => { if (msg.type() === 'error') errors.push(msg.text()) })
    const series = [] // the series requests' paths, in order
    page.on('request', r => { if (isSeriesRequest(r)) series.push(new URL(r.url()).pathname + new URL(r.url()).search) })
    await page.clock.setFixedTime(NOW)
    await page.goto(`${base}/#${hash}`)
    return { page, context, errors, series }
  }

  const waitSeries = (page, n, chart = '#chart') => page.waitForSelector(`${chart}[data-series="${n}"]`, { timeout: 15_000 })
  const legendLabels = (page, chart = '#chart') => page.$$eval(`${chart} .u-legend .u-series:not(:first-child) .u-label`, els => els.map(el => el.textContent))
  const hash = async page => new URLSearchParams(await page.evaluate(() => window.location.hash.slice(1)))

  /** The legend's values once the cursor is on the last point of the series chart (24 h at step hour) */
  async function lastPointValues (page) {
    const over = await page.$eval('#chart .u-over', el => { const r = el.getBoundingClientRect(); return { left: r.left, top: r.top, width: r.width, height: r.height } })
    await page.mouse.move(over.left + over.width - 2, over.top + over.height / 2)
    const x = formatIn('UTC', LAST_HOUR)
    await page.waitForFunction(x => document.querySelector('#chart .u-legend .u-series:nth-child(1) .u-value').textContent === x, x)
    return (await page.$$eval('#chart .u-legend .u-series .u-value', els => els.map(el => el.textContent))).slice(1)
  }

  /** The API's answer to the page's last request of `metric`'s default series (the latency panel's ask for stats) */
  async function apiAnswer (series, metric) {
    const path = series.findLast(p => p.startsWith(`/v1/metrics/${metric}/series`) && !new URL(p, base).searchParams.has('stat'))
    const res = await app.inject(path)
    expect(res.statusCode).toBe(200)
    return res.json()
  }
  const lastOf = values => formatNumber(values.at(-1))

  it('draws a line per group of a counter from the URL, its ytd per group, each as the API answers', async () => {
    const { page, context, errors, series } = await openPage('m=web.requests&r=24h&s=hour&tz=UTC&by=web.requests%3Bstatus')
    await waitSeries(page, 2)
    expect(await legendLabels(page)).toEqual(['web.requests {status=200}', 'web.requests {status=500}'])
    const answer = await apiAnswer(series, 'web.requests')
    expect(new URL(series.findLast(p => p.includes('web.requests/series')), base).searchParams.get('by')).toBe('status')
    expect(answer.groups.map(g => lastOf(g.values))).toEqual(['8', '3'])
    expect(await lastPointValues(page)).toEqual(answer.groups.map(g => lastOf(g.values)))
    // ytd: a line per group, the total their sum
    await waitSeries(page, 2, '#ytd-chart')
    expect(await legendLabels(page, '#ytd-chart')).toEqual(['{status=200}', '{status=500}'])
    const ytd = (await app.inject('/v1/metrics/web.requests/ytd?by=status&tz=UTC')).json()
    expect(Number(await page.$eval('#ytd-total', el => el.dataset.total))).toBe(ytd.groups.reduce((n, g) => n + g.total, 0))
    expect(ytd.groups.map(g => g.total)).toEqual([88, 33])
    // the controls show the choice
    expect(await page.$$eval('.tag-row[data-metric="web.requests"] .tag-by input:checked', els => els.map(e => e.value))).toEqual(['status'])
    await page.screenshot({ path: new URL('dashboard-tags-by.png', SCREENSHOTS).pathname })
    expect(errors).toEqual([])
    await context.close()
  })

  it('adds a filter and a group-by with the controls; the URL reproduces the view', async () => {
    const { page, context, errors, series } = await openPage('m=web.requests&r=24h&s=hour&tz=UTC')
    await waitSeries(page, 1)
    const row = '.tag-row[data-metric="web.requests"]'
    await page.waitForSelector(`${row} .tag-key`)
    await page.selectOption(`${row} .tag-key`, 'status')
    await page.waitForFunction(r => document.querySelectorAll(`${r} datalist option`).length === 2 && document.querySelector(`${r} datalist option`).value === '200', row)
    await page.selectOption(`${row} .tag-op`, '=~')
    await page.fill(`${row} .tag-value`, '5')
    await page.click(`${row} button[type=submit]`)
    await page.waitForFunction(() => [...document.querySelectorAll('#chart .u-legend .u-label')].some(l => l.textContent === 'web.requests [status=~5]'))
    expect((await hash(page)).getAll('tag')).toEqual(['web.requests;status=~5'])
    const filtered = await apiAnswer(series, 'web.requests')
    expect(new URL(series.findLast(p => p.includes('web.requests/series')), base).searchParams.getAll('tag')).toEqual(['status=~5'])
    expect(filtered.series).toBe(2)
    expect(await lastPointValues(page)).toEqual([lastOf(filtered.values)])
    expect(lastOf(filtered.values)).toBe('3')

    // group the filtered series by route
    await page.check(`${row} .tag-by input[value="route"]`)
    await waitSeries(page, 2)
    const labels = ['web.requests [status=~5] {route=/home}', 'web.requests [status=~5] {route=/login}']
    expect(await legendLabels(page)).toEqual(labels)
    const grouped = await apiAnswer(series, 'web.requests')
    expect(await lastPointValues(page)).toEqual(grouped.groups.map(g => lastOf(g.values)))
    expect(grouped.groups.map(g => lastOf(g.values))).toEqual(['1', '2'])
    const link = await page.evaluate(() => window.location.hash.slice(1))
    expect(new URLSearchParams(link).getAll('by')).toEqual(['web.requests;route'])
    await context.close()

    // the link alone: the same lines, the same controls
    const again = await openPage(link)
    await waitSeries(again.page, 2)
    expect(await legendLabels(again.page)).toEqual(labels)
    expect(await again.page.$$eval(`${row} .tag-filter`, els => els.map(e => e.dataset.filter))).toEqual(['status=~5'])
    expect(await again.page.$$eval(`${row} .tag-by input:checked`, els => els.map(e => e.value))).toEqual(['route'])
    expect(await lastPointValues(again.page)).toEqual(['1', '2'])
    // removing the filter: the groups of every status
    await again.page.click(`${row} .tag-filter button`)
    await again.page.waitForFunction(() => !new URLSearchParams(window.location.hash.slice(1)).has('tag'))
    await again.page.waitForFunction(() => [...document.querySelectorAll('#chart .u-legend .u-label')].some(l => l.textContent === 'web.requests {route=/home}'))
    expect(await lastPointValues(again.page)).toEqual(['4', '7'])
    expect([...errors, ...again.errors]).toEqual([])
    await again.context.close()
  })

  it('groups a distribution and a gauge: their default stats per group, as the API answers', async () => {
    const { page, context, errors, series } = await openPage('m=api.latency,queue.size&r=24h&s=hour&tz=UTC&by=api.latency%3Bregion&by=queue.size%3Bhost')
    await waitSeries(page, 5)
    const short = `${LONG.slice(0, LABEL_VALUE_LENGTH)}…`
    // hosts sorted by the API as JSON text: the hostile value's "<" before "W" before "a"
    const latency = await apiAnswer(series, 'api.latency')
    const queue = await apiAnswer(series, 'queue.size')
    expect(queue.groups.map(g => g.tags.host)).toEqual([HOSTILE, LONG, 'a'])
    expect(await legendLabels(page)).toEqual([
      'api.latency (count) {region=eu}', 'api.latency (count) {region=us}',
      `queue.size (last) {host=${HOSTILE}}`, `queue.size (last) {host=${short}}`, 'queue.size (last) {host=a}'
    ])
    const expected = [...latency.groups, ...queue.groups].map(g => lastOf(g.values))
    expect(expected).toEqual(['3', '2', '40', '9', '7'])
    expect(await lastPointValues(page)).toEqual(expected)
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true)
    // the latency panel still draws the distribution's percentiles
    await page.waitForSelector('#latency-chart[data-series="3"][data-metric="api.latency"]', { timeout: 15_000 })
    await page.screenshot({ path: new URL('dashboard-tags-kinds.png', SCREENSHOTS).pathname })
    expect(errors).toEqual([])
    await context.close()
  })

  it('filters a distribution\'s series, latency panel and ytd alike', async () => {
    const { page, context, errors, series } = await openPage('m=api.latency&r=24h&s=hour&tz=UTC&tag=api.latency%3Bregion%3Dus')
    await waitSeries(page, 1)
    expect(await legendLabels(page)).toEqual(['api.latency (count) [region=us]'])
    expect(await lastPointValues(page)).toEqual(['2'])
    await page.waitForSelector('#latency-chart[data-series="3"][data-metric="api.latency"]', { timeout: 15_000 })
    const stats = series.filter(p => new URL(p, base).searchParams.has('stat'))
    expect(stats.length).toBeGreaterThanOrEqual(3)
    for (const p of stats) expect(new URL(p, base).searchParams.getAll('tag')).toEqual(['region=us'])
    // us holds 100 and 200: the filtered p50 is 100 (within 1 %), the name's (with eu's 10, 20, 30) 30
    const p50 = (await app.inject(stats.findLast(p => p.includes('stat=p50')))).json()
    expect(p50.values.at(-1)).toBeCloseTo(100, -1)
    await page.waitForFunction(() => document.getElementById('ytd-total').dataset.total === '2')
    expect(errors).toEqual([])
    await context.close()
  })

  it('shows hostile and long tag values as text, never markup, in a column that does not widen', async () => {
    const filter = `host=${HOSTILE}`
    const { page, context, errors } = await openPage(`m=queue.size&r=24h&s=hour&tz=UTC&tag=${encodeURIComponent(`queue.size;${filter}`)}`)
    await waitSeries(page, 1)
    const row = '.tag-row[data-metric="queue.size"]'
    await page.waitForFunction(r => document.querySelectorAll(`${r} datalist option`).length === 3, row)
    expect(await page.$$eval(`${row} datalist option`, els => els.map(e => e.value))).toEqual([HOSTILE, LONG, 'a'])
    expect(await page.$eval(`${row} .tag-filter`, el => el.firstChild.textContent)).toBe(filter)
    expect(await legendLabels(page)).toEqual([`queue.size (last) [${filter}]`])
    expect(await lastPointValues(page)).toEqual(['40'])
    // nothing of the values became an element, and nothing is wider than the window
    expect(await page.$$eval('b, img', els => els.length)).toBe(0)
    // a second filter narrows nothing here; a filter past the API's 64 characters is its 400, shown as text
    await page.selectOption(`${row} .tag-op`, '!=')
    await page.fill(`${row} .tag-value`, 'a')
    await page.click(`${row} button[type=submit]`)
    await page.waitForFunction(() => new URLSearchParams(window.location.hash.slice(1)).getAll('tag').length === 2)
    await page.waitForFunction(() => [...document.querySelectorAll('#chart .u-legend .u-label')].some(l => l.textContent.endsWith(', host!=a]')))
    expect(await lastPointValues(page)).toEqual(['40'])
    await page.selectOption(`${row} .tag-op`, '=')
    await page.fill(`${row} .tag-value`, LONG)
    await page.click(`${row} button[type=submit]`)
    await page.waitForSelector('#status.error')
    expect(await page.textContent('#status')).toMatch(/^queue\.size: .*tag/)
    expect(await page.$$eval(`${row} .tag-filter`, els => els.map(e => e.dataset.filter))).toEqual([filter, 'host!=a', `host=${LONG}`])
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true)
    expect(await page.$$eval('b, img', els => els.length)).toBe(0)
    expect(errors.filter(e => !e.includes('400'))).toEqual([]) // the refused read's own console line
    await context.close()
  })

  it('pages a key\'s values; an untagged metric shows no tag controls', async () => {
    const { page, context, errors } = await openPage('m=paged.hits,plain.hits&r=24h&s=hour&tz=UTC')
    await waitSeries(page, 2)
    const row = '.tag-row[data-metric="paged.hits"]'
    await page.waitForFunction(([r, n]) => document.querySelectorAll(`${r} datalist option`).length === n, [row, VALUES_PAGE])
    expect(await page.isVisible(`${row} .tag-more`)).toBe(true)
    expect(await page.textContent(`${row} .tag-count`)).toBe(`${VALUES_PAGE} of ${VALUES_PAGE + 5} values`)
    await page.click(`${row} .tag-more`)
    await page.waitForFunction(([r, n]) => document.querySelectorAll(`${r} datalist option`).length === n, [row, VALUES_PAGE + 5])
    expect(await page.isVisible(`${row} .tag-more`)).toBe(false)
    expect(await page.$$eval('.tag-row', rows => rows.map(r => r.dataset.metric))).toEqual(['paged.hits'])
    await context.close()

    const plain = await openPage('m=plain.hits&r=24h&s=hour&tz=UTC')
    await waitSeries(plain.page, 1)
    await plain.page.waitForSelector('#tag-controls[data-ready]', { state: 'attached' })
    expect(await plain.page.$$eval('#tag-controls > *', els => els.length)).toBe(0)
    expect(await plain.page.isVisible('#tag-controls')).toBe(false)
    expect(await legendLabels(plain.page)).toEqual(['plain.hits'])
    expect([...errors, ...plain.errors]).toEqual([])
    await plain.context.close()
  })
})
