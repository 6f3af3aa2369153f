// The Graphite routes' own contract: bad input named (400), bounded work,
// READ_TOKENS, form-encoded POST, /functions, /version, tags (test/graphite/tag-api.test.js: tagged series).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { testApp } from '../helpers/test-app.js'

const NOW = Date.UTC(2025, 2, 10, 9, 0, 30)
const READ = 'read-token-0123456789abcdef'
const WRITE = 'write-token-0123456789abcdef'
let app

beforeAll(async () => {
  app = await testApp('graphite_routes', {
    clock: manualClock(NOW),
    env: { PREALLOC_PROBABILITY: '0', READ_TOKENS: READ, WRITE_TOKENS: WRITE, GRAPHITE_MAX_GLOB_METRICS: '3', MAX_POINTS: '1440', MINUTE_RETENTION_DAYS: '0' }
  })
  const events = ['g.a', 'g.b', 'g.c', 'g.d', 'h.one'].map((metric, i) => ({ metric, value: i + 1, ts: NOW - 60_000 * (i + 1) }))
  const res = await app.inject({ method: 'POST', url: '/v1/events', headers: { authorization: `Bearer ${WRITE}` }, payload: events })
  expect(res.statusCode).toBe(200)
})
afterAll(async () => { await app?.close() })

const get = (url, token = READ) => app.inject({ method: 'GET', url, headers: token ? { authorization: `Bearer ${token}` } : {} })

