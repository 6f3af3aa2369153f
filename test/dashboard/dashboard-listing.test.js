// The dashboard's metric list and links in headless Chromium (as
// dashboard.test.js, whose browser and flags it shares), over a registry of
// more than one page (10,000 names) whose first page ends on a declared
// rollup's series: the list pages past it to every metric once; a page that
// fails is said in the list and asked again only at a click, never in a loop;
// a linked gauge or distribution series is shown as its name's kind; a series
// whose tag value holds `,` survives the URL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { testApp } from '../helpers/test-app.js'
import { CHROMIUM_FLAGS, findChromium } from './chromium.js'

const chromiumPath = findChromium()
const skip = !chromiumPath && !process.env.CI // CI installs it: there a missing browser fails
if (skip) console.log('dashboard listing browser test skipped: no chromium on this machine (apt-get install chromium)')

const NOW = Date.UTC(2026, 10, 21, 12, 0)
const MIN = 60_000
const PAGE = 10_000 // the picker's page (metric-picker.js)
const COMMA = 'a.comma;route=/a,b'
// sorted: a.comma, COMMA, a.hits, its SERIES series, then its rollup series: the first page's last entry is a rollup's
const SERIES = PAGE - 4
const ROLLUPS = 3
const LATER = ['z.after', 'z.depth', 'z.depth;host=a', 'z.lat', 'z.lat;region=eu'] // on the second page only
const HASH = 'r=24h&s=hour&tz=UTC'

