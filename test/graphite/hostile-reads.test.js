// Hostile Graphite reads against the real app with 60,000 registered
// metrics: each read the issue found answered 400 (never 500, never a dead
// process) or its right answer, within the work the code counts — the
// reads it makes (none where a budget refuses it before reading, each
// series once however the targets nest), the points they hold, the visits
// each glob may make of the name index; prototype names as arguments name
// the function; and a grammar of targets (every supported function,
// nested, hostile arguments, a few distributions' stat leaves) never gets a
// 5xx nor reads past MAX_SERIES, MAX_READ_POINTS or the buckets a request
// may merge, and meets the budgets (answered 400 naming them) (fast-check).
// How long these take is the bench's and the fuzzer's figure, not a test's.
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { serverLacks } from '../helpers/server-gaps.js'
import { directDb, testApp, uniqueDbName } from '../helpers/test-app.js'

// skipped whole where the server lacks it (test/helpers/server-gaps.js)
const LACKING = serverLacks('scale', 'test/graphite/hostile-reads.test.js')

const NOW = Date.UTC(2026, 10, 21, 12)
const LONG = 'a'.repeat(150) // a metric name part that pathological patterns chew on
const REGISTERED = 60_000
// the name-index visits a glob may make (src/graphite/metric-source.js), and the buckets the reads of one request may merge (4 × MAX_READ_BUCKETS)
const MAX_VISITS = 100_000
const REQUEST_BUCKETS = 4
let app, client, db, cost

beforeAll(async () => {
  const dbName = uniqueDbName('hostilegraphite')
  ;({ client, db } = await directDb(dbName))
  // 60,000 names in the registry, spread over 3 levels (as many services, hosts and counters)
  const docs = Array.from({ length: REGISTERED }, (_, i) => ({ _id: `svc${i % 50}.host${i % 1200}.m${i}`, firstSeen: new Date(NOW), lastSeen: new Date(NOW), added: new Date(NOW) }))
  for (let i = 0; i < docs.length; i += 10_000) await db.collection('metrics').insertMany(docs.slice(i, i + 10_000), { ordered: false })
  // admission by event-loop delay off: loading 60,000 names at boot stalls the loop, and this file is about reads (admission: test/plugins/admission.test.js)
  app = await testApp('hostilegraphite', { clock: manualClock(NOW), env: { MONGODB_DB: dbName, PREALLOC_PROBABILITY: '0', MAX_EVENT_LOOP_DELAY_MS: '0' } })
  const events = []
  for (let m = 0; m < 5; m++) for (let i = 0; i < 60; i++) events.push({ metric: `hx.${LONG}.m${m}`, value: i % 7, ts: NOW - i * 60_000 - 1 })
  // distributions: their stat leaves go through the same functions, and are merged again past maxDataPoints
  for (let d = 0; d < 3; d++) for (let i = 0; i < 200; i++) events.push({ metric: `hd.lat${d}`, kind: 'distribution', value: (i * 37) % 101 + d, ts: NOW - i * 450_000 - 1 })
  expect((await app.inject({ method: 'POST', url: '/v1/events', payload: events })).statusCode).toBe(200)
  cost = countWork(app)
}, 120_000)
afterAll(async () => { await app?.close(); await client?.close() })

/**
 * The work the routes ask of the reader and the name index, counted as they
 * ask it: reads (each one series of one metric), the points the counters'
 * reads held, the request budgets the distributions' reads were charged to
 * ({ series, points, buckets }), the visits each glob was allowed. A request
 * starts once the reads an earlier one left (those it had scheduled when it
 * was refused) are done: none in flight, none started for 20 turns of the
 * event loop, so that each request's count is its own.
 */