describe('Graphite routes', () => {
  it('answer only with a read token', async () => {
    expect((await get('/render?target=h.one&format=json', null)).statusCode).toBe(401)
    expect((await get('/metrics/find?query=*', 'not-a-token-0123456789')).statusCode).toBe(403)
    expect((await get('/version')).body).toBe('1.1.10')
  })

  it('name an unsupported function (400) and change nothing', async () => {
    const res = await get('/render?format=json&target=' + encodeURIComponent('sumSeries(highestMax(g.*,2))'))
    expect(res.statusCode).toBe(400)
    expect(res.json().message).toMatch(/unsupported function "highestMax"/)
  })

  it('name syntax errors, bad times and wrong argument types (400)', async () => {
    const bad = [
      ['target=sumSeries(g.a&format=json', /never closed/],
      ['target=g.a&format=json&from=-1m', /offset unit "m"/],
      ['target=g.a&format=json&from=yesterdayish', /unknown day reference/],
      ['target=' + encodeURIComponent('scale(g.a,"x")') + '&format=json', /scale: argument 2 \(factor\) must be a number/],
      ['target=' + encodeURIComponent('consolidateBy(g.a,"median")') + '&format=json', /consolidateBy: "median"/],
      ['target=g.a&format=png', /format=json only/],
      ['target=' + encodeURIComponent('g.[z-a]') + '&format=json', /glob "g\.\[z-a\]" is not valid/],
      ['target=g.a&format=json&from=99999999999999&until=99999999999999', /outside the years 1970\.\.9999/],
      ['target=' + encodeURIComponent('timeShift(g.a,"60y")') + '&format=json', /outside the years 1970\.\.9999/],
      ['target=' + encodeURIComponent('timeShift(g.a,"1d",true,true)') + '&format=json', /alignDST/],
      ['target=' + encodeURIComponent('hitcount(g.a,"1h",true)') + '&format=json', /alignToInterval/],
      ['target=g.a&format=json&tz=Mars/Olympus', /tz=Mars\/Olympus/]
    ]
    for (const [query, message] of bad) {
      const res = await get('/render?' + (query.includes('from=') ? '' : 'from=-1h&') + query)
      expect(res.statusCode, query).toBe(400)
      expect(res.json().message, query).toMatch(message)
    }
  })

  it('bound the work: a glob over GRAPHITE_MAX_GLOB_METRICS, a series over MAX_POINTS', async () => {
    const glob = await get('/render?format=json&target=g.*')
    expect(glob.statusCode).toBe(400)
    expect(glob.json().message).toMatch(/"g\.\*" matches more than GRAPHITE_MAX_GLOB_METRICS = 3/)
    expect((await get('/render?format=json&from=-1h&target=g.{a,b,c}')).statusCode).toBe(200)
    // 2,880 minutes would pass MAX_POINTS: quarter-hours; 1,825 days (graphite reads -5y as 5 × 365 days) pass it too: refused
    const twoDays = await get('/render?format=json&target=h.one&from=-2d')
    expect(twoDays.statusCode).toBe(200)
    const [{ datapoints }] = twoDays.json()
    expect(datapoints[1][1] - datapoints[0][1]).toBe(900)
    const long = await get('/render?format=json&target=h.one&from=-5y')
    expect(long.statusCode).toBe(400)
    expect(long.json().message).toMatch(/"h\.one" over this range is 1825 one-day points per series, more than MAX_POINTS = 1440/)
    expect((await get('/metrics/find?query=g.*')).statusCode).toBe(400)
    const badGlob = await get('/metrics/find?query=' + encodeURIComponent('g.[z-a]'))
    expect(badGlob.statusCode).toBe(400)
    expect(badGlob.json().message).toMatch(/not valid/)
  })

  it('read quarter-hours for a range before the minute detail kept, never zeros for minutes deleted', async () => {
    // MINUTE_RETENTION_DAYS = 0: minutes from today 00:00 UTC on; h.one has 5 at 08:55
    const points = async (from) => {
      const res = await get(`/render?format=json&target=h.one&from=${from}`)
      expect(res.statusCode).toBe(200)
      return res.json()[0].datapoints
    }
    const quarters = await points('-10h')
    expect(new Set(quarters.slice(1).map(([, t], i) => t - quarters[i][1]))).toEqual(new Set([900]))
    expect(quarters.find(([, t]) => t === Date.UTC(2025, 2, 10, 8, 45) / 1000)[0]).toBe(5)
    expect(quarters.reduce((sum, [v]) => sum + (v ?? 0), 0)).toBe(5)
    const minutes = await points('-9h')
    expect(minutes[1][1] - minutes[0][1]).toBe(60)
    expect(minutes.find(([, t]) => t === Date.UTC(2025, 2, 10, 8, 55) / 1000)[0]).toBe(5)
  })

  it('take targets from a form-encoded POST body, as Grafana sends them', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/render',
      headers: { authorization: `Bearer ${READ}`, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'target=h.one&target=constantLine(100)&format=json&from=-10min&maxDataPoints=500'
    })
    expect(res.statusCode).toBe(200)
    const [one, line] = res.json()
    expect(one.target).toBe('h.one')
    expect(one.datapoints).toHaveLength(10)
    expect(one.datapoints.find(([, t]) => t === NOW / 1000 - 30 - 300)).toEqual([5, NOW / 1000 - 330])
    expect(line).toEqual({ target: '100.0', tags: { name: '100.0' }, datapoints: [[100, NOW / 1000 - 600], [100, NOW / 1000 - 300], [100, NOW / 1000]] })
  })

  it('answer /metrics/find from a form-encoded POST body, as Grafana\'s variable queries send it', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/metrics/find',
      headers: { authorization: `Bearer ${READ}`, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'query=h.*&from=-1h&until=now'
    })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual([{ text: 'one', id: 'h.one', allowChildren: 0, expandable: 0, leaf: 1 }])
  })

  it('leave /v1/events to JSON (the form parser is the Graphite routes\' own)', async () => {
    const res = await app.inject({ method: 'POST', url: '/v1/events', headers: { authorization: `Bearer ${WRITE}`, 'content-type': 'application/x-www-form-urlencoded' }, payload: 'a=b' })
    expect(res.statusCode).toBe(415)
  })

  it('list the supported functions for Grafana and answer empty tag lists where no series is tagged', async () => {
    const functions = (await get('/functions')).json()
    expect(Object.keys(functions).sort()).toEqual(['alias', 'aliasByNode', 'aliasByTags', 'aliasSub', 'consolidateBy', 'constantLine', 'groupByTags', 'hitcount', 'integral', 'movingAverage', 'nonNegativeDerivative', 'perSecond', 'scale', 'seriesByTag', 'sum', 'sumSeries', 'summarize', 'timeShift'])
    expect(functions.summarize.params.map(p => p.name)).toEqual(['seriesList', 'intervalString', 'func', 'alignToFrom'])
    expect((await get('/tags/autoComplete/tags')).json()).toEqual([])
    expect((await get('/tags/autoComplete/values?tag=x')).json()).toEqual([])
  })
})
