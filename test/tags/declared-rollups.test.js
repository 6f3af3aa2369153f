// Declared rollups (ROLLUP_RULES) against a real server: a read grouped by a
// declared subset reads the rollup's documents and answers what the same
// read summed over the series answers (the same database read by an app
// without the rules), for counters (and the model of the raw events),
// distributions and gauges, in a zone; a rollup is read only for windows
// from when it began; its series are never listed, counted per name,
// addressed by a client or left behind by a deletion; a registry too full
// for an event's rollup turns the whole event away.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { seededRandom } from '../../scripts/shared/workload.js'
import { directDb, testApp, uniqueDbName } from '../helpers/test-app.js'

const NOW = Date.UTC(2026, 10, 21, 12, 0)
const HOUR = 3_600_000
const DAY = 24 * HOUR
const RULES = JSON.stringify([
  { match: 'roll.*', by: [['route'], ['route', 'status']] },
  { match: 'roll.lat', by: [['az']] }
])
const LONG_AGO = new Date(Date.UTC(2025, 0, 1))
const ROUTES = ['/a', '/b', '/c']
const STATUSES = ['200', '500']

/** The reads compared: each with the rollup that should answer it (null: summed over the series) */
const READS = [
  ['roll.req', 'by=route', ['route']],
  ['roll.req', 'by=route,status', ['route', 'status']],
  ['roll.req', 'by=status', ['route', 'status']],
  ['roll.req', 'tag=status=500&by=route', ['route', 'status']],
  ['roll.req', 'tag=route=/a', ['route']],
  ['roll.req', 'tag=route=&by=status', ['route', 'status']], // the events without a route
  ['roll.req', 'tag=status!=~5..', ['route', 'status']],
  ['roll.req', 'by=az', null],
  ['roll.lat', 'by=az', ['az']],
  ['roll.lat', 'by=route', ['route']],
  ['roll.level', 'by=route', ['route']]
]
const WINDOW = `from=${NOW - 40 * DAY}&to=${NOW}`

const counts = [] // the model: { route?, status?, az, value, time }
const dbName = uniqueDbName('declared_rollups')

/** Every answer of the reads, as the app with `env` gives them */
async function readAll (env) {
  const app = await testApp('declared_rollups', { clock: manualClock(NOW), keepDatabase: true, env: { MONGODB_DB: dbName, ...env } })
  const answers = {}
  try {
    for (const [metric, query] of READS) {
      const stat = metric === 'roll.req' ? '' : metric === 'roll.lat' ? '&stat=p90' : '&stat=last'
      for (const url of [
        `/v1/metrics/${metric}/series?${WINDOW}&step=day&tz=Asia/Kathmandu&${query}${stat}`,
        `/v1/metrics/${metric}/total?${WINDOW}&${query}`,
        `/v1/metrics/${metric}/ytd?year=2026&tz=Asia/Kathmandu&${query}`,
        ...(query.includes('by=') ? [`/v1/metrics/${metric}/top?${WINDOW}&k=2&${query}`] : [])
      ]) {
        if (metric === 'roll.level' && !url.includes('/series')) continue // a gauge has no total
        const res = await app.inject(url)
        expect(res.statusCode, `${url}: ${res.body}`).toBe(200)
        answers[url] = { read: `${metric}?${query}`, answer: res.json() }
      }
    }
  } finally {
    await app.close()
  }
  return answers
}

/** An answer without what tells how it was read: the rollup, the documents and series read */
function readFree (answer) {
  if (Array.isArray(answer)) return answer.map(readFree)
  if (answer === null || typeof answer !== 'object') return answer
  return Object.fromEntries(Object.entries(answer).filter(([k]) => !['rollup', 'documents', 'series'].includes(k)).map(([k, v]) => [k, readFree(v)]))
}

/** Equal, with sums of fractions added in another order equal to 1e-9 of their size */
function expectSame (got, expected, path) {
  if (typeof expected === 'number' && typeof got === 'number' && !Number.isInteger(expected)) {
    expect(Math.abs(got - expected), path).toBeLessThanOrEqual(Math.abs(expected) * 1e-9)
  } else if (expected !== null && typeof expected === 'object') {
    expect(Object.keys(got ?? {}).sort(), path).toEqual(Object.keys(expected).sort())
    for (const key of Object.keys(expected)) expectSame(got[key], expected[key], `${path}.${key}`)
  } else expect(got, path).toEqual(expected)
}

