// The Graphite tag API on the real app: seriesByTag, groupByTags and
// aliasByTags in /render, and /tags, /tags/<tag>, /tags/findSeries and
// /tags/autoComplete/* over the tag index; hostile inputs are a 400 naming
// the rule (graphite-web's own answers: test/graphite/tags-oracle.test.js).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { testApp } from '../helpers/test-app.js'

const NOW = Date.UTC(2026, 2, 2, 10, 30)
let app

beforeAll(async () => {
  app = await testApp('graphitetags', { clock: manualClock(NOW), env: { PREALLOC_PROBABILITY: '0', MAX_SERIES: '3' } })
  const at = NOW - 120_000
  const res = await app.inject({
    method: 'POST',
    url: '/v1/events',
    payload: [
      { metric: 'web.requests', tags: { route: 'login', status: '500' }, value: 2, ts: at },
      { metric: 'web.requests', tags: { route: 'login', status: '200' }, value: 5, ts: at },
      { metric: 'web.requests', tags: { route: 'home', status: '200' }, value: 3, ts: at },
      { metric: 'db.queries', tags: { table: 'users' }, value: 1, ts: at },
      { metric: 'plain.counter', value: 1, ts: at }
    ]
  })
  expect(res.statusCode, res.body).toBe(200)
})
afterAll(async () => { await app?.close() })

const get = async (url) => {
  const res = await app.inject({ url })
  return { status: res.statusCode, body: res.json() }
}
const render = target => get(`/render?from=-5min&until=-1min&target=${encodeURIComponent(target)}`)

describe('the tag routes', () => {
  it('list the tags, name included, and a tag\'s values with their series', async () => {
    expect(await get('/tags')).toEqual({ status: 200, body: [{ tag: 'name' }, { tag: 'route' }, { tag: 'status' }, { tag: 'table' }] })
    expect((await get('/tags?filter=s&limit=1')).body).toEqual([{ tag: 'status' }])
    expect((await get('/tags/status')).body).toEqual({ tag: 'status', values: [{ value: '200', count: 2 }, { value: '500', count: 1 }] })
    expect((await get('/tags/name')).body).toEqual({ tag: 'name', values: [{ value: 'db.queries', count: 1 }, { value: 'web.requests', count: 3 }] })
    expect(await get('/tags/nope')).toEqual({ status: 200, body: null })
  })

  it('find series by expressions across names, the name a tag', async () => {
    expect((await get('/tags/findSeries?expr=status=200')).body).toEqual(['web.requests;route=home;status=200', 'web.requests;route=login;status=200'])
    // a series without the tag is matched as if its value were empty
    expect((await get('/tags/findSeries?expr=name=~.*q&expr=status!=200')).body).toEqual(['db.queries;table=users', 'web.requests;route=login;status=500'])
    expect((await get('/tags/findSeries?expr=table!=')).body).toEqual(['db.queries;table=users'])
  })

  it('autocomplete tags and values, with and without expressions', async () => {
    expect((await get('/tags/autoComplete/tags')).body).toEqual(['name', 'route', 'status', 'table'])
    expect((await get('/tags/autoComplete/tags?tagPrefix=st')).body).toEqual(['status'])
    expect((await get('/tags/autoComplete/tags?expr=name=web.requests')).body).toEqual(['route', 'status'])
    expect((await get('/tags/autoComplete/values?tag=status&limit=1')).body).toEqual(['200'])
    expect((await get('/tags/autoComplete/values?tag=name&expr=status!=')).body).toEqual(['web.requests'])
    expect((await get('/tags/autoComplete/values?tag=route&expr=status=500&valuePrefix=l')).body).toEqual(['login'])
    const form = await app.inject({ method: 'POST', url: '/tags/autoComplete/values', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'tag=route&expr=status%3D200' })
    expect(form.json()).toEqual(['home', 'login'])
  })
})

