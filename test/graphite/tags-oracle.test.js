// The Graphite tag API against graphite-web 1.1.10 itself: the same tagged
// series go to statbucket and, as whisper files where carbon puts them and
// entries of graphite-web's own TagDB (LocalDatabaseTagDB), to graphite-web
// (in-process, scripts/graphite-oracle/). A table of tag queries —
// /tags/findSeries, /tags, /tags/<tag>, /tags/autoComplete/* (GET and
// POST), and seriesByTag, groupByTags and aliasByTags renders (with the
// functions over them: the tags they keep and add), in UTC and
// with tz — must answer the same: names, tags, timestamps, nulls and values.
// graphite-web's database ids (`id` in /tags and /tags/<tag>) are left out
// of the comparison: statbucket has no such rows (docs/adr/0060-graphite-tag-api.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NOW_S, askGraphiteWeb, eventTime, expectSameRender, form, oracleApp, oracleVenv, seededRandom } from './graphite-oracle.js'

// events on 03-08 and 03-10 (03-09 has none: null), graphite-oracle.js's clock

// tagged series: two names, tags that some series lack (dc), a value with a dot
const SERIES = [
  ['web.requests', { route: 'login', status: '200' }],
  ['web.requests', { route: 'login', status: '500' }],
  ['web.requests', { route: 'home', status: '200' }],
  ['web.requests', { route: 'home', status: '404', dc: 'eu' }],
  ['web.requests', { route: 'api.v1', status: '200', dc: 'us' }],
  ['db.queries', { table: 'users' }],
  ['db.queries', { table: 'orders', dc: 'eu' }]
]
const canonical = (name, tags) => [name, ...Object.entries(tags).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => `${k}=${v}`)].join(';')

function seededEvents () {
  const random = seededRandom(4242)
  const events = []
  for (let i = 0; i < 500; i++) {
    const [name, tags] = SERIES[Math.floor(random() * SERIES.length)]
    const value = random() < 0.1 ? 0 : Math.ceil(random() * 20)
    events.push({ name, tags, value, time: eventTime(random, i) })
  }
  events.push({ name: 'plain.counter', tags: {}, value: 3, time: Date.UTC(2025, 2, 8, 1) })
  return events
}

const events = seededEvents()
// graphite-web is given each series by its canonical name (an untagged one by its name): what carbon would store
const oracleEvents = events.map(e => ({ metric: canonical(e.name, e.tags), value: e.value, time: e.time }))
let app
let venv

beforeAll(async () => {
  venv = oracleVenv()
  app = await oracleApp('graphite_tags_oracle', [events.map(e => ({ metric: e.name, ...(Object.keys(e.tags).length ? { tags: e.tags } : {}), value: e.value, ts: e.time }))])
}, 600_000)
afterAll(async () => { await app?.close() })

async function statbucket ({ path, params, method = 'GET' }) {
  const res = method === 'POST'
    ? await app.inject({ method, url: path, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: form(params) })
    : await app.inject({ method, url: `${path}?${form(params)}` })
  return { status: res.statusCode, body: res.json() }
}

/** graphite-web's rows without their database ids */
const withoutIds = body => JSON.parse(JSON.stringify(body, (key, value) => (key === 'id' && typeof value === 'number' ? undefined : value)))

/** cases: [{ label, path, params, method?, empty?: true (a render of no series), refused?: true (both answer 4xx/5xx: graphite-web may fail with a 500 where statbucket names the rule) }] */
async function compare (cases) {
  const answers = askGraphiteWeb(venv, oracleEvents, cases.map(c => ({ path: c.path, method: c.method, params: c.path === '/render' ? [...c.params, ['now', String(NOW_S)]] : c.params })))
  for (let i = 0; i < cases.length; i++) {
    const { label, path } = cases[i]
    const params = path === '/render' ? [...cases[i].params, ['now', String(NOW_S)]] : cases[i].params
    const ours = await statbucket({ ...cases[i], params })
    const theirs = answers[i]
    if (cases[i].refused) {
      expect(theirs.status, `graphite-web ${label}: ${JSON.stringify(theirs.body).slice(0, 300)}`).toBeGreaterThanOrEqual(400)
      expect(ours.status, `${label}: ${JSON.stringify(ours.body).slice(0, 300)}`).toBe(400)
      continue
    }
    expect(theirs.status, `graphite-web ${label}: ${JSON.stringify(theirs.body).slice(0, 300)}`).toBe(200)
    expect(ours.status, `${label}: ${JSON.stringify(ours.body).slice(0, 300)}`).toBe(200)
    // a comparison of nothing proves nothing: every render but the one of no series holds values
    if (path === '/render' && !cases[i].empty) expect(theirs.body.some(s => s.datapoints.some(([v]) => v !== null)), `graphite-web ${label} holds values`).toBe(true)
    if (path === '/render') expectSameRender(ours.body, theirs.body, label)
    else expect(ours.body, label).toEqual(withoutIds(theirs.body))
  }
}

