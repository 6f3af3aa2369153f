// Tags through POST /v1/events and POST /v1/statsd against a real server:
// every event counts toward its series and its name, and the reads by tag —
// filters in Graphite's syntax, by=, total and ytd, in UTC and in a zone —
// equal an independent model of the raw events. Hostile tags are a 400 that
// names the rule and change nothing; a name's new series past
// MAX_SERIES_PER_NAME are refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { seededRandom } from '../../scripts/shared/workload.js'
import net from 'node:net'
import { testApp } from '../helpers/test-app.js'
import { until } from '../statsd/helpers.js'

const NOW = Date.UTC(2026, 10, 21, 12, 0)
const clock = manualClock(NOW)
const HOUR = 3_600_000
let app

beforeAll(async () => {
  app = await testApp('tagged_reads', { clock, random: () => 0.99, env: { MAX_SERIES_PER_NAME: '40' } })
})
afterAll(async () => { await app?.close() })

const post = body => app.inject({ method: 'POST', url: '/v1/events', payload: body })
const get = async url => { const res = await app.inject(url); return { status: res.statusCode, body: res.json() } }

// the model: raw events { route, status, value, time }; a group's sum is the sum of its events
const ROUTES = ['/login', '/home', '/api/v1/items']
const STATUSES = ['200', '404', '500']
const events = []
/** Groups' order: their keys' values in turn, as a key's values are listed (code unit order) */
const inValueOrder = (a, b) => { for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1; return 0 }
const sum = (pick, from, to) => events.filter(e => pick(e) && e.time >= from && e.time < to).reduce((n, e) => n + e.value, 0)