describe('a read grouped by a declared subset', () => {
  let declared
  let summed
  beforeAll(async () => {
    // the rules were declared long ago: their rollups hold every event of this year
    const { client, db } = await directDb(dbName)
    await db.collection('rollups').insertMany([['roll.*', 'route'], ['roll.*', 'route,status'], ['roll.lat', 'az']].map(([match, keys]) => ({ _id: `${match} by ${keys}`, since: LONG_AGO })))
    await client.close()
    // preallocation at random, often: a next day zero-filled for a rollup and not for any of its series (or the reverse) would read 0 against null
    const app = await testApp('declared_rollups', { clock: manualClock(NOW), keepDatabase: true, random: seededRandom(31), env: { MONGODB_DB: dbName, ROLLUP_RULES: RULES, PREALLOC_PROBABILITY: '0.3' } })
    try {
      const random = seededRandom(29)
      const body = []
      for (let i = 0; i < 900; i++) {
        const tags = { az: ['x', 'y'][i % 2] }
        if (random() < 0.9) tags.route = ROUTES[Math.floor(random() * 3)]
        if (random() < 0.8) tags.status = STATUSES[Math.floor(random() * 2)]
        const time = NOW - Math.floor(random() * 60 * DAY)
        const value = 1 + Math.floor(random() * 9)
        counts.push({ ...tags, value, time })
        body.push({ metric: 'roll.req', tags, value, ts: time })
        body.push({ metric: 'roll.lat', kind: 'distribution', tags: { az: tags.az, route: tags.route ?? 'none' }, value: Math.round(Math.exp(random() * 6) * 100) / 100, ts: time })
        // distinct times: the last level of a group is its latest event's
        body.push({ metric: 'roll.level', kind: 'gauge', tags: { route: tags.route ?? 'none' }, value: i, ts: NOW - 60 * DAY + i * 5000 })
      }
      for (let i = 0; i < body.length; i += 100) {
        const res = await app.inject({ method: 'POST', url: '/v1/events', payload: body.slice(i, i + 100) })
        expect(res.json()).toEqual({ accepted: 100 })
      }
      await app.preallocator.idle()
    } finally {
      await app.close()
    }
    declared = await readAll({ ROLLUP_RULES: RULES })
    // the same database, the same reads, without the rules: every group summed over its series
    summed = await readAll({})
  })
  afterAll(async () => {
    const { client, db } = await directDb(dbName)
    await db.dropDatabase()
    await client.close()
  })

  it.each(READS)('%s?%s: read from the rollup %j when one is declared, the same answer as summed over the series', (metric, query, rollup) => {
    const urls = Object.keys(declared).filter(u => declared[u].read === `${metric}?${query}`)
    expect(urls.length).toBe(metric === 'roll.level' ? 1 : query.includes('by=') ? 4 : 3)
    for (const url of urls) {
      const [mine, theirs] = [declared[url].answer, summed[url].answer]
      expect(mine.rollup, url).toEqual(rollup ?? undefined)
      expect(theirs.rollup, url).toBeUndefined()
      expectSame(readFree(mine), readFree(theirs), url)
      if (rollup !== null && mine.documents !== undefined) expect(mine.documents, url).toBeLessThan(theirs.documents)
    }
  })

  it('a counter\'s groups equal the model of the raw events, and the rollup reads one series a group', () => {
    const from = NOW - 40 * DAY
    const answer = declared[`/v1/metrics/roll.req/total?${WINDOW}&by=route,status`].answer
    const inWindow = counts.filter(e => e.time >= from && e.time < NOW)
    const groups = new Map()
    for (const e of inWindow) {
      const key = JSON.stringify([e.route ?? null, e.status ?? null])
      groups.set(key, (groups.get(key) ?? 0) + e.value)
    }
    expect(answer.groups.map(g => [JSON.stringify([g.tags.route, g.tags.status]), g.total]).sort()).toEqual([...groups].sort())
    expect(answer.groups.every(g => g.series === 1)).toBe(true)
    const top = declared[`/v1/metrics/roll.req/top?${WINDOW}&k=2&by=route`].answer
    const byRoute = ['/a', '/b', '/c', null].map(route => inWindow.filter(e => (e.route ?? null) === route).reduce((n, e) => n + e.value, 0)).sort((a, b) => b - a)
    expect(top.groups.map(g => g.total)).toEqual(byRoute.slice(0, 2))
    expect(top.of).toBe(4)
  })
})

