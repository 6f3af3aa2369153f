// /render and /metrics/find against graphite-web 1.1.10 itself: the same
// events go to statbucket and, as whisper files, to graphite-web (in-process);
// every supported function and glob must answer the same timestamps, nulls,
// values, target names and tags (those each function adds, those an aggregate
// keeps), with relative and absolute from/until.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NOW_S, askGraphiteWeb, eventTime, expectSameRender, form, oracleApp, oracleVenv, seededRandom, withoutConsolidateBy } from './graphite-oracle.js'

function seededEvents () {
  const random = seededRandom(12345)
  const metrics = ['app.web.requests', 'app.api.requests', 'app.db.errors', 'app.web.bytes', 'other.x']
  const events = []
  for (let i = 0; i < 600; i++) {
    const time = eventTime(random, i)
    const metric = metrics[Math.floor(random() * metrics.length)]
    const r = random()
    const value = r < 0.1 ? 0 : r < 0.15 ? -Math.ceil(random() * 5) : r < 0.3 ? Math.round(random() * 40) / 4 : Math.ceil(random() * 20)
    events.push({ metric, value, time })
  }
  events.push({ metric: 'zero.only', value: 0, time: Date.UTC(2025, 2, 8, 1) })
  return events
}

// a distribution's values: statbucket stores lat.api as one; graphite-web gets what its count and sum
// leaves must answer, as the counters a StatsD timer used to make (lat.api.count +1 and lat.api.sum +v per value)
function seededLatencies () {
  const random = seededRandom(777)
  return Array.from({ length: 400 }, (_, i) => {
    const value = 1 + Math.floor(random() * 300)
    return { metric: 'lat.api', value, time: eventTime(random, i) }
  })
}
const asCounters = latencies => latencies.flatMap(e => [{ metric: 'lat.api.count', value: 1, time: e.time }, { metric: 'lat.api.sum', value: e.value, time: e.time }])

const TARGETS = [
  'app.web.requests',
  'app.*.requests',
  'app.{web,api}.requests',
  'app.[a-w]*.requests',
  'app.*.*',
  'zero.only',
  'no.such.metric',
  'sumSeries(app.*.requests)',
  'sum(app.*.requests,app.db.errors)',
  'constantLine(100)',
  'constantLine(2.5)',
  'alias(app.web.requests,"web")',
  'aliasByNode(app.*.requests,1)',
  'aliasByNode(app.*.requests,0,-1)',
  'aliasByNode(sumSeries(app.*.requests),1)',
  'aliasSub(app.*.requests,"app\\.(\\w+)\\.requests","\\1 reqs")',
  // Python's replacement forms: the whole match, a group by number and by name, $ and escapes as literals
  'aliasSub(app.*.requests,"requests","\\g<0>!")',
  'aliasSub(app.*.requests,"(\\w+)\\.requests","x\\g<1>y")',
  'aliasSub(app.*.requests,"(?P<tier>\\w+)\\.(requests)","\\g<tier>-\\2 $0 $1 $&\\\\\\.")',
  'aliasSub(app.web.requests,"(x)?web","[\\1\\101]")',
  'aliasByNode(summarize(app.web.requests,"1h"),"summarize","summarizeFunction",1)',
  'aliasByTags(sumSeries(app.web.requests),"aggregatedBy","name")',
  'aliasByTags(alias(scale(app.web.requests,3),"x"),"name","scale")',
  'movingAverage(app.web.requests,5.0)',
  'perSecond(alias(app.web.requests,"renamed"))',
  'nonNegativeDerivative(timeShift(app.web.requests,"1h"))',
  'hitcount(integral(app.web.requests),"15min")',
  'sumSeries(app.web.requests,app.api.requests)',
  'consolidateBy(movingAverage(summarize(app.*.requests,"15min","max"),"1h"),"last")',
  'aliasByTags(constantLine(3),"name")',
  'summarize(app.web.requests,"1h")',
  'summarize(app.web.requests,"1h","max",true)',
  'summarize(app.*.requests,"15min","avg")',
  'summarize(app.web.requests,"1d","sum")',
  'integral(app.web.requests)',
  'perSecond(app.web.requests)',
  'nonNegativeDerivative(app.*.requests)',
  'movingAverage(app.web.requests,5)',
  'movingAverage(app.web.requests,"10min")',
  'timeShift(app.web.requests,"1d")',
  'timeShift(app.web.requests,"-2h",false)',
  'scale(app.web.requests,0.5)',
  'scale(sumSeries(app.*.requests),3)',
  'hitcount(app.web.requests,"1h")',
  'integral(scale(app.api.requests,2))',
  'consolidateBy(app.web.requests,"max")'
]

const RANGES = [
  { name: 'relative -6h', params: [['from', '-6h']] },
  { name: 'relative -2d..-1h across the empty day', params: [['from', '-2d'], ['until', '-1h']] },
  { name: 'absolute HH:MM_YYYYMMDD', params: [['from', '20:00_20250308'], ['until', '02:30_20250310']] },
  { name: 'absolute epoch seconds', params: [['from', String(NOW_S - 5 * 3600 - 17)], ['until', String(NOW_S - 3600 + 29)]] },
  { name: 'whole day YYYYMMDD', params: [['from', '20250308'], ['until', '20250309']] }
]