describe('tagged counters through POST /v1/events', () => {
  beforeAll(async () => {
    const random = seededRandom(7)
    const body = []
    for (let i = 0; i < 600; i++) {
      const e = { route: ROUTES[Math.floor(random() * 3)], status: STATUSES[Math.floor(random() * 3)], value: 1 + Math.floor(random() * 5), time: NOW - 2 * 24 * HOUR + Math.floor(random() * 2 * 24 * HOUR) }
      events.push(e)
      // tags as an object, or in the name (in any order), or both
      const form = i % 3
      if (form === 0) body.push({ metric: 'web.requests', tags: { route: e.route, status: e.status }, value: e.value, ts: e.time })
      else if (form === 1) body.push({ metric: `web.requests;status=${e.status};route=${e.route}`, value: e.value, ts: e.time })
      else body.push({ metric: `web.requests;route=${e.route}`, tags: { status: e.status }, value: e.value, ts: e.time })
    }
    const res = await post(body)
    expect(res.json()).toEqual({ accepted: 600 })
  })

  it('the name is the sum of its series; a series is read by its canonical name (a / in a value sent as %2F)', async () => {
    const from = NOW - 3 * 24 * HOUR
    const to = NOW
    const all = await get(`/v1/metrics/web.requests/total?from=${from}&to=${to}`)
    expect(all.body.total).toBe(sum(() => true, from, to))
    const one = await get(`/v1/metrics/${encodeURIComponent('web.requests;route=/login;status=500')}/total?from=${from}&to=${to}`)
    expect(one.status).toBe(200)
    expect(one.body.total).toBe(sum(e => e.route === '/login' && e.status === '500', from, to))
    // tags in another order, as a client may write them: the same series, named canonically in the answer
    const reordered = await get(`/v1/metrics/${encodeURIComponent('web.requests;status=500;route=/login')}/total?from=${from}&to=${to}`)
    expect(reordered).toEqual(one)
    const list = await get('/v1/metrics?prefix=web.requests')
    expect(list.body.metrics.map(m => m.name)).toEqual(['web.requests', ...ROUTES.flatMap(r => STATUSES.map(s => `web.requests;route=${r};status=${s}`))].sort())
  })

  it.each([
    [['status=500'], e => e.status === '500'],
    [['status!=200'], e => e.status !== '200'],
    [['status=~5'], e => e.status.startsWith('5')],
    [['status!=~[24]'], e => !/^[24]/.test(e.status)],
    [['route=~/api', 'status=200'], e => e.route.startsWith('/api') && e.status === '200'],
    [['route=/nowhere'], () => false]
  ])('tag=%j: total, series at every step and ytd equal the model', async (filters, pick) => {
    const query = filters.map(f => `tag=${encodeURIComponent(f)}`).join('&')
    const from = NOW - 2 * 24 * HOUR
    const total = await get(`/v1/metrics/web.requests/total?from=${from}&to=${NOW}&${query}`)
    expect(total.status).toBe(200)
    expect(total.body.total).toBe(sum(pick, from, NOW))
    for (const step of ['minute', 'hour', 'day']) {
      const f = step === 'minute' ? NOW - 6 * HOUR : from
      const series = await get(`/v1/metrics/web.requests/series?from=${f}&to=${NOW}&step=${step}&${query}`)
      expect(series.status).toBe(200)
      const { timestamps, values } = series.body
      const width = { minute: 60_000, hour: HOUR, day: 24 * HOUR }[step]
      timestamps.forEach((t, i) => expect(values[i] ?? 0, `${step} ${new Date(t).toISOString()}`).toBe(sum(pick, Math.max(t, f), Math.min(t + width, NOW))))
    }
    const ytd = await get(`/v1/metrics/web.requests/ytd?tz=Asia/Kathmandu&${query}`)
    expect(ytd.status).toBe(200)
    expect(ytd.body.total).toBe(sum(pick, 0, NOW))
  })

  it('by=status,route: one group per combination, each the model\'s sum; in a zone by local day', async () => {
    const from = Date.UTC(2026, 10, 19, 18, 15) // midnight in Asia/Kathmandu (+05:45)
    const res = await get(`/v1/metrics/web.requests/series?from=${from}&to=${from + 2 * 24 * HOUR}&step=day&tz=Asia/Kathmandu&by=status,route`)
    expect(res.status).toBe(200)
    expect(res.body.groups.map(g => g.tags)).toEqual(STATUSES.flatMap(status => [...ROUTES].sort().map(route => ({ status, route }))))
    for (const g of res.body.groups) {
      res.body.timestamps.forEach((t, i) => expect(g.values[i] ?? 0).toBe(sum(e => e.status === g.tags.status && e.route === g.tags.route, t, t + 24 * HOUR)))
    }
    const totals = await get(`/v1/metrics/web.requests/total?from=${from}&to=${NOW}&by=route&tag=status!=404`)
    expect(totals.body.groups).toEqual([...ROUTES].sort().map(route => ({ tags: { route }, series: 2, total: sum(e => e.route === route && e.status !== '404', from, NOW) })))
  })

  it('top: the k largest groups by exact total, ties in the order of their tags', async () => {
    const from = NOW - 2 * 24 * HOUR
    const window = `from=${from}&to=${NOW}`
    for (const [by, k] of [['route', 2], ['status', 10], ['route,status', 4]]) {
      const top = await get(`/v1/metrics/web.requests/top?by=${by}&k=${k}&${window}`)
      expect(top.status).toBe(200)
      const keys = by.split(',')
      const model = new Map()
      for (const e of events.filter(x => x.time >= from && x.time < NOW)) {
        const tags = Object.fromEntries(keys.map(key => [key, e[key]]))
        const id = JSON.stringify(tags)
        model.set(id, { tags, total: (model.get(id)?.total ?? 0) + e.value })
      }
      const ranked = [...model.values()].sort((a, b) => b.total - a.total || inValueOrder(keys.map(k => a.tags[k]), keys.map(k => b.tags[k])))
      expect(top.body.groups.map(({ tags, total }) => ({ tags, total }))).toEqual(ranked.slice(0, k))
      expect(top.body.of).toBe(model.size)
    }
    const filtered = await get(`/v1/metrics/web.requests/top?by=route&k=1&tag=status=500&${window}`)
    const routes = ROUTES.map(route => ({ tags: { route }, total: sum(e => e.route === route && e.status === '500', from, NOW) }))
    expect(filtered.body.groups.map(({ tags, total }) => ({ tags, total }))).toEqual([routes.sort((a, b) => b.total - a.total || (a.tags.route < b.tags.route ? -1 : 1))[0]])
    expect((await get(`/v1/metrics/web.requests/top?by=route&k=0&${window}`)).status).toBe(400)
    expect((await get(`/v1/metrics/web.requests/top?${window}`)).status).toBe(400)
  })

  it('groups, and top\'s ties, in the order a key\'s values are listed (a value before the longer ones it begins), a series without the key last', async () => {
    const values = ['a#', 'a b', 'a', 'a"', 'a!']
    expect((await post([...values.map(route => ({ metric: 'order.r', tags: { route }, value: 2, ts: NOW - HOUR })), { metric: 'order.r', tags: { other: 'x' }, value: 2, ts: NOW - HOUR }])).json()).toEqual({ accepted: 6 })
    const listed = (await get('/v1/metrics/order.r/tags/route')).body.values.map(v => v.value)
    expect(listed).toEqual(['a', 'a b', 'a!', 'a"', 'a#'])
    const window = `from=${NOW - 2 * HOUR}&to=${NOW}`
    const total = await get(`/v1/metrics/order.r/total?by=route&${window}`)
    expect(total.body.groups.map(g => g.tags.route)).toEqual([...listed, null])
    const top = await get(`/v1/metrics/order.r/top?by=route&k=3&${window}`)
    expect(top.body.groups.map(g => [g.tags.route, g.total])).toEqual([['a', 2], ['a b', 2], ['a!', 2]])
    const series = await get(`/v1/metrics/order.r/series?by=other,route&step=hour&${window}`)
    expect(series.body.groups.map(g => [g.tags.other, g.tags.route])).toEqual([['x', null], ...listed.map(route => [null, route])])
  })

  it('the tag listings: keys with their number of values, and a key\'s values', async () => {
    expect((await get('/v1/metrics/web.requests/tags')).body).toEqual({ metric: 'web.requests', series: 9, keys: [{ key: 'route', values: 3 }, { key: 'status', values: 3 }] })
    expect((await get('/v1/metrics/web.requests/tags/status')).body).toEqual({ metric: 'web.requests', key: 'status', values: STATUSES.map(value => ({ value, series: 3 })), next: null })
    expect((await get('/v1/metrics/web.requests/tags/status?limit=2')).body.next).toBe('404')
    expect((await get('/v1/metrics/web.requests/tags/status?after=404')).body.values).toEqual([{ value: '500', series: 3 }])
    expect((await get('/v1/metrics/no.such/tags')).status).toBe(404)
  })
})