describe('the tag functions', () => {
  it('seriesByTag names each series canonically and carries its tags', async () => {
    const { status, body } = await render("seriesByTag('name=web.requests','status=200')")
    expect(status).toBe(200)
    expect(body.map(s => [s.target, s.tags])).toEqual([
      ['web.requests;route=home;status=200', { name: 'web.requests', route: 'home', status: '200' }],
      ['web.requests;route=login;status=200', { name: 'web.requests', route: 'login', status: '200' }]
    ])
    expect(body.map(s => s.datapoints.map(([v]) => v))).toEqual([[0, 0, 3, 0], [0, 0, 5, 0]])
  })

  it('groupByTags sums each group; aliasByTags names by tags and nodes', async () => {
    const grouped = await render("groupByTags(seriesByTag('name=web.requests'),'sum','status')")
    expect(grouped.body.map(s => [s.target, s.tags, s.datapoints[2][0]])).toEqual([
      ['web.requests;status=200', { name: 'web.requests', status: '200' }, 8],
      ['web.requests;status=500', { name: 'web.requests', status: '500' }, 2]
    ])
    const aliased = await render("aliasByTags(seriesByTag('status=500'),'route',1,'name')")
    expect(aliased.body.map(s => s.target)).toEqual(['login.requests.web.requests'])
    expect((await render("sumSeries(seriesByTag('status=200'))")).body.map(s => s.target)).toEqual(["sumSeries(seriesByTag('status=200'))"])
  })

  it('refuses past MAX_SERIES, without a spec that requires a value, and a regex RE2 cannot run', async () => {
    const over = await render("seriesByTag('name=~.+')")
    expect(over.status).toBe(400)
    expect(over.body.message).toMatch(/MAX_SERIES = 3/)
    const none = await render("seriesByTag('status!=200')")
    expect(none.status).toBe(400)
    expect(none.body.message).toMatch(/must require a value/)
    const backref = await get('/tags/findSeries?expr=' + encodeURIComponent('status=~(2)\\1'))
    expect(backref.status).toBe(400)
    expect(backref.body.message).toMatch(/RE2/)
    // a regex past 256 instructions (a test would cost ms a value), in an expression or a listing's filter
    for (const url of ['/tags/findSeries?expr=' + encodeURIComponent('status=~(?:.?){1000}'), '/tags/status?filter=' + encodeURIComponent('(?:.?){1000}'), '/tags?filter=' + encodeURIComponent('(?:.?){1000}')]) {
      const costly = await get(url)
      expect(costly.status, url).toBe(400)
      expect(costly.body.message, url).toMatch(/compiles to \d+ instructions, over 256/)
    }
  })
})

describe('hostile tag queries', () => {
  it('a pathological regex runs in linear time and answers', async () => {
    const res = await get('/tags/findSeries?expr=' + encodeURIComponent('route=~(x+x+)+y') + '&expr=status=200')
    expect(res).toEqual({ status: 200, body: [] })
  })

  it('10,000 expressions, a 1 MB expression, a bad limit: a 400 naming the rule', async () => {
    const many = Array.from({ length: 10_000 }, (_, i) => `expr=k${i}%3Dv`).join('&')
    const form = { 'content-type': 'application/x-www-form-urlencoded' }
    const tooMany = await app.inject({ method: 'POST', url: '/tags/findSeries', headers: form, payload: many })
    expect(tooMany.statusCode).toBe(400)
    expect(tooMany.json().message).toMatch(/at most 16 tag expressions, got 10000/)
    const seventeen = await get('/tags/findSeries?' + Array.from({ length: 17 }, (_, i) => `expr=k${i}%3Dv`).join('&'))
    expect(seventeen.status).toBe(400)
    expect(seventeen.body.message).toMatch(/at most 16 tag expressions/)
    const huge = await app.inject({ method: 'POST', url: '/tags/autoComplete/tags', headers: form, payload: 'expr=status%3D' + 'a'.repeat(1_000_000) })
    expect(huge.statusCode).toBe(400)
    expect(huge.json().message).toMatch(/at most 512 characters/)
    const limit = await get('/tags/autoComplete/tags?limit=-1')
    expect(limit.status).toBe(400)
    expect(limit.body.message).toMatch(/limit=-1/)
    const target = await render(`seriesByTag(${Array.from({ length: 17 }, (_, i) => `'k${i}=v'`).join(',')})`)
    expect(target.status).toBe(400)
    expect(target.body.message).toMatch(/at most 16 tag expressions/)
  })
})