describe('when a declared rollup begins', () => {
  it('MAX_FUTURE_MS after the first whole minute after an instance first ran with its rule: a window from then reads it, an earlier one sums the series', async () => {
    const name = uniqueDbName('rollup_since')
    const rules = JSON.stringify([{ match: 'since.*', by: [['route']] }])
    const clock = manualClock(NOW + 20_000)
    const open = (env, at = clock) => testApp('rollup_since', { clock: at, keepDatabase: true, env: { MONGODB_DB: name, ...env } })
    // before the rule: an event dated 270 s ahead (MAX_FUTURE_MS is 300 s), stored in its series only
    let app = await open({})
    const post = async (events) => {
      const res = await app.inject({ method: 'POST', url: '/v1/events', payload: events.map(([ts, value]) => ({ metric: 'since.req', tags: { route: '/a' }, value, ts })) })
      expect(res.json()).toEqual({ accepted: events.length })
    }
    await post([[NOW + 290_000, 11]])
    await app.close()
    app = await open({ ROLLUP_RULES: rules })
    const { client, db } = await directDb(name)
    const SINCE = NOW + 60_000 + 300_000
    try {
      expect(await db.collection('rollups').find().toArray()).toEqual([{ _id: 'since.* by route', since: new Date(SINCE) }])
      await post([[NOW - HOUR, 3], [NOW + 30_000, 5]])
      clock.set(NOW + 200_000)
      await post([[NOW + 400_000, 7]])
      // a window holding the event stored before the rule: read from the series, with it
      const early = (await app.inject(`/v1/metrics/since.req/total?from=${NOW - 2 * HOUR}&to=${NOW + 7 * 60_000}&by=route`)).json()
      expect(early).toMatchObject({ groups: [{ tags: { route: '/a' }, total: 26 }] })
      expect(early.rollup).toBeUndefined()
      // from the next whole minute after the rule began: still the series (the rollup lacks the 11 dated then)
      const next = (await app.inject(`/v1/metrics/since.req/total?from=${NOW + 60_000}&to=${NOW + 7 * 60_000}&by=route`)).json()
      expect(next).toMatchObject({ groups: [{ tags: { route: '/a' }, total: 11 + 7 }] })
      const late = (await app.inject(`/v1/metrics/since.req/total?from=${SINCE}&to=${NOW + 7 * 60_000}&by=route`)).json()
      expect(late).toMatchObject({ rollup: ['route'], groups: [{ tags: { route: '/a' }, total: 7, series: 1 }] })
      // a series from then at a step whose first point begins before it: the point's whole hour is read, from the series
      for (const selection of ['by=route', 'tag=route=/a']) {
        const hour = (await app.inject(`/v1/metrics/since.req/series?from=${SINCE}&to=${NOW + 7 * 60_000}&step=hour&${selection}`)).json()
        expect(hour.rollup, selection).toBeUndefined()
        expect(hour.groups?.[0].values ?? hour.values, selection).toEqual([5 + 11 + 7])
      }
      const minutes = (await app.inject(`/v1/metrics/since.req/series?from=${SINCE}&to=${SINCE + 2 * 60_000}&step=minute&by=route`)).json()
      expect(minutes).toMatchObject({ rollup: ['route'], groups: [{ tags: { route: '/a' }, values: [7, 0] }] })
      await app.close()
      // a restart keeps when it began; a rule no longer declared is forgotten, and declared again begins again
      app = await open({ ROLLUP_RULES: rules })
      expect((await db.collection('rollups').findOne({ _id: 'since.* by route' })).since).toEqual(new Date(SINCE))
      await app.close()
      app = await open({})
      expect(await db.collection('rollups').countDocuments()).toBe(0)
      await app.close()
      app = await testApp('rollup_since', { clock: manualClock(NOW + DAY), keepDatabase: true, env: { MONGODB_DB: name, ROLLUP_RULES: rules } })
      expect((await db.collection('rollups').findOne({ _id: 'since.* by route' })).since).toEqual(new Date(NOW + DAY + 60_000 + 300_000))
    } finally {
      await app.close()
      await db.dropDatabase()
      await client.close()
    }
  })
})