describe('hostile tags: a 400 naming the rule, nothing changed', () => {
  it.each([
    ['{"metric":"h.t","tags":{"__proto__":"x"},"value":1}', /holds a __proto__ key/],
    [{ metric: 'h.t', tags: { constructor: 'x' }, value: 1 }, /reserved/],
    [{ metric: 'h.t', tags: { name: 'x' }, value: 1 }, /reserved/],
    [{ metric: 'h.t', tags: { k: 'a;b' }, value: 1 }, /without ; or =/],
    [{ metric: 'h.t', tags: { k: 'a=b' }, value: 1 }, /without ; or =/],
    [{ metric: 'h.t', tags: { k: '~a' }, value: 1 }, /not starting with ~/],
    [{ metric: 'h.t', tags: { k: '' }, value: 1 }, /empty value/],
    [{ metric: 'h.t', tags: { k: 'x'.repeat(1_000_000) }, value: 1 }, /longer than 128/],
    [{ metric: 'h.t', tags: Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, 'v'])), value: 1 }, /tags|16/],
    [{ metric: 'h.t', tags: { 'a b': 'x' }, value: 1 }, /not a tag key/],
    [{ metric: 'h.t;k=1', tags: { k: '2' }, value: 1 }, /given twice/],
    [{ metric: 'h.t;k', value: 1 }, /is not a tag/],
    [{ metric: 'h.t', tags: { k: 'a\u0000' }, value: 1 }, /breaks the rule/],
    [{ metric: 'h.t', tags: { k: '\ud800' }, value: 1 }, /lone surrogate/]
  ])('hostile event %#', async (event, message) => {
    const body = typeof event === 'string' ? event : JSON.stringify(event)
    const res = await app.inject({ method: 'POST', url: '/v1/events', payload: body, headers: { 'content-type': 'application/json' } })
    expect([400, 413]).toContain(res.statusCode)
    expect(res.json().message).toMatch(message)
    expect((await get('/v1/metrics?prefix=h.t')).body.metrics).toEqual([])
  })

  it('filters that break the rules: a 400 naming them; a pathological regex runs in linear time (RE2)', async () => {
    expect((await post({ metric: 'flt.x', tags: { route: 'aaa' }, value: 1 })).statusCode).toBe(200)
    for (const [query, message] of [['tag=status', /is not a tag filter/], ['tag=a b=1', /not a tag key/], ['tag=k=~(a', /regular expression/], ['tag=k=~(a)\\1', /regular expression/], ['by=a,a', /twice/], ['by=__proto__', /reserved/],
      // the name is the path's: a `name` filter would match no series (name=) or every one (name!=)
      [`tag=${encodeURIComponent('route=~(?:.?){200}')}`, /compiles to \d+ instructions, over 256/], [`tag=${encodeURIComponent('route=~a)|(?:b')}`, /is not a regular expression/],
      ['tag=name=flt.x', /the metric's name is not a tag/], ['tag=name!=flt.x', /the metric's name is not a tag/], ['by=name', /reserved/],
      // past the schema's bounds, given once or repeated: the bound named, not the other branch's type
      [`tag=route=${'a'.repeat(65)}`, /^querystring\.tag: must be at most 64 characters$/],
      [`tag=route=a&tag=route=${'a'.repeat(65)}`, /^querystring\.tag\.1: must be at most 64 characters$/],
      [Array.from({ length: 9 }, (_, i) => `tag=k${i}=v`).join('&'), /^querystring\.tag: may be given at most 8 times$/]]) {
      const res = await get(`/v1/metrics/flt.x/total?from=${NOW - HOUR}&to=${NOW}&${query}`)
      expect(res.status, query).toBe(400)
      expect(res.body.message).toMatch(message)
    }
    const evil = await get(`/v1/metrics/flt.x/total?from=${NOW - HOUR}&to=${NOW}&tag=${encodeURIComponent('route=~(a+)+(a+)+(a+)+(a+)+b')}`)
    expect(evil.status).toBe(200)
    expect(evil.body.total).toBe(0)
  })
})