describe.skipIf(skip)('the dashboard\'s metric list and links in headless Chromium', () => {
  let app
  let browser
  let base
  const n = i => String(i).padStart(5, '0')
  const series = Array.from({ length: SERIES }, (_, i) => `a.hits;n=${n(i)}`)
  const listed = ['a.comma', COMMA, 'a.hits', ...series, ...LATER] // every metric listed, in order

  beforeAll(async () => {
    app = await testApp('dashboard-listing', { clock: manualClock(NOW), env: { PREALLOC_PROBABILITY: '0', ROLLUP_RULES: JSON.stringify([{ match: 'a.hits', by: [['n']] }]) } })
    const ts = NOW - 30 * MIN
    const events = [
      { metric: 'a.comma', tags: { route: '/a,b' }, value: 4, ts },
      { metric: 'z.after', value: 1, ts },
      { metric: 'z.depth', kind: 'gauge', tags: { host: 'a' }, value: 7, ts },
      ...[12, 15, 40].map(value => ({ metric: 'z.lat', kind: 'distribution', tags: { region: 'eu' }, value, ts }))
    ]
    expect((await app.inject({ method: 'POST', url: '/v1/events', payload: events })).json()).toEqual({ accepted: events.length })
    // a.hits, its series and its rollup's series, as its writes would have left them (faster than 10,000 events)
    const seen = new Date(ts)
    const ids = ['a.hits', ...series, ...Array.from({ length: ROLLUPS }, (_, i) => `a.hits;~n;n=${n(i)}`)]
    await app.mongo.db.collection('metrics').insertMany(ids.map(_id => ({ _id, firstSeen: seen, lastSeen: seen, added: seen })))
    const stored = (await app.mongo.db.collection('metrics').find({}, { projection: { _id: 1 } }).sort({ _id: 1 }).toArray()).map(d => d._id)
    expect(stored[PAGE - 1]).toBe('a.hits;~n;n=00000') // the first page's last entry: a rollup series
    expect(stored.filter(id => !id.includes(';~'))).toEqual(listed)
    await app.listen({ port: 0, host: '127.0.0.1' })
    base = `http://127.0.0.1:${app.server.address().port}`
    const { chromium } = await import('playwright-core')
    browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: CHROMIUM_FLAGS })
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await app?.close()
  })

  /** A page of its own; refused: the API's answers of 400 and more, as `status path` */
  async function openPage (hash, { before } = {}) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, timezoneId: 'UTC' })
    const page = await context.newPage()
    const errors = []
    const refused = []
    page.on('pageerror', err => errors.push(err.message))
    page.on('response', r => { if (r.status() >= 400) refused.push(`${r.status()} ${decodeURIComponent(new URL(r.url()).pathname + new URL(r.url()).search)}`) })
    await page.clock.setFixedTime(NOW)
    await before?.(page)
    await page.goto(`${base}/#${hash}`)
    return { page, context, errors, refused }
  }

  const count = page => page.textContent('#metric-count')
  const firstPageIn = page => page.waitForFunction(n => document.getElementById('metric-count').textContent.endsWith(`${n}+ metrics loaded`), PAGE.toLocaleString('en-US'))
  const scrollToEnd = page => page.$eval('#metric-list', el => { el.scrollTop = el.scrollHeight })
  const chips = page => page.$$eval('#selected .chip', els => els.map(el => el.dataset.name))
  const legendLabels = page => page.$$eval('#chart .u-legend .u-series:not(:first-child) .u-label', els => els.map(el => el.textContent))
  const waitSeries = (page, n) => page.waitForSelector(`#chart[data-series="${n}"]`, { timeout: 15_000 })

  it('pages the list past a first page that ends on a rollup\'s series: every metric once', async () => {
    const { page, context, errors, refused } = await openPage(HASH)
    try {
      await firstPageIn(page)
      // a row in view keeps its element while the list scrolls (a click during a redraw lands on the row under it)
      const row = await page.$(`.metric-row[data-name="${listed[20]}"]`)
      expect(await page.$(`.metric-row[data-name="${listed[50]}"]`)).toBeNull()
      await page.$eval('#metric-list', el => { el.scrollTop = 10 * 24 }) // ten rows down: row 50 comes into the drawn ones
      await page.waitForSelector(`.metric-row[data-name="${listed[50]}"]`)
      expect(await row.evaluate(el => [el.hidden, el.dataset.name, el.getAttribute('aria-posinset')])).toEqual([false, listed[20], '21'])
      await scrollToEnd(page)
      const all = `${listed.length.toLocaleString('en-US')} metrics`
      await page.waitForFunction(all => document.getElementById('metric-count').textContent.endsWith(` · ${all}`), all, { timeout: 15_000 })
      expect(await count(page)).toBe(`${listed.length.toLocaleString('en-US')} shown · ${all}`) // none twice
      // the rows as the filter draws them, before any scroll event moves the list back to its top
      await page.$eval('#metric-list', (el, n) => new window.MutationObserver((changes, observer) => {
        if (el.dataset.shown !== n) return
        observer.disconnect()
        window.drawnAtFilter = [...el.querySelectorAll('.metric-row:not([hidden])')].map(r => r.dataset.name)
      }).observe(el, { attributes: true, attributeFilter: ['data-shown'] }), String(LATER.length))
      await page.fill('#metric-search', 'z.')
      await page.waitForSelector(`#metric-list[data-shown="${LATER.length}"]`)
      expect(await page.evaluate(() => window.drawnAtFilter)).toEqual(LATER)
      expect(await page.$$eval('.metric-row:not([hidden])', rows => rows.map(r => r.dataset.name))).toEqual(LATER)
      expect(refused).toEqual([])
      expect(errors).toEqual([])
    } finally {
      await context.close()
    }
  })

  it.each([400, 429, 503])('says a next page refused with %i in the list and asks it again only when clicked', async (status) => {
    const asked = [] // the next pages asked, each answered `status` while `refusing`
    let refusing = true
    const { page, context, errors } = await openPage(HASH, {
      before: p => p.route(url => url.pathname === '/v1/metrics' && url.searchParams.has('after'), route => {
        asked.push(new URL(route.request().url()).searchParams.get('after'))
        if (!refusing) return route.continue()
        return route.fulfill({ status, contentType: 'application/json', headers: status === 429 ? { 'retry-after': '1' } : {}, body: JSON.stringify({ statusCode: status, error: 'refused', message: `refused with ${status}` }) })
      })
    })
    try {
      await firstPageIn(page)
      await scrollToEnd(page)
      await page.waitForSelector('#status.error')
      expect(await page.textContent('#status')).toBe(`metrics: refused with ${status}`)
      // the last row stays in view, drawn again at each scroll, and the page answers other requests: nothing asks the page again
      for (let i = 0; i < 5; i++) {
        await page.$eval('#metric-list', el => { el.scrollTop -= 48 })
        await page.evaluate(() => new Promise(resolve => window.requestAnimationFrame(() => resolve())))
        await scrollToEnd(page)
        await page.evaluate(() => new Promise(resolve => window.requestAnimationFrame(() => resolve())))
        await page.evaluate(() => fetch('/v1/kinds').then(r => r.json()))
      }
      expect(asked).toEqual([listed[PAGE - 1]]) // after the first page's last metric
      const failedRow = '.metric-row.more.failed:not([hidden])'
      expect(await page.textContent(failedRow)).toContain(`refused with ${status}`)
      // a click asks again, once
      await page.click(failedRow)
      await expect.poll(() => asked.length).toBe(2)
      await page.waitForSelector(failedRow)
      await page.evaluate(() => fetch('/v1/kinds').then(r => r.json()))
      expect(asked).toHaveLength(2)
      // answered at last: the rest of the list
      refusing = false
      await page.click(failedRow)
      await page.waitForFunction(n => document.getElementById('metric-count').textContent.endsWith(` · ${n} metrics`), listed.length.toLocaleString('en-US'), { timeout: 15_000 })
      expect(asked).toHaveLength(3)
      expect(await page.$$eval('.metric-row.more:not([hidden])', rows => rows.length)).toBe(0)
      expect(errors).toEqual([])
    } finally {
      await context.close()
    }
  })

  it('says a first page refused in the count and asks it again only when its retry is clicked', async () => {
    let asked = 0
    let refusing = true
    const { page, context, errors } = await openPage(HASH, {
      before: p => p.route(url => url.pathname === '/v1/metrics' && !url.searchParams.has('after'), route => {
        asked++
        if (!refusing) return route.continue()
        return route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ statusCode: 503, error: 'Service Unavailable', message: 'database unavailable' }) })
      })
    })
    try {
      await page.waitForSelector('#metric-list-retry', { timeout: 15_000 })
      expect(await count(page)).toBe('couldn’t load the metrics (database unavailable) retry')
      await page.evaluate(() => fetch('/v1/kinds').then(r => r.json())) // the page answers other requests; nothing asks again
      expect(asked).toBe(1)
      refusing = false
      await page.click('#metric-list-retry')
      await firstPageIn(page)
      expect(asked).toBe(2)
      expect(errors).toEqual([])
    } finally {
      await context.close()
    }
  })

  it('a search\'s page on its way replaces neither a newer search nor a cleared box; a failed one\'s retry goes when another begins', async () => {
    let refuseA = true
    const held = new Map() // prefix → release() of its answer
    const asked = []
    const { page, context, errors } = await openPage(HASH, {
      before: p => p.route(url => url.pathname === '/v1/metrics' && url.searchParams.has('prefix'), async route => {
        const prefix = new URL(route.request().url()).searchParams.get('prefix')
        asked.push(prefix)
        if (prefix === 'a.c' && refuseA) {
          refuseA = false
          return route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ statusCode: 503, error: 'Service Unavailable', message: 'database unavailable' }) })
        }
        await new Promise(resolve => held.set(prefix, resolve))
        return route.continue()
      })
    })
    const rows = () => page.$$eval('.metric-row:not([hidden])', els => els.map(r => r.dataset.name))
    try {
      await firstPageIn(page)
      await page.fill('#metric-search', 'a.c')
      await page.waitForSelector('#metric-list-retry', { timeout: 15_000 })
      await page.fill('#metric-search', 'z')
      await expect.poll(() => held.has('z')).toBe(true)
      expect([await count(page), await page.$('#metric-list-retry')]).toEqual(['loading…', null])
      held.get('z')()
      await page.waitForFunction(() => document.getElementById('metric-count').textContent.endsWith('metrics starting with “z”'))
      expect(await rows()).toEqual(LATER)
      // a search asked, then the box cleared before its answer: the registry's first page stays
      await page.fill('#metric-search', 'a.c')
      await expect.poll(() => held.has('a.c')).toBe(true)
      await page.fill('#metric-search', '')
      await page.waitForFunction(n => document.getElementById('metric-count').textContent.endsWith(`${n}+ metrics loaded`), PAGE.toLocaleString('en-US'))
      const answered = page.waitForResponse(r => new URL(r.url()).searchParams.get('prefix') === 'a.c')
      held.get('a.c')()
      await (await answered).finished()
      await page.evaluate(() => fetch('/v1/kinds').then(r => r.json())) // a round trip after the answer reached the page
      await page.evaluate(() => new Promise(resolve => window.requestAnimationFrame(() => resolve())))
      expect(await count(page)).toBe(`${PAGE.toLocaleString('en-US')} shown · ${PAGE.toLocaleString('en-US')}+ metrics loaded`)
      expect(asked).toEqual(['a.c', 'z', 'a.c'])
      expect(errors).toEqual([])
    } finally {
      await context.close()
    }
  })

  it('shows a linked gauge series and distribution series as their names\' kinds, past the list\'s first page', async () => {
    const { page, context, errors, refused } = await openPage(`m=${encodeURIComponent('z.depth;host=a,z.lat;region=eu')}&${HASH}`)
    try {
      await waitSeries(page, 2)
      expect(await legendLabels(page)).toEqual(['z.depth;host=a (last)', 'z.lat;region=eu (count)'])
      // the distribution's latency panel, its year to date; none for the gauge
      await page.waitForSelector('#latency-chart[data-series="3"][data-metric="z.lat;region=eu"]', { timeout: 15_000 })
      expect(await page.$$eval('#ytd-metric option', els => els.map(el => el.value))).toEqual(['z.lat;region=eu'])
      expect(refused).toEqual([])
      expect(errors).toEqual([])
    } finally {
      await context.close()
    }
  })

  it('keeps a series whose tag value holds "," whole in the URL; a link of plain names reads as before', async () => {
    const { page, context, errors, refused } = await openPage(HASH)
    try {
      await page.click(`.metric-row[data-name="${COMMA}"]`)
      await waitSeries(page, 1)
      expect(await chips(page)).toEqual([COMMA])
      expect(await legendLabels(page)).toEqual([COMMA])
      await page.reload()
      await page.waitForSelector('#selected .chip')
      expect(await chips(page)).toEqual([COMMA])
      await waitSeries(page, 1)
      expect(await legendLabels(page)).toEqual([COMMA])
      await page.waitForFunction(() => document.getElementById('ytd-total').dataset.total === '4')
      expect(refused).toEqual([])
      expect(errors).toEqual([])
    } finally {
      await context.close()
    }
    const old = await openPage(`m=a.comma,z.after&${HASH}`)
    try {
      await waitSeries(old.page, 2)
      expect(await chips(old.page)).toEqual(['a.comma', 'z.after'])
      expect([...old.refused, ...old.errors]).toEqual([])
    } finally {
      await old.context.close()
    }
  })
})