const EXPRESSIONS = [
  ['name=web.requests'],
  ['status=200'],
  ['name=~web\\..*', 'status!=200'],
  ['route=~log'],
  ['name=web.requests', 'route!=~log'],
  ['dc=eu'],
  ['name=db.queries', 'dc!=eu'],
  ['name=~.*q.*', 'status=~5..'],
  ['status=~^(2|5)'],
  ['table!='],
  ['name!=web.requests', 'table=~.+'],
  ['route=api.v1'],
  ['name=~db', 'dc='],
  ['status=999']
]

describe('the tag routes against graphite-web 1.1.10\'s TagDB', () => {
  it('/tags/findSeries: the same series for each expression list, GET and POST', async () => {
    await compare([
      ...EXPRESSIONS.map(exprs => ({ label: `findSeries ${exprs}`, path: '/tags/findSeries', params: exprs.map(e => ['expr', e]) })),
      ...EXPRESSIONS.slice(0, 3).map(exprs => ({ label: `POST findSeries ${exprs}`, path: '/tags/findSeries', method: 'POST', params: exprs.map(e => ['expr', e]) })),
      { label: 'no expression requires a value', path: '/tags/findSeries', params: [['expr', 'status!=200']], refused: true },
      { label: 'only empty-matching expressions', path: '/tags/findSeries', params: [['expr', 'dc='], ['expr', 'route=~.*']], refused: true },
      { label: 'no expression', path: '/tags/findSeries', params: [], refused: true }
    ])
  }, 120_000)

  it('/tags and /tags/<tag>: the tags and their values with filters and limits', async () => {
    const lists = [[], [['filter', 's']], [['filter', '^(r|t)']], [['limit', '2']], [['filter', 'na|dc'], ['limit', '1']], [['limit', '0']], [['filter', 'zzz']]]
    const details = ['status', 'name', 'route', 'dc', 'table', 'nope']
    await compare([
      ...lists.map(params => ({ label: `/tags ${form(params)}`, path: '/tags', params })),
      ...details.map(tag => ({ label: `/tags/${tag}`, path: `/tags/${tag}`, params: [] })),
      { label: '/tags/status filter', path: '/tags/status', params: [['filter', '[45]']] },
      { label: '/tags/route limit', path: '/tags/route', params: [['limit', '2']] },
      { label: '/tags/name filter', path: '/tags/name', params: [['filter', 'web']] }
    ])
  }, 120_000)

  it('/tags/autoComplete/tags and /values: the same suggestions, GET and POST', async () => {
    const tagQueries = [
      [], [['tagPrefix', 's']], [['limit', '2']], [['expr', 'name=web.requests']], [['expr', 'name=web.requests'], ['tagPrefix', 'r']],
      [['expr', 'dc=eu']], [['expr', 'status=200'], ['expr', 'route=login']], [['expr', 'name=~.+'], ['limit', '1']], [['expr', 'table=~.+']]
    ]
    const valueQueries = [
      [['tag', 'status']], [['tag', 'name']], [['tag', 'route'], ['valuePrefix', 'l']], [['tag', 'route'], ['expr', 'status=500']],
      [['tag', 'name'], ['expr', 'dc=eu']], [['tag', 'dc'], ['expr', 'name=web.requests']], [['tag', 'status'], ['limit', '1']],
      [['tag', 'route'], ['expr', 'name=web.requests'], ['valuePrefix', 'a'], ['limit', '5']], [['tag', 'nope']], [['tag', 'status'], ['expr', 'route=~h']],
      // no expression requires a value: graphite-web's own `tag!=` does
      [['tag', 'route'], ['expr', 'status!=500']], [['tag', 'name'], ['expr', 'status!=500']], [['tag', 'route'], ['expr', 'dc!=~e.*']]
    ]
    await compare([
      ...tagQueries.map(params => ({ label: `autoComplete/tags ${form(params)}`, path: '/tags/autoComplete/tags', params })),
      ...valueQueries.map(params => ({ label: `autoComplete/values ${form(params)}`, path: '/tags/autoComplete/values', params })),
      { label: 'POST autoComplete/tags', path: '/tags/autoComplete/tags', method: 'POST', params: [['expr', 'name=web.requests'], ['tagPrefix', 's']] },
      { label: 'POST autoComplete/values', path: '/tags/autoComplete/values', method: 'POST', params: [['tag', 'route'], ['expr', 'status=200']] },
      { label: 'autoComplete/values without tag', path: '/tags/autoComplete/values', params: [['expr', 'status=200']], refused: true },
      { label: 'autoComplete/tags, no expression requires a value', path: '/tags/autoComplete/tags', params: [['expr', 'status!=200']], refused: true }
    ])
  }, 120_000)
})