describe('cardinality', () => {
  it('a new series past MAX_SERIES_PER_NAME: the request is a 400 naming the limit and nothing of it is stored', async () => {
    const first = Array.from({ length: 40 }, (_, i) => ({ metric: 'busy.name', tags: { user: `u${i}` }, value: 1 }))
    expect((await post(first)).json()).toEqual({ accepted: 40 })
    const res = await post([{ metric: 'busy.name', tags: { user: 'u0' }, value: 5 }, { metric: 'busy.name', tags: { user: 'u40' }, value: 1 }])
    expect(res.statusCode).toBe(400)
    expect(res.json().message).toMatch(/MAX_SERIES_PER_NAME = 40/)
    const total = await get(`/v1/metrics/busy.name/total?from=${NOW - HOUR}&to=${NOW + 60_000}`)
    expect(total.body.total).toBe(40)
    // a known series still takes values
    expect((await post({ metric: 'busy.name', tags: { user: 'u3' }, value: 2 })).json()).toEqual({ accepted: 1 })
  })

  it('POST /v1/statsd with a new series past the limit: a 400 naming it, as POST /v1/events', async () => {
    const first = Array.from({ length: 40 }, (_, i) => ({ metric: 'busy.sd', tags: { user: `u${i}` }, value: 1 }))
    expect((await post(first)).json()).toEqual({ accepted: 40 })
    const lines = ['busy.sd:1|c|#user:u1', 'busy.sd:1|c|#user:u99', 'other.name:3|c|#user:u99'].join('\n')
    const res = await app.inject({ method: 'POST', url: '/v1/statsd', payload: lines, headers: { 'content-type': 'text/plain' } })
    expect(res.statusCode).toBe(400) // POST /v1/statsd is all or nothing, as POST /v1/events
    expect(res.json().message).toMatch(/MAX_SERIES_PER_NAME/)
  })

  it('over the StatsD listeners a new series past the limit is dropped alone (registry_full); the packet\'s other values are kept', async () => {
    const sd = await testApp('tagged_statsd', { clock, env: { MAX_SERIES_PER_NAME: '2', STATSD_FLUSH_INTERVAL_MS: '20' }, statsd: true })
    try {
      const lines = ['sd.n:1|c|#u:a', 'sd.n:2|c|#u:b', 'sd.n:4|c|#u:c', 'sd.other:8|c|#u:c', 'sd.n:16|c|#u:a'].join('\n') + '\n'
      await new Promise((resolve, reject) => { const s = net.connect(sd.statsd.port, '127.0.0.1', () => s.end(lines)); s.on('close', resolve); s.on('error', reject) })
      const window = `from=${NOW - HOUR}&to=${NOW + 60_000}`
      await until(async () => (await sd.inject(`/v1/metrics/sd.other/total?${window}`)).statusCode === 200, 'the packet written')
      const total = async (name) => (await sd.inject(`/v1/metrics/${encodeURIComponent(name)}/total?${window}`)).json().total
      expect(await total('sd.n')).toBe(19) // a: 1 + 16, b: 2; c's value is lost with its series, not counted to its name
      expect(await total('sd.n;u=a')).toBe(17)
      expect(await total('sd.other')).toBe(8)
      expect((await sd.inject(`/v1/metrics/${encodeURIComponent('sd.n;u=c')}/total?${window}`)).statusCode).toBe(404)
      expect((await sd.inject('/metrics')).body).toMatch(/statbucket_statsd_dropped_total\{reason="registry_full"\} 1$/m)
    } finally {
      await sd.close()
    }
  })

  it('a series has its name\'s kind', async () => {
    expect((await post({ metric: 'kind.c', value: 1 })).statusCode).toBe(200)
    const res = await post({ metric: 'kind.c', tags: { route: '/x' }, kind: 'gauge', value: 1 })
    expect(res.statusCode).toBe(400)
    expect(res.json().message).toMatch(/"kind\.c" is a counter/)
  })
})