const bySum = name => `consolidateBy(${name},"sum")`
const CONSOLIDATED = ['consolidateBy(app.web.requests,"sum")', 'consolidateBy(sumSeries(app.*.requests),"sum")', 'consolidateBy(app.*.requests,"max")', 'consolidateBy(app.web.bytes,"average")', 'consolidateBy(app.web.requests,"last")']

let app
let venv
const events = seededEvents()
const latencies = seededLatencies()
// what graphite-web is given: the counters, and the latencies as count and sum counters
const oracleEvents = [...events, ...asCounters(latencies)]

const counterBody = events.map(e => ({ metric: e.metric, value: e.value, ts: e.time }))

beforeAll(async () => {
  venv = oracleVenv()
  app = await oracleApp('graphite_oracle', [counterBody, latencies.map(e => ({ metric: e.metric, kind: 'distribution', value: e.value, ts: e.time }))])
}, 600_000)
afterAll(async () => { await app?.close() })

const statbucket = async (path, params, on = app) => {
  const res = await on.inject({ method: 'GET', url: `${path}?${form(params)}` })
  return { status: res.statusCode, body: res.json() }
}

async function compare (cases, { on = app, minuteFrom } = {}) {
  const answers = askGraphiteWeb(venv, oracleEvents, cases.map(c => ({ path: c.path, params: [...c.theirs, ['now', String(NOW_S)]] })), { minuteFrom, now: NOW_S })
  for (let i = 0; i < cases.length; i++) {
    const ours = await statbucket(cases[i].path, cases[i].ours, on)
    expect(answers[i].status, `graphite-web ${cases[i].label}: ${JSON.stringify(answers[i].body).slice(0, 300)}`).toBe(200)
    expect(ours.status, `${cases[i].label}: ${JSON.stringify(ours.body).slice(0, 300)}`).toBe(200)
    if (cases[i].path === '/render') expectSameRender(ours.body, answers[i].body, cases[i].label, { theirName: cases[i].theirName, theirTags: cases[i].theirName && withoutConsolidateBy })
    else expect(ours.body, cases[i].label).toEqual(answers[i].body)
  }
}

describe('/render against graphite-web 1.1.10', () => {
  for (const range of RANGES) {
    it(`every supported function and glob, ${range.name}`, async () => {
      await compare(TARGETS.map(target => {
        const params = [['target', target], ['format', 'json'], ...range.params]
        return { label: `${target} ${range.name}`, path: '/render', ours: params, theirs: params }
      }))
    }, 120_000)
  }

  it('several targets in one request, and maxDataPoints with an explicit consolidateBy', async () => {
    const cases = []
    for (const range of RANGES) {
      for (const maxDataPoints of ['1', '7', '100']) {
        const params = [...CONSOLIDATED.map(t => ['target', t]), ['format', 'json'], ['maxDataPoints', maxDataPoints], ...range.params]
        cases.push({ label: `maxDataPoints=${maxDataPoints} ${range.name}`, path: '/render', ours: params, theirs: params })
      }
    }
    await compare(cases)
  }, 120_000)

  it('nonNegativeDerivative with maxValue and minValue where no point is null (graphite-web fails on nulls there)', async () => {
    const params = [['target', 'nonNegativeDerivative(app.web.bytes,10,0)'], ['format', 'json'], ['from', '-6h']]
    await compare([{ label: 'nonNegativeDerivative maxValue', path: '/render', ours: params, theirs: params }])
  }, 120_000)

  it('differs on purpose: without consolidateBy statbucket sums where graphite-web averages', async () => {
    const range = [['from', '-2d'], ['until', '-1h'], ['format', 'json'], ['maxDataPoints', '50']]
    await compare([
      { label: 'default consolidation is sum', path: '/render', ours: [['target', 'app.*.requests'], ...range], theirs: [['target', 'consolidateBy(app.*.requests,"sum")'], ...range], theirName: bySum },
      { label: 'sumSeries default consolidation', path: '/render', ours: [['target', 'sumSeries(app.*.requests)'], ...range], theirs: [['target', 'consolidateBy(sumSeries(app.*.requests),"sum")'], ...range], theirName: bySum }
    ])
    const [averaged] = askGraphiteWeb(venv, events, [{ path: '/render', params: [['target', 'app.web.requests'], ...range, ['now', String(NOW_S)]] }])
    const ours = await statbucket('/render', [['target', 'app.web.requests'], ...range])
    const total = points => points.reduce((a, [v]) => a + (v ?? 0), 0)
    const raw = await statbucket('/render', [['target', 'app.web.requests'], ['from', '-2d'], ['until', '-1h']])
    // summing keeps the total of the counts from the first band on; averaging does not
    const firstBand = ours.body[0].datapoints[0][1]
    const rawFromFirstBand = raw.body[0].datapoints.filter(([, t]) => t >= firstBand)
    expect(total(ours.body[0].datapoints)).toBeGreaterThan(0)
    expect(total(ours.body[0].datapoints)).toBe(total(rawFromFirstBand))
    expect(total(averaged.body[0].datapoints)).toBeLessThan(total(rawFromFirstBand))
  }, 120_000)
})