function countWork (app) {
  let work = null
  const flight = { started: 0, pending: 0 }
  const { reader, nameIndex } = app
  for (const name of ['series', 'distributionSeries', 'distributionRanges']) {
    const read = reader[name]
    reader[name] = async (...args) => {
      flight.started++
      flight.pending++
      const mine = work
      mine.reads++
      if (args[2]?.budget) mine.budgets.add(args[2].budget)
      try {
        const answer = await read.apply(reader, args)
        if (Array.isArray(answer.values)) mine.points += answer.values.length
        return answer
      } finally {
        flight.pending--
      }
    }
  }
  const match = nameIndex.match
  nameIndex.match = (pattern, matchers, options) => {
    work.visitBudgets.push(options.maxVisits)
    return match.call(nameIndex, pattern, matchers, options)
  }
  const turn = () => new Promise(resolve => setImmediate(resolve))
  async function settled () {
    for (let quiet = 0; quiet < 20;) {
      const started = flight.started
      await turn()
      quiet = flight.pending === 0 && flight.started === started ? quiet + 1 : 0
    }
  }
  work = { reads: 0, points: 0, budgets: new Set(), visitBudgets: [] }
  return {
    /** One request, and the work it asked for */
    async of (url) {
      await settled()
      work = { reads: 0, points: 0, budgets: new Set(), visitBudgets: [] }
      // a url of a long query string is POSTed as a form, as Grafana sends one (a GET's query string is at most 1 KiB)
      const path = url.slice(0, url.indexOf('?'))
      const query = url.slice(url.indexOf('?') + 1)
      const res = query.length > 1024
        ? await app.inject({ method: 'POST', url: path, payload: query, headers: { 'content-type': 'application/x-www-form-urlencoded' } })
        : await app.inject({ method: 'GET', url })
      return { res, reads: work.reads, points: work.points, budgets: [...work.budgets], visitBudgets: [...work.visitBudgets] }
    }
  }
}

/** What every answered read stays within: the series and points it may read, the buckets it may merge, the visits a glob may make */
function expectWithinBudgets ({ res, reads, points, budgets, visitBudgets }, what) {
  const { maxSeries, maxReadPoints, maxReadBuckets } = app.config
  for (const visits of visitBudgets) expect(visits, `${what}: a glob's visits`).toBeLessThanOrEqual(MAX_VISITS)
  // charged before they are read: a request refused past them read no more
  expect(reads, `${what}: reads`).toBeLessThanOrEqual(maxSeries)
  expect(points, `${what}: points read`).toBeLessThanOrEqual(maxReadPoints)
  if (res.statusCode !== 200) return
  for (const b of budgets) {
    expect(b.series, `${what}: series charged`).toBeLessThanOrEqual(maxSeries)
    expect(b.points, `${what}: points charged`).toBeLessThanOrEqual(maxReadPoints)
    expect(b.buckets, `${what}: buckets merged`).toBeLessThanOrEqual(REQUEST_BUCKETS * maxReadBuckets)
  }
}

const render = (target, range = 'from=-1h') => `/render?format=json&${range}&target=${encodeURIComponent(target)}`

