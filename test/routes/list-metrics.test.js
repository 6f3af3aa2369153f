// GET /v1/metrics paged beside declared rollups: a rollup's series are never
// listed, and never a page's `next` either. Every `next` is taken back as
// `after`, each page holds `limit` metrics unless it is the last, and the
// pages list every metric once, with a prefix or without (docs/api.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { isRollupSeries } from '../../src/tags/rollups.js'
import { testApp } from '../helpers/test-app.js'

const NOW = Date.UTC(2026, 2, 2, 10, 30)
const RULES = JSON.stringify([{ match: 'web.*', by: [['route'], ['route', 'status']] }])
const ROUTES = ['/a', '/b', '/c']
const STATUSES = ['200', '500']

describe('GET /v1/metrics beside declared rollups', () => {
  let app
  let listed // every metric, as one page lists them
  const get = async url => {
    const res = await app.inject(url)
    expect(res.statusCode, `${url}: ${res.body}`).toBe(200)
    return res.json()
  }

  /** Every page from the first, `limit` a page → the pages' names */
  async function walk (limit, prefix = '') {
    const pages = []
    let after
    for (;;) {
      const page = await get(`/v1/metrics?limit=${limit}${prefix ? `&prefix=${prefix}` : ''}${after === undefined ? '' : `&after=${encodeURIComponent(after)}`}`)
      const names = page.metrics.map(m => m.name)
      pages.push(names)
      if (page.next === null) return pages
      expect(names, `a page before the last holds ${limit}`).toHaveLength(limit)
      expect(page.next).toBe(names.at(-1))
      after = page.next
      expect(pages.length).toBeLessThanOrEqual(listed.length) // each page moves on
    }
  }

  beforeAll(async () => {
    app = await testApp('list_metrics', { clock: manualClock(NOW), env: { PREALLOC_PROBABILITY: '0', ROLLUP_RULES: RULES } })
    const events = [
      ...ROUTES.flatMap(route => STATUSES.map(status => ({ metric: 'web.req', tags: { route, status }, value: 1, ts: NOW - 60_000 }))),
      { metric: 'web.req', tags: { route: '/a' }, value: 1, ts: NOW - 60_000 },
      { metric: 'web.ok', tags: { route: '/z' }, value: 1, ts: NOW - 60_000 },
      { metric: 'aaa.first', value: 1, ts: NOW - 60_000 },
      { metric: 'zzz.other', value: 1, ts: NOW - 60_000 }
    ]
    expect((await app.inject({ method: 'POST', url: '/v1/events', payload: events })).json()).toEqual({ accepted: events.length })
    listed = (await get('/v1/metrics')).metrics.map(m => m.name)
  })
  afterAll(async () => { await app?.close() })

  it('lists no rollup series, though the registry holds them between the names', async () => {
    const stored = (await app.mongo.db.collection('metrics').find({}, { projection: { _id: 1 } }).sort({ _id: 1 }).toArray()).map(d => d._id)
    expect(stored.filter(isRollupSeries).length).toBeGreaterThan(ROUTES.length)
    expect(listed).toEqual(stored.filter(id => !isRollupSeries(id)))
    expect(listed).toEqual([
      'aaa.first', 'web.ok', 'web.ok;route=/z', 'web.req', 'web.req;route=/a',
      ...ROUTES.flatMap(route => STATUSES.map(status => `web.req;route=${route};status=${status}`)), 'zzz.other'
    ])
  })

  it('pages every metric once at every page size: each `next` is the page\'s last name, taken back as `after`', async () => {
    for (let limit = 1; limit <= listed.length + 1; limit++) {
      const pages = await walk(limit)
      expect(pages.flat(), `limit=${limit}`).toEqual(listed)
      expect(pages).toHaveLength(Math.max(1, Math.ceil(listed.length / limit)))
    }
  })

  it('pages a prefix alike', async () => {
    const web = listed.filter(n => n.startsWith('web.'))
    for (let limit = 1; limit <= web.length; limit++) expect((await walk(limit, 'web.')).flat(), `limit=${limit}`).toEqual(web)
  })

  it('moves past a run of rollup series: the page after a name\'s last series is the next metric, not an empty page', async () => {
    // web.req's rollup series sort after its last series and before zzz.other
    expect(await get(`/v1/metrics?limit=1&after=${encodeURIComponent('web.req;route=/c;status=500')}`)).toMatchObject({ metrics: [{ name: 'zzz.other' }], next: null })
    expect(await get(`/v1/metrics?limit=1&prefix=web.&after=${encodeURIComponent('web.req;route=/c;status=500')}`)).toEqual({ metrics: [], next: null })
    // a page that reaches past them: two series, then the metric after the rollups
    expect((await get(`/v1/metrics?limit=3&after=${encodeURIComponent('web.req;route=/b;status=500')}`)).metrics.map(m => m.name))
      .toEqual(['web.req;route=/c;status=200', 'web.req;route=/c;status=500', 'zzz.other'])
  })
})