describe('deletion', () => {
  it('a series goes alone (its name keeps what it counted); a name takes its series with it, and no other name\'s', async () => {
    const events = [
      { metric: 'del.t', tags: { a: '1' }, value: 2 }, { metric: 'del.t', tags: { a: '2/x' }, value: 3 },
      { metric: 'del.t2', tags: { a: '1' }, value: 7 }
    ]
    expect((await post(events)).json()).toEqual({ accepted: 3 })
    const window = `from=${NOW - HOUR}&to=${NOW + 60_000}`
    // a series name that breaks the rules is a 400, nothing deleted
    for (const bad of ['del.t;=w', 'del.t;a=1;a=2', 'del.t;a']) {
      const res = await app.inject({ method: 'DELETE', url: `/v1/metrics/${encodeURIComponent(bad)}` })
      expect(res.statusCode, bad).toBe(400)
      expect(res.json().message, bad).toMatch(/^metric: /)
    }
    // tags in any order name the series (two tags, given in the other order)
    expect((await post([{ metric: 'del.u', tags: { a: '9', b: '1' }, value: 4 }])).json()).toEqual({ accepted: 1 })
    const reordered = await app.inject({ method: 'DELETE', url: `/v1/metrics/${encodeURIComponent('del.u;b=1;a=9')}` })
    expect(reordered.json()).toMatchObject({ metric: 'del.u;a=9;b=1', deleted: { registry: 1 } })
    expect((await get(`/v1/metrics/${encodeURIComponent('del.u;a=9;b=1')}/total?${window}`)).status).toBe(404)
    const one = await app.inject({ method: 'DELETE', url: `/v1/metrics/${encodeURIComponent('del.t;a=2/x')}` })
    expect(one.json().deleted).toMatchObject({ registry: 1, series: 0 })
    expect((await get(`/v1/metrics/del.t/total?${window}`)).body.total).toBe(5)
    expect((await get(`/v1/metrics/del.t/total?${window}&by=a`)).body.groups).toEqual([{ tags: { a: '1' }, series: 1, total: 2 }])
    expect((await get('/v1/metrics/del.t/tags/a')).body.values).toEqual([{ value: '1', series: 1 }])
    const all = await app.inject({ method: 'DELETE', url: '/v1/metrics/del.t' })
    expect(all.json().deleted).toMatchObject({ registry: 2, series: 1 })
    for (const name of ['del.t', 'del.t;a=1']) expect((await get(`/v1/metrics/${encodeURIComponent(name)}/total?${window}`)).status).toBe(404)
    expect((await get('/v1/metrics?prefix=del.t')).body.metrics.map(m => m.name)).toEqual(['del.t2', 'del.t2;a=1'])
    expect((await get(`/v1/metrics/del.t2/total?${window}`)).body.total).toBe(7)
  })
})

describe('cardinality, on its own names', () => {
  it('GET /v1/cardinality names the names with the most series, most first, and their keys with the most values', async () => {
    const body = [
      ...Array.from({ length: 30 }, (_, i) => ({ metric: 'card.top', tags: { user: `u${i}`, plan: i % 2 ? 'free' : 'paid' }, value: 1 })),
      ...Array.from({ length: 3 }, (_, i) => ({ metric: 'card.low', tags: { user: `u${i}` }, value: 1 }))
    ]
    expect((await post(body)).json()).toEqual({ accepted: 33 })
    const { status, body: answer } = await get('/v1/cardinality?limit=100')
    expect(status).toBe(200)
    expect(answer).toMatchObject({ maxSeriesPerName: 40, maxMetrics: 100_000 })
    const top = answer.names.find(n => n.name === 'card.top')
    expect(top).toEqual({ name: 'card.top', series: 30, keys: [{ key: 'user', values: 30 }, { key: 'plan', values: 2 }] })
    expect(answer.names.find(n => n.name === 'card.low')).toEqual({ name: 'card.low', series: 3, keys: [{ key: 'user', values: 3 }] })
    const counts = answer.names.map(n => n.series)
    expect(counts).toEqual([...counts].sort((a, b) => b - a))
    expect(answer.series).toBe(answer.names.reduce((n, x) => n + x.series, 0))
    expect(answer.metrics).toBeGreaterThanOrEqual(answer.series + answer.names.length)
    expect((await get('/v1/cardinality?limit=1')).body.names).toHaveLength(1)
    expect((await get('/v1/cardinality?limit=0')).status).toBe(400)
  })
})