describe.skipIf(LACKING)('the reads that killed or blocked the process', () => {
  // [what, url, status, message, the most reads it may make: 0 where a budget refuses it before reading, or a find]
  const cases = [
    ['summarize of a constant line at 1 s over a year', render('summarize(constantLine(1),"1s")', 'from=-1y'), 400, /summarize: the interval "1s" makes \d+ points per series.*more than MAX_POINTS = 20000/, 0],
    ['summarize at 1 s over 30 days', render('summarize(hx.*.m0,"1s")', 'from=-30d'), 400, /MAX_POINTS = 20000/, 0],
    ['hitcount at 1 s over a year', render('hitcount(constantLine(1),"1s")', 'from=-1y'), 400, /hitcount: the interval "1s" .* MAX_POINTS/, 0],
    ['timeShift nested 20 deep with doubling shifts', render(Array.from({ length: 20 }, (_, i) => i).reduce((t, i) => `timeShift(${t},"${2 ** i}min")`, 'hx.*.m0')), 400, /more than 256 evaluations/, 0],
    ['a regex that backtracks for ever elsewhere', render('aliasSub(hx.*.m0,"^(a+)+$","x")'), 200, null, 1],
    ['a regex with a backreference', render('aliasSub(hx.*.m0,"(a)\\1","x")'), 400, /aliasSub: search .*RE2 syntax/, 1],
    ['an aliasSub that multiplies the name', render(Array.from({ length: 8 }).reduce(t => `aliasSub(${t},"(.)","\\\\1\\\\1\\\\1\\\\1")`, 'hx.*.m0')), 400, /aliasSub: the new name is \d+ characters, more than 1024/, 1],
    ['movingAverage with a window of a year of minutes', render('movingAverage(hx.*.m0,525600)', 'from=-2d'), 400, /(movingAverage|MAX_POINTS|MAX_READ_POINTS)/, 2], // its own window and the one it reaches back to (one more evaluation)
    ['an aliasSub search of 4,002 instructions (80 ms a name of 1,024 characters)', render('aliasSub(hx.*.m0,"(?:.?){1000}(?:.?){1000}","\\g<0>")'), 400, /^aliasSub: search .* compiles to 4002 instructions, over 256/, 1],
    // 50 series × 13 days of minutes read (936,000 points), scaled 20 times: 18.7 million points made, each level held to the end
    ['scale nested 20 deep over 13 days of 50 series', render(Array.from({ length: 20 }).reduce(t => `scale(${t},1)`, 'svc1.host1.*'), 'from=-13d'), 400, /^the functions of this request make more than 8000000 points in all \(MAX_READ_POINTS × 4\)/, 50],
    ['a find query past 8,192 characters', `/metrics/find?query=hx.${'*'.repeat(9000)}`, 400, /^a query is at most 8192 characters, got one of 9003$/, 0],
    ['an expand query past 8,192 characters', `/metrics/expand?query=hx.${'*'.repeat(9000)}`, 400, /^a query is at most 8192 characters, got one of 9003$/, 0],
    ['a glob of 8,000 stars (one)', `/metrics/find?query=hx.${'*'.repeat(8000)}`, 200, null, 0],
    ['a glob part of 3,000 ?', `/metrics/find?query=hx.${'?'.repeat(3000)}`, 400, /compiles to \d+ instructions, over 2048: use fewer alternatives, classes or \?$/, 0],
    ['a glob that backtracks for ever elsewhere', `/metrics/find?query=${encodeURIComponent('hx.*a*a*a*a*a*a*a*a*b')}`, 200, null, 0],
    ['a glob without a literal prefix over 60,000 names', `/metrics/find?query=${encodeURIComponent('*.*.*')}`, 400, /visits more than 100000 names|matches more than GRAPHITE_MAX_GLOB_METRICS/, 0],
    ['a first-level glob over 60,000 names', '/metrics/find?query=*', 200, null, 0],
    ['hitcount over a range that ends before its first bucket', render('hitcount(hx.*.m0,"1h")', 'from=-65min&until=-5min'), 200, null, 1],
    ['summarize with a prototype interval', render('summarize(hx.*.m0,"__proto__")'), 400, /^summarize: argument intervalString "__proto__" is not an interval/, 1],
    ['summarize with a prototype function', render('summarize(hx.*.m0,"1h","__proto__")'), 400, /summarize|aggregation "__proto__"/, 1],
    ['summarize with constructor as function', render('summarize(hx.*.m0,"1h",func="constructor")'), 400, /aggregation "constructor"/, 1],
    ['consolidateBy toString', render('consolidateBy(hx.*.m0,"toString")'), 400, /consolidateBy: "toString"/, 1],
    ['a keyword named __proto__', render('scale(hx.*.m0,__proto__=2)'), 400, /scale/, 1],
    ['a glob matching every name at depth 3 through render', render('svc1.*.*'), 400, /(GRAPHITE_MAX_GLOB_METRICS|MAX_SERIES|visits more than)/, 0]
  ]
  it.each(cases)('%s: the right answer, within the reads and budgets the code counts', async (what, url, status, message, mostReads) => {
    const work = await cost.of(url)
    const { res } = work
    expect(res.statusCode, res.body.slice(0, 300)).toBe(status)
    if (message) expect(res.json().message).toMatch(message)
    expect(work.reads, `reads of ${what}`).toBeLessThanOrEqual(mostReads)
    expectWithinBudgets(work, what)
  })

  it('timeShift nested 20 deep with one shift costs 21 fetches, not 2^20: answered', async () => {
    const target = Array.from({ length: 20 }).reduce(t => `timeShift(${t},"1min")`, 'hx.*.m0')
    const work = await cost.of(render(target))
    expect(work.res.statusCode).toBe(200)
    expect(work.res.json()).toHaveLength(1)
    expect(work.reads).toBeGreaterThan(0)
    expect(work.reads).toBeLessThanOrEqual(21)
    expectWithinBudgets(work, 'timeShift nested 20 deep')
  })
})