describe('a distribution\'s count and sum leaves against graphite-web 1.1.10 given them as counters', () => {
  const LEAF_TARGETS = ['lat.api.count', 'lat.api.sum', 'lat.*.{count,sum}', 'sumSeries(lat.api.count)', 'alias(lat.api.sum,"total")', 'summarize(lat.api.count,"1h")', 'perSecond(lat.api.sum)', 'integral(lat.api.count)']
  it('every range: the same points as the counters', async () => {
    const cases = []
    for (const range of RANGES) {
      for (const target of LEAF_TARGETS) {
        const params = [['target', target], ['format', 'json'], ...range.params]
        cases.push({ label: `${target} ${range.name}`, path: '/render', ours: params, theirs: params })
      }
    }
    await compare(cases)
  }, 120_000)

  it('past maxDataPoints: summed, as consolidateBy "sum" makes graphite-web sum them', async () => {
    const cases = []
    for (const range of RANGES) {
      for (const maxDataPoints of ['1', '7', '100']) {
        const ours = [['target', 'lat.api.count'], ['target', 'lat.api.sum'], ['format', 'json'], ['maxDataPoints', maxDataPoints], ...range.params]
        const theirs = [['target', 'consolidateBy(lat.api.count,"sum")'], ['target', 'consolidateBy(lat.api.sum,"sum")'], ['format', 'json'], ['maxDataPoints', maxDataPoints], ...range.params]
        cases.push({ label: `maxDataPoints=${maxDataPoints} ${range.name}`, path: '/render', ours, theirs, theirName: bySum })
      }
    }
    await compare(cases)
  }, 120_000)
})

describe('/render past the minute retention against graphite-web 1.1.10 with archives as the tiers', () => {
  // MINUTE_RETENTION_DAYS = 1: minutes from 2025-03-09 on; 03-08 is read as quarter-hours
  const MINUTE_FROM = Date.UTC(2025, 2, 9)
  let tiered
  beforeAll(async () => {
    tiered = await oracleApp('graphite_oracle_tiers', [counterBody], { MINUTE_RETENTION_DAYS: '1' })
  })
  afterAll(async () => { await tiered?.close() })

  it('every supported function and glob, over quarter-hours (before the horizon) and minutes (after it)', async () => {
    const ranges = [
      { name: 'quarter-hours: relative -2d', params: [['from', '-2d']] },
      { name: 'quarter-hours: absolute 20:00_20250308..02:30_20250310', params: [['from', '20:00_20250308'], ['until', '02:30_20250310']] },
      { name: 'quarter-hours: from a minute before the horizon', params: [['from', '23:59_20250308'], ['until', '02:00_20250310']] },
      { name: 'minutes: relative -30h, across the empty day', params: [['from', '-30h']] }
    ]
    const cases = []
    for (const range of ranges) {
      for (const target of TARGETS) {
        const params = [['target', target], ['format', 'json'], ...range.params]
        cases.push({ label: `${target} ${range.name}`, path: '/render', ours: params, theirs: params })
      }
    }
    await compare(cases, { on: tiered, minuteFrom: MINUTE_FROM })
    const [{ datapoints }] = (await statbucket('/render', [['target', 'app.web.requests'], ['format', 'json'], ['from', '-2d']], tiered)).body
    expect(datapoints[1][1] - datapoints[0][1]).toBe(900) // the tier was quarter-hours indeed
  }, 180_000)
})

describe('/metrics/find and /metrics/expand against graphite-web 1.1.10', () => {
  it('answers the same nodes for globs at every level', async () => {
    const queries = ['*', 'app', 'app.*', 'app.web.*', 'app.{web,db}.*', 'app.*.requests', 'app.[a-d]*', 'nothing.*', 'zero.*']
    await compare([
      ...queries.map(q => ({ label: `find ${q}`, path: '/metrics/find', ours: [['query', q]], theirs: [['query', q]] })),
      ...queries.map(q => ({ label: `expand ${q}`, path: '/metrics/expand', ours: [['query', q]], theirs: [['query', q]] })),
      { label: 'expand leavesOnly grouped', path: '/metrics/expand', ours: [['query', 'app.*'], ['query', 'app.*.*'], ['leavesOnly', '1'], ['groupByExpr', '1']], theirs: [['query', 'app.*'], ['query', 'app.*.*'], ['leavesOnly', '1'], ['groupByExpr', '1']] }
    ])
  }, 120_000)

  it('answers format=completer the same (names unique per answer: graphite-web shuffles paths that share one)', async () => {
    const queries = ['*', 'a', 'app.', 'app.w', 'app..w', 'app.web.', 'app.web.r', 'app.{web,db}.', 'app.web.requests', 'zero.only', 'nothing.', 'lat.api.c']
    await compare(queries.map(q => ({ label: `completer ${q}`, path: '/metrics/find', ours: [['query', q], ['format', 'completer']], theirs: [['query', q], ['format', 'completer']] })))
  }, 120_000)
})