describe('a rollup\'s series', () => {
  let app
  beforeAll(async () => {
    app = await testApp('rollup_series', { clock: manualClock(NOW), random: () => 0.99, env: { ROLLUP_RULES: JSON.stringify([{ match: 'own.*', by: [['route'], ['route', 'status']] }]), MAX_SERIES_PER_NAME: '3' } })
    const body = [['/a', '200'], ['/a', '500'], ['/b', '200']].map(([route, status]) => ({ metric: 'own.req', tags: { route, status }, value: 2, ts: NOW - HOUR }))
    expect((await app.inject({ method: 'POST', url: '/v1/events', payload: body })).json()).toEqual({ accepted: 3 })
  })
  afterAll(async () => { await app?.close() })

  it('are not listed, not tag values, not counted toward MAX_SERIES_PER_NAME (3 series and their 5 rollup series were admitted)', async () => {
    const list = (await app.inject('/v1/metrics?prefix=own.req')).json()
    expect(list.metrics.map(m => m.name)).toEqual(['own.req', 'own.req;route=/a;status=200', 'own.req;route=/a;status=500', 'own.req;route=/b;status=200'])
    expect(list.next).toBeNull()
    expect((await app.inject('/v1/metrics/own.req/tags')).json().keys).toEqual([{ key: 'route', values: 2 }, { key: 'status', values: 2 }])
    const cardinality = (await app.inject('/v1/cardinality')).json()
    expect(cardinality.names.find(n => n.name === 'own.req').series).toBe(3)
    expect(app.registry.size()).toBe(1 + 3 + 5)
  })

  it('cannot be written or read by a client: a rollup series name breaks the series rules', async () => {
    const write = await app.inject({ method: 'POST', url: '/v1/events', payload: [{ metric: 'own.req;~route;route=/a', value: 1 }] })
    expect(write.statusCode).toBe(400)
    expect(write.json().message).toMatch(/metric: must be a metric name/)
    const read = await app.inject(`/v1/metrics/${encodeURIComponent('own.req;~route;route=/a')}/total?from=${NOW - DAY}&to=${NOW}`)
    expect(read.statusCode).toBe(400)
  })

  it('go with their name\'s deletion, counted as documents, not as series', async () => {
    // a name of its own: the other tests read own.req whatever the order
    const body = [['/a', '200'], ['/a', '500'], ['/b', '200']].map(([route, status]) => ({ metric: 'own.gone', tags: { route, status }, value: 2, ts: NOW - HOUR }))
    expect((await app.inject({ method: 'POST', url: '/v1/events', payload: body })).json()).toEqual({ accepted: 3 })
    const res = await app.inject({ method: 'DELETE', url: '/v1/metrics/own.gone' })
    expect(res.statusCode).toBe(200)
    expect(res.json().deleted).toMatchObject({ series: 3, daily: 1 + 3 + 5 })
    const { client, db } = await directDb(app.config.mongodbDb)
    try {
      expect(await db.collection('metrics').countDocuments({ _id: { $regex: '^own\\.gone' } })).toBe(0)
      expect(await db.collection('daily').countDocuments({ _id: { $regex: '^own\\.gone' } })).toBe(0)
      expect(await db.collection('metrics').countDocuments({ _id: { $regex: '^own\\.req' } })).toBe(9)
    } finally {
      await client.close()
    }
  })
})

describe('a registry too full for an event\'s rollup', () => {
  it('turns the whole event away (its series, its name and its rollups keep equal), over StatsD per series, over JSON the request', async () => {
    const app = await testApp('rollup_full', { clock: manualClock(NOW), env: { ROLLUP_RULES: JSON.stringify([{ match: 'cap.*', by: [['route'], ['route', 'status']] }]), MAX_METRICS: '5', STATSD_REGISTRY_SHARE: '100' } })
    try {
      // 6 new entries asked, room for 5: the second event's last rollup series has no place
      const outcome = await app.ingest.submit([
        { metric: 'cap.req;route=/a', value: 3, time: NOW - HOUR },
        { metric: 'cap.req;route=/a;status=1', value: 4, time: NOW - HOUR }
      ], { admitPerName: true, statsd: true })
      expect(outcome).toMatchObject({ outcome: 'applied', accepted: 1 })
      expect(outcome.refusedMetrics).toEqual(['cap.req;~route,status;route=/a;status=1', 'cap.req;route=/a;status=1'])
      // the series admitted beside its refused rollup gave its place back: nothing of it was written
      expect(app.registry.size()).toBe(4)
      expect(await app.ingest.submit([{ metric: 'cap.other', value: 1, time: NOW - HOUR }], { admitPerName: true, statsd: true })).toEqual({ outcome: 'applied', accepted: 1 })
      const total = (await app.inject(`/v1/metrics/cap.req/total?from=${NOW - DAY}&to=${NOW}`)).json()
      expect(total.total).toBe(3)
      const byRoute = (await app.inject(`/v1/metrics/cap.req/total?from=${NOW - DAY}&to=${NOW}&by=route`)).json()
      expect(byRoute.groups).toEqual([{ tags: { route: '/a' }, series: 1, total: 3 }])
      const json = await app.inject({ method: 'POST', url: '/v1/events', payload: [{ metric: 'cap.req', tags: { route: '/b' }, value: 1, ts: NOW - HOUR }] })
      expect(json.statusCode).toBe(400)
      expect(json.json().message).toMatch(/the registry is full: MAX_METRICS = 5/)
      expect((await app.inject(`/v1/metrics/cap.req/total?from=${NOW - DAY}&to=${NOW}`)).json().total).toBe(3)
    } finally {
      await app.close()
    }
  })
})