describe.skipIf(LACKING)('a grammar of hostile targets', () => {
  const interval = fc.constantFrom('1s', '1min', '5min', '1h', '1d', '-1h', '0s', '999999y', '__proto__', 'constructor', '1e308s', 'x', '')
  const name = fc.constantFrom('hx.*.m0', `hx.${LONG}.m1`, 'hx.*.*', '*.*', 'svc3.host1?.m*', 'hx.{a,b,' + LONG + '}.m2', 'hx.[a-z]*.m[0-4]', 'nope.none', 'hx.*a*a*a*a*a*b.*',
    'hd.lat0.p99', 'hd.*.p{50,75,99}', 'hd.lat1.*', 'hd.lat2.mean', 'hd.lat0.p9999999999999', 'hd.*.{count,p1000,max}', 'hd.lat0', 'hd.lat0.p99.*')
  const str = fc.oneof(interval, fc.constantFrom('^(a+)+$', '(.*)*x', '(a|aa)*b', '\\1', '[', 'toString', '__proto__', 'sum', 'max', 'average'), fc.string({ maxLength: 30 }))
  const num = fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constantFrom(0, 1e308, -1e308, 525600, 1e9, 2.5))
  const quote = s => JSON.stringify(s)
  const target = fc.letrec(tie => ({
    series: fc.oneof({ depthSize: 'small', withCrossShrink: true },
      name,
      fc.tuple(num).map(([n]) => `constantLine(${n})`),
      fc.tuple(tie('series'), str).map(([s, a]) => `alias(${s},${quote(a)})`),
      fc.tuple(tie('series'), num, num).map(([s, a, b]) => `aliasByNode(${s},${a},${b})`),
      fc.tuple(tie('series'), str, str).map(([s, a, b]) => `aliasSub(${s},${quote(a)},${quote(b)})`),
      fc.tuple(tie('series'), tie('series')).map(([a, b]) => `sumSeries(${a},${b})`),
      fc.tuple(tie('series'), interval, str, fc.boolean()).map(([s, i, f, b]) => `summarize(${s},${quote(i)},${quote(f)},${b})`),
      fc.tuple(tie('series'), str).map(([s, f]) => `consolidateBy(${s},${quote(f)})`),
      tie('series').map(s => `integral(${s})`),
      fc.tuple(tie('series'), num).map(([s, n]) => `perSecond(${s},${n})`),
      fc.tuple(tie('series'), num).map(([s, n]) => `nonNegativeDerivative(${s},${n})`),
      fc.tuple(tie('series'), fc.oneof(num.map(String), interval.map(quote))).map(([s, w]) => `movingAverage(${s},${w})`),
      fc.tuple(tie('series'), interval, fc.boolean()).map(([s, i, b]) => `timeShift(${s},${quote(i)},${b})`),
      fc.tuple(tie('series'), num).map(([s, n]) => `scale(${s},${n})`),
      fc.tuple(tie('series'), interval).map(([s, i]) => `hitcount(${s},${quote(i)})`),
      fc.tuple(tie('series'), fc.constantFrom('__proto__', 'constructor', 'toString', 'prototype')).map(([s, k]) => `scale(${s},${k}=2)`)
    )
  })).series
  const range = fc.constantFrom('from=-1h', 'from=-1d', 'from=-30d', 'from=-1y', 'from=-6h&until=-5h', 'from=0&until=99999999999', 'from=-1y&maxDataPoints=1', 'from=-2d&maxDataPoints=100000000')

  it('never a 5xx, never past the budgets: reads, points, buckets and visits within them, and the budgets met with a 400 naming them', async () => {
    // refusals that name a budget the code counts (src/graphite/budget.js, metric-source.js, name-index.js)
    const BUDGETS = /MAX_POINTS|MAX_READ_POINTS|MAX_SERIES|MAX_READ_BUCKETS|GRAPHITE_MAX_GLOB_METRICS|more than \d+ evaluations|visits more than|more than 1024|MAX_WINDOW_WORK/
    const refusedByBudget = []
    await fc.assert(fc.asyncProperty(fc.array(target, { minLength: 1, maxLength: 3 }), range, async (targets, r) => {
      const url = `/render?format=json&${r}&${targets.map(t => `target=${encodeURIComponent(t)}`).join('&')}`
      const work = await cost.of(url)
      const { res } = work
      expect(res.statusCode, `${url}\n${res.body.slice(0, 300)}`).toBeLessThan(500)
      expectWithinBudgets(work, url)
      if (res.statusCode === 400 && BUDGETS.test(res.json().message)) refusedByBudget.push(res.json().message)
    }), { numRuns: 300 })
    expect(refusedByBudget.length, 'requests of the grammar refused by a budget').toBeGreaterThan(0)
  }, 120_000)
})