const TARGETS = [
  { target: "seriesByTag('name=web.requests')" },
  { target: "seriesByTag('name=web.requests','status=200')" },
  { target: 'seriesByTag("name=~web\\..*","route=~log")' },
  { target: "seriesByTag('status=~5')" },
  { target: "seriesByTag('dc=eu')" },
  { target: "seriesByTag('status=999')", empty: true },
  { target: "groupByTags(seriesByTag('name=web.requests'),'sum','status')" },
  { target: "groupByTags(seriesByTag('name=web.requests'),'sum','route','status')" },
  { target: "groupByTags(seriesByTag('name=~.+'),'sum','name')" },
  { target: "groupByTags(seriesByTag('dc=~.+'),'sum','dc')" },
  { target: "groupByTags(seriesByTag('dc=~.+'),'sum','name','dc')" },
  { target: "groupByTags(seriesByTag('name=web.requests'),'average','status')" },
  { target: "groupByTags(seriesByTag('name=web.requests'),'max','route')" },
  { target: "groupByTags(seriesByTag('name=web.requests'),'sumSeries','status')" },
  { target: "aliasByTags(seriesByTag('name=web.requests'),'route','status')" },
  { target: "aliasByTags(seriesByTag('status=200'),'name',1)" },
  { target: "aliasByNode(seriesByTag('status=500'),'route',0)" },
  { target: "aliasByTags(groupByTags(seriesByTag('name=web.requests'),'sum','status'),'status')" },
  // a function keeps the series' tags and adds its own; an aggregate keeps those its series share
  { target: "sumSeries(seriesByTag('name=web.requests'))" },
  { target: "summarize(seriesByTag('name=db.queries'),'1h','sum')" },
  { target: "aliasByTags(sumSeries(seriesByTag('name=web.requests','status=200')),'status','aggregatedBy')" },
  { target: "aliasByTags(sumSeries(seriesByTag('status=200')),'name','status')" },
  { target: "aliasByTags(summarize(seriesByTag('name=web.requests','route=login'),'10min','max'),'status','summarize','summarizeFunction')" },
  { target: "groupByTags(summarize(seriesByTag('name=web.requests'),'1h'),'sum','route')" },
  { target: "aliasByNode(scale(seriesByTag('name=db.queries'),2),'table','scale')" },
  { target: "alias(perSecond(seriesByTag('status=500')),'errors')" },
  { target: "aliasSub(nonNegativeDerivative(seriesByTag('route=home')),'^(\\w+)\\..*status=(\\d+).*','\\g<1> \\2')" },
  { target: "integral(seriesByTag('dc=eu'))" },
  { target: "movingAverage(seriesByTag('name=db.queries'),'30min')" },
  { target: "movingAverage(seriesByTag('route=login'),3)" },
  { target: "timeShift(seriesByTag('name=db.queries'),'1h')" },
  { target: "hitcount(seriesByTag('status=404'),'1h')" },
  { target: "consolidateBy(seriesByTag('table=users'),'max')" },
  { target: "sumSeries(seriesByTag('name=db.queries'),seriesByTag('name=web.requests','dc=eu'))" }
]

const RANGES = [
  { name: 'relative -6h', params: [['from', '-6h']] },
  { name: 'absolute UTC, across the empty day', params: [['from', '20:00_20250308'], ['until', '02:30_20250310']] },
  { name: 'absolute tz=UTC', params: [['from', '20250308'], ['until', '20250309'], ['tz', 'UTC']] },
  { name: 'absolute tz=Europe/Berlin', params: [['from', '20:00_20250308'], ['until', '02:30_20250310'], ['tz', 'Europe/Berlin']] },
  { name: 'day in tz=America/New_York', params: [['from', 'yesterday'], ['until', 'today'], ['tz', 'America/New_York']] }
]

describe('seriesByTag, groupByTags and aliasByTags against graphite-web 1.1.10', () => {
  for (const range of RANGES) {
    it(`the same series, names and tags, ${range.name}`, async () => {
      await compare(TARGETS.map(({ target, ...flags }) => ({ label: `${target} ${range.name}`, path: '/render', params: [['target', target], ['format', 'json'], ...range.params], ...flags })))
    }, 120_000)
  }

  it('past maxDataPoints, summed as consolidateBy "sum" makes graphite-web sum', async () => {
    const cases = ['7', '100'].map(maxDataPoints => ({
      label: `maxDataPoints=${maxDataPoints}`,
      path: '/render',
      params: [['target', "consolidateBy(seriesByTag('name=web.requests','status=200'),'sum')"], ['target', "consolidateBy(groupByTags(seriesByTag('name=web.requests'),'sum','status'),'sum')"], ['format', 'json'], ['maxDataPoints', maxDataPoints], ['from', '-2d']]
    }))
    await compare(cases)
  }, 120_000)

  it('refuses as graphite-web does: no expression requires a value, a group without the tag', async () => {
    await compare([
      { label: 'seriesByTag without a value required', path: '/render', params: [['target', "seriesByTag('status!=200')"], ['format', 'json'], ['from', '-6h']], refused: true },
      { label: 'groupByTags by a tag some series lack', path: '/render', params: [['target', "groupByTags(seriesByTag('name=~.+'),'sum','dc')"], ['format', 'json'], ['from', '-6h']], refused: true }
    ])
  }, 120_000)
})
