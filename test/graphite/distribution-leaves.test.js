// A distribution in Graphite: a branch of stat leaves in /metrics/find
// (treejson and completer), /metrics/expand and /render's globs; each leaf
// read as its stat, checked against the raw values sent (an independent
// model: sort and pick the rank floor(q·(n−1))). Past maxDataPoints a
// percentile or mean point is merged again over its span, never averaged:
// each consolidated point is checked against the exact statistic of the raw
// values in the span graphite-web groups into it. Hostile leaf names and
// globs over many distributions answer as an unknown path does, or 400
// within the budget.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { createMapping } from '../../src/bucket/distribution-sketch.js'
import { seededRandom } from '../../scripts/shared/workload.js'
import { writeDistributions } from '../helpers/distribution-writes.js'
import { serverLacks } from '../helpers/server-gaps.js'
import { testApp } from '../helpers/test-app.js'

// skipped whole where the server lacks it (test/helpers/server-gaps.js)
const LACKING = serverLacks('wide updates', 'test/graphite/distribution-leaves.test.js')

// 2025-03-10T09:07:30Z: not on a quarter-hour, as Grafana's `now` rarely is
const NOW = Date.UTC(2025, 2, 10, 9, 7, 30)
const NOW_S = NOW / 1000
const DAY = 86_400_000
const QH = 900_000
const ALPHA = 0.01
const MANY = 150 // distributions many.d0 … many.d149
const clock = manualClock(NOW)
let app

// raw values per distribution, sorted by time: { time (ms), value }
const sent = new Map()
// the minutes (epoch s of their start) holding a value of old.latency written without its minute's histogram
const withoutHistogram = new Set()

function send (metric, time, value) {
  if (!sent.has(metric)) sent.set(metric, [])
  sent.get(metric).push({ time, value })
}

/** The raw values of `metric` in [from, to) (epoch s), sorted, with exact statistics */
function exact (metric, fromS, toS) {
  const all = sent.get(metric)
  const lower = t => { let lo = 0; let hi = all.length; while (lo < hi) { const mid = (lo + hi) >> 1; if (all[mid].time < t) lo = mid + 1; else hi = mid } return lo }
  const values = all.slice(lower(fromS * 1000), lower(toS * 1000)).map(e => e.value).sort((a, b) => a - b)
  const n = values.length
  return { n, values, sum: values.reduce((a, b) => a + b, 0), rank: q => values[Math.floor(q * (n - 1))] }
}

const within = (estimate, truth) => Math.abs(estimate - truth) <= ALPHA * Math.abs(truth) * (1 + 1e-9) + 1e-9

async function post (events) {
  for (let i = 0; i < events.length; i += 1000) {
    const res = await app.inject({ method: 'POST', url: '/v1/events', payload: events.slice(i, i + 1000) })
    expect(res.statusCode, res.body).toBe(200)
  }
}

beforeAll(async () => {
  app = await testApp('graphite_dist', { clock, env: { PREALLOC_PROBABILITY: '0', MAX_READ_POINTS: '100000', MAX_SERIES: '500' } })
  const random = seededRandom(2020)
  // old.latency: from 5 h to 2 h ago, values whose minute-hour writes were lost (flushes cut short: day and
  // month documents only, no minute-hour document), about one minute in three holding one;
  // the last 2 h sent as any value is, minute histograms and all
  const oldRandom = seededRandom(2121)
  const old = []
  for (let i = 0; i < 60; i++) old.push({ metric: 'old.latency', value: 1 + Math.floor(oldRandom() * 1000), time: NOW - 5 * 3_600_000 + Math.floor(oldRandom() * 3 * 3_600_000) })
  await writeDistributions(app.mongo.db, old, createMapping(ALPHA), { parts: ['daily', 'monthly'] })
  for (const e of old) withoutHistogram.add(Math.floor(e.time / 60_000) * 60)
  const events = []
  // api.latency: 8 days of quarter-hours, 10–39 log-normal values each around a median that follows the
  // hour of day; one quarter-hour in 12 is slow (×20), so a wide point's p99 is the slow quarter-hours'
  // and an average of quarter-hour p99s is far below it
  const first = NOW - 8 * DAY - (NOW % QH)
  for (let q = first; q < NOW; q += QH) {
    const hour = new Date(q).getUTCHours()
    const slow = random() < 1 / 12 ? 20 : 1
    const n = 10 + Math.floor(random() * 30)
    for (let i = 0; i < n; i++) {
      const time = q + Math.floor(random() * QH)
      if (time >= NOW) continue
      const value = Math.round(slow * (20 + 10 * Math.sin(hour / 4)) * Math.exp(0.6 * (random() + random() + random() - 1.5)) * 1000) / 1000
      events.push({ metric: 'api.latency', kind: 'distribution', value, ts: time })
    }
  }
  // api.other: fewer values, the last two days
  for (let i = 0; i < 3000; i++) events.push({ metric: 'api.other', kind: 'distribution', value: 1 + Math.floor(random() * 500), ts: NOW - 2 * DAY + Math.floor(random() * 2 * DAY) })
  // web.latency a distribution, and a counter named like its count leaf
  // (from the minute after -1d's first: graphite-web's window starts at the next step)
  for (let i = 0; i < 500; i++) events.push({ metric: 'web.latency', kind: 'distribution', value: 5 + (i % 17), ts: NOW - DAY + 120_000 + i * 60_000 })
  for (let i = 0; i < 50; i++) events.push({ metric: 'web.latency.count', value: 1000, ts: NOW - DAY + 120_000 + i * 600_000 })
  // counters
  for (let i = 0; i < 100; i++) events.push({ metric: 'api.requests', value: 3, ts: NOW - DAY + i * 700_000 })
  events.push({ metric: 'count.metric', value: 7, ts: NOW - 3_600_000 })
  for (let d = 0; d < MANY; d++) events.push({ metric: `many.d${d}`, kind: 'distribution', value: d + 1, ts: NOW - 600_000 })
  for (let i = 0; i < 200; i++) events.push({ metric: 'old.latency', kind: 'distribution', value: 1 + Math.floor(oldRandom() * 1000), ts: NOW - 2 * 3_600_000 + Math.floor(oldRandom() * 2 * 3_600_000) })
  const posted = events.slice()
  for (const e of old) events.push({ metric: e.metric, kind: 'distribution', value: e.value, ts: e.time })
  events.sort((a, b) => a.ts - b.ts)
  for (const e of events) if (e.kind === 'distribution') send(e.metric, e.ts, e.value)
  await post(posted.sort((a, b) => a.ts - b.ts))
}, 120_000)
afterAll(async () => { await app?.close() })

const get = async (url) => {
  const res = await app.inject(url)
  return { status: res.statusCode, body: res.json() }
}
const q = params => Object.entries(params).flatMap(([k, v]) => [v].flat().map(x => `${k}=${encodeURIComponent(x)}`)).join('&')
const render = async (params) => {
  const { status, body } = await get(`/render?format=json&${q(params)}`)
  expect(status, JSON.stringify(body).slice(0, 400)).toBe(200)
  return body
}
const byTarget = list => Object.fromEntries(list.map(s => [s.target, s.datapoints]))

/**
 * The span (epoch s) of each point of a series against its native points.
 * Unconsolidated, the point at t holds [t, t + step). Consolidated by v points,
 * graphite-web (render/views.py) nudges the start and deletes one value fewer
 * than it skips, so the point labelled T holds the native points T − step …
 * T + (v − 2)·step: the values of [T − step, T + (v − 1)·step), cut at the
 * native end; maxDataPoints=1 holds them all. → { per: v, spans: [{ from, to }] }
 */
function spansOf (native, points, maxDataPoints) {
  const step = native[1][1] - native[0][1]
  const nativeStart = native[0][1]
  const nativeEnd = native.at(-1)[1] + step
  const stride = points.length > 1 ? points[1][1] - points[0][1] : nativeEnd - nativeStart
  const per = Math.round(stride / step)
  const spans = points.map(([, t]) => {
    const from = maxDataPoints === 1 ? nativeStart : per === 1 ? t : t - step
    return { from, to: Math.min(nativeEnd, maxDataPoints === 1 ? nativeEnd : from + per * step) }
  })
  return { per, spans }
}

describe.skipIf(LACKING)('a distribution is a branch of stat leaves', () => {
  it('in /metrics/find (treejson): the nine listed below it, counters plain leaves', async () => {
    await app.nameIndex.refresh() // the index's look through the registry keeps each name's kind too
    expect((await get('/metrics/find?query=api.*')).body).toEqual([
      { text: 'latency', id: 'api.latency', allowChildren: 1, expandable: 1, leaf: 0 },
      { text: 'other', id: 'api.other', allowChildren: 1, expandable: 1, leaf: 0 },
      { text: 'requests', id: 'api.requests', allowChildren: 0, expandable: 0, leaf: 1 }
    ])
    const leaves = (await get('/metrics/find?query=api.latency.*')).body
    expect(leaves).toEqual(['count', 'max', 'mean', 'min', 'p50', 'p90', 'p99', 'p999', 'sum'].map(text => ({ text, id: `api.latency.${text}`, allowChildren: 0, expandable: 0, leaf: 1 })))
    // a stat named literally is a leaf; a glob lists the nine only
    expect((await get('/metrics/find?query=api.latency.p75')).body).toEqual([{ text: 'p75', id: 'api.latency.p75', allowChildren: 0, expandable: 0, leaf: 1 }])
    expect((await get('/metrics/find?query=api.latency.p7*')).body).toEqual([])
    expect((await get('/metrics/find?query=count.*')).body).toEqual([{ text: 'metric', id: 'count.metric', allowChildren: 0, expandable: 0, leaf: 1 }])
    expect((await get('/metrics/find?query=count.metric.*')).body).toEqual([])
  })

  it('in /metrics/find (completer): a prefix completes to the stat leaves', async () => {
    expect((await get('/metrics/find?format=completer&query=api.latency.p')).body).toEqual({
      metrics: ['p50', 'p90', 'p99', 'p999'].map(name => ({ path: `api.latency.${name}`, name, is_leaf: '1' }))
    })
    expect((await get('/metrics/find?format=completer&query=api.')).body).toEqual({
      metrics: [
        { path: 'api.latency.', name: 'latency', is_leaf: '0' },
        { path: 'api.other.', name: 'other', is_leaf: '0' },
        { path: 'api.requests', name: 'requests', is_leaf: '1' }
      ]
    })
    // a name shared by several nodes: sorted by name, then by path
    expect((await get('/metrics/find?format=completer&query=api.*.m')).body.metrics.map(m => m.path)).toEqual(['api.latency.max', 'api.other.max', 'api.latency.mean', 'api.other.mean', 'api.latency.min', 'api.other.min'])
    expect((await get('/metrics/find?format=pickle&query=api.*')).status).toBe(400)
  })

  it('in /metrics/expand: globs, brace alternatives, leavesOnly', async () => {
    expect((await get('/metrics/expand?query=api.*.p99&query=api.latency.p{50,75}')).body).toEqual({ results: ['api.latency.p50', 'api.latency.p75', 'api.latency.p99', 'api.other.p99'] })
    expect((await get('/metrics/expand?query=api.*&leavesOnly=1')).body).toEqual({ results: ['api.requests'] })
    expect((await get('/metrics/expand?query=api.*')).body).toEqual({ results: ['api.latency', 'api.other', 'api.requests'] })
  })

  it('a counter named like a stat leaf wins that path; the distribution keeps its other leaves', async () => {
    const leaves = (await get('/metrics/find?query=web.latency.*')).body
    expect(leaves.map(l => l.id)).toEqual(['count', 'max', 'mean', 'min', 'p50', 'p90', 'p99', 'p999', 'sum'].map(t => `web.latency.${t}`))
    const body = await render({ from: '-1d', target: ['web.latency.count', 'web.latency.{count,max}', 'web.latency.p99'] })
    const total = points => points.reduce((a, [v]) => a + (v ?? 0), 0)
    // the counter's 50 × 1000, literally and through a glob; not the distribution's 500 values
    expect(total(body[0].datapoints)).toBe(50_000)
    expect(body.slice(1, 3).map(s => s.target)).toEqual(['web.latency.count', 'web.latency.max'])
    expect(total(body[1].datapoints)).toBe(50_000)
    expect(Math.max(...body[2].datapoints.map(([v]) => v ?? 0))).toBe(21)
    expect(body[3].target).toBe('web.latency.p99')
    // the percentile at the minute step of the other leaves: its minutes keep their histograms
    expect(body[3].datapoints[1][1] - body[3].datapoints[0][1]).toBe(60)
    expect(body[0].datapoints[1][1] - body[0].datapoints[0][1]).toBe(60)
  })
})

describe.skipIf(LACKING)('render of stat leaves', () => {
  it('reads a percentile from minutes, within α, at the same step as the other stats', async () => {
    const step = points => points[1][1] - points[0][1]
    const [p99, ...more] = await render({ from: '-1d', target: 'api.latency.p99' })
    expect(more).toEqual([])
    expect(step(p99.datapoints)).toBe(60)
    const [count, ...rest] = (await render({ from: '-1d', target: 'api.latency.count' }))
    expect(rest).toEqual([])
    expect(step(count.datapoints)).toBe(60)
    expect(count.datapoints.map(([, t]) => t)).toEqual(p99.datapoints.map(([, t]) => t))
    // each minute's count is the number of values sent in it, and its p99 theirs within α
    let checked = 0
    count.datapoints.forEach(([v, t], i) => {
      const truth = exact('api.latency', t, t + 60)
      expect(v ?? 0, `count at ${t}`).toBe(truth.n)
      const p = p99.datapoints[i][0]
      if (truth.n === 0) { expect(p, `p99 at ${t}`).toBe(null); return }
      expect(within(p, truth.rank(0.99)), `p99 at ${t}: ${p} vs ${truth.rank(0.99)}`).toBe(true)
      checked++
    })
    expect(checked).toBeGreaterThan(1000)
    // a glob mixing them reads both at the minute
    const mixed = await render({ from: '-1d', target: 'api.latency.{count,p99}' })
    expect(mixed.map(s => [s.target, step(s.datapoints)])).toEqual([['api.latency.count', 60], ['api.latency.p99', 60]])
    expect(mixed[0].datapoints).toEqual(count.datapoints)
    expect(mixed[1].datapoints).toEqual(p99.datapoints)
  })

  it('reads any stat named literally or as a brace alternative (p75, p9999), and none of a branch', async () => {
    const body = await render({ from: '-6h', target: ['api.latency.p75', 'api.latency.p{9999,90}', 'api.latency'] })
    expect(body.map(s => s.target)).toEqual(['api.latency.p75', 'api.latency.p90', 'api.latency.p9999'])
    let checked = 0
    for (const [series, quantile] of [[body[0], 0.75], [body[1], 0.9], [body[2], 0.9999]]) {
      expect(series.datapoints[1][1] - series.datapoints[0][1]).toBe(60)
      for (const [v, t] of series.datapoints) {
        const truth = exact('api.latency', t, t + 60)
        if (truth.n === 0) { expect(v).toBe(null); continue }
        expect(within(v, truth.rank(quantile)), `${series.target} at ${t}: ${v} vs ${truth.rank(quantile)}`).toBe(true)
        checked++
      }
    }
    expect(checked).toBeGreaterThan(50)
  })

  const STATS = ['count', 'sum', 'mean', 'min', 'max', 'p50', 'p99', 'p999']
  const QUANTILES = { p50: 0.5, p99: 0.99, p999: 0.999 }

  /** Each point of each stat against the raw values of its span (spansOf) */
  function checkAgainstRaw (metric, answer, native, maxDataPoints) {
    const series = byTarget(answer)
    const points = series[`${metric}.count`]
    const { per, spans } = spansOf(native, points, maxDataPoints)
    let checked = 0
    points.forEach(([, t], i) => {
      const { from, to } = spans[i]
      const truth = exact(metric, from, to)
      const at = s => series[`${metric}.${s}`][i][0]
      const where = `${metric} maxDataPoints=${maxDataPoints} at ${new Date(t * 1000).toISOString()} [${from}, ${to})`
      if (at('count') === null) {
        expect(truth.n, where).toBe(0)
        for (const s of STATS) expect(at(s), `${s} ${where}`).toBe(null)
        return
      }
      expect(at('count'), where).toBe(truth.n)
      expect(Math.abs(at('sum') - truth.sum), where).toBeLessThan(1e-6 * Math.max(1, truth.sum))
      if (truth.n === 0) {
        for (const s of ['mean', 'min', 'max', 'p50', 'p99', 'p999']) expect(at(s), `${s} ${where}`).toBe(null)
        return
      }
      expect(at('min'), where).toBe(truth.values[0])
      expect(at('max'), where).toBe(truth.values[truth.n - 1])
      expect(Math.abs(at('mean') - truth.sum / truth.n), where).toBeLessThan(1e-9 * truth.sum / truth.n)
      for (const [s, quantile] of Object.entries(QUANTILES)) expect(within(at(s), truth.rank(quantile)), `${s} ${where}: ${at(s)} vs ${truth.rank(quantile)}`).toBe(true)
      checked++
    })
    return { per, checked, points: points.length }
  }

  const glob = `api.latency.{${STATS.join(',')}}`
  // minutes wherever MAX_POINTS of them cover the window (all of it keeps minutes: MINUTE_RETENTION_DAYS is 90), else quarter-hours
  it.each([
    ['six hours', '-6h', 1200, 60, 1],
    ['a day', '-1d', 100, 60, 15],
    ['a day', '-1d', 500, 60, 3],
    ['a day', '-1d', 1200, 60, 2],
    ['a day', '-1d', 20, 60, 72],
    ['a week', '-7d', 100, 60, 101],
    ['a week', '-7d', 500, 60, 21],
    ['a week', '-7d', 1200, 60, 9],
    ['a week', '-7d', 1, 60, 10_080],
    ['two weeks', '-14d', 1200, 900, 2],
    ['two weeks', '-14d', 100, 900, 14]
  ])('over %s (from=%s) at maxDataPoints %i: every point of every stat is the raw values\' (native step %i s, %i native points a point)', async (_, from, maxDataPoints, nativeStep, expectedPer) => {
    const native = (await render({ from, target: 'api.latency.p99' }))[0].datapoints
    expect(native[1][1] - native[0][1]).toBe(nativeStep)
    const answer = await render({ from, target: glob, maxDataPoints })
    const { per, checked, points } = checkAgainstRaw('api.latency', answer, native, maxDataPoints)
    expect(per).toBe(expectedPer)
    expect(points).toBeLessThanOrEqual(maxDataPoints)
    expect(checked).toBeGreaterThan(Math.min(points, 10) * 0.8)
  })

  it.each([
    ['minutes\'', '-7d', 60, 101],
    ['quarter-hours\'', '-14d', 900, 14]
  ])('a percentile point past maxDataPoints is not the average (nor the sum) of the %s percentiles', async (_, from, step, per) => {
    const native = (await render({ from, target: 'api.latency.p99' }))[0].datapoints
    expect(native[1][1] - native[0][1]).toBe(step)
    const nativeEnd = native.at(-1)[1] + step
    const [merged] = await render({ from, target: 'api.latency.p99', maxDataPoints: 100 })
    expect(merged.datapoints[1][1] - merged.datapoints[0][1]).toBe(per * step)
    let averagesWrong = 0
    let checked = 0
    for (const [v, t] of merged.datapoints) {
      if (v === null) continue
      const group = native.filter(([, u]) => u >= t - step && u < t - step + per * step).map(([x]) => x).filter(x => x !== null)
      const average = group.reduce((a, b) => a + b, 0) / group.length
      const truth = exact('api.latency', t - step, Math.min(nativeEnd, t - step + per * step)).rank(0.99)
      expect(within(v, truth), `at ${t}: ${v} vs ${truth}`).toBe(true)
      checked++
      if (!within(average, truth)) averagesWrong++
    }
    expect(checked).toBeGreaterThan(45)
    // the slow quarter-hours make most averages of p99s wrong: the test above would catch averaging
    expect(averagesWrong).toBeGreaterThan(merged.datapoints.length / 4)
  })

  it('minutes consolidated: count and sum summed, mean merged, min and max as such', async () => {
    const target = 'api.latency.{count,sum,mean,min,max}'
    const native = (await render({ from: '-1d', target: 'api.latency.count' }))[0].datapoints
    expect(native[1][1] - native[0][1]).toBe(60)
    const answer = await render({ from: '-1d', target, maxDataPoints: 100 })
    const step = 60
    const series = byTarget(answer)
    const points = series['api.latency.count']
    expect(points[1][1] - points[0][1]).toBe(15 * step)
    const nativeEnd = native.at(-1)[1] + step
    let checked = 0
    points.forEach(([count, t], i) => {
      const truth = exact('api.latency', t - step, Math.min(nativeEnd, t + 14 * step))
      expect(count).toBe(truth.n)
      if (!truth.n) return
      expect(series['api.latency.min'][i][0]).toBe(truth.values[0])
      expect(series['api.latency.max'][i][0]).toBe(truth.values[truth.n - 1])
      expect(series['api.latency.mean'][i][0]).toBeCloseTo(truth.sum / truth.n, 9)
      expect(series['api.latency.sum'][i][0]).toBeCloseTo(truth.sum, 6)
      checked++
    })
    expect(checked).toBeGreaterThan(90)
  })
})

describe.skipIf(LACKING)('minutes written without their histograms (their minute-hour writes lost)', () => {
  /**
   * Whether the percentile of [from, to) (epoch s) can be ranked: the range
   * planner reads each whole quarter-hour of it from the quarter-hour's
   * histogram and every other minute from its own, so no minute read on its
   * own may hold a value written without its histogram
   */
  const rankable = (from, to) => [...withoutHistogram].every(m => {
    if (m < from || m >= to) return true
    const quarter = Math.floor(m / 900) * 900
    return quarter >= from && quarter + 900 <= to
  })

  // [maxDataPoints, minutes a point, at least so many null percentile points, ranked ones, ranked ones over minutes without histograms]
  it.each([
    [null, 1, 40, 60, 0],
    [100, 4, 25, 20, 0],
    [20, 18, 5, 5, 1],
    [1, 360, 0, 1, 1]
  ])('old.latency over 6 h at maxDataPoints %s (%i minutes a point): counts, max and sums exact; a percentile null wherever a minute without its histogram is read on its own, the raw values\' within α elsewhere', async (maxDataPoints, expectedPer, leastNull, leastRanked, leastRankedOverOld) => {
    await app.nameIndex.refresh()
    const [native] = await render({ from: '-6h', target: 'old.latency.count' })
    expect(native.datapoints[1][1] - native.datapoints[0][1]).toBe(60)
    const answer = byTarget(await render({ from: '-6h', target: 'old.latency.{count,sum,max,p50,p99}', ...(maxDataPoints === null ? {} : { maxDataPoints }) }))
    const points = answer['old.latency.count']
    const { per, spans } = spansOf(native.datapoints, points, maxDataPoints)
    expect(per).toBe(expectedPer)
    let nulls = 0
    let ranked = 0
    let rankedOverOld = 0 // from the histograms of the quarter-hours that hold minutes without theirs
    points.forEach(([count, t], i) => {
      const { from, to } = spans[i]
      const truth = exact('old.latency', from, to)
      const at = s => answer[`old.latency.${s}`][i][0]
      const where = `at ${new Date(t * 1000).toISOString()} [${from}, ${to})`
      expect(count ?? 0, `count ${where}`).toBe(truth.n)
      if (truth.n === 0) {
        for (const s of ['max', 'p50', 'p99']) expect(at(s), `${s} ${where}`).toBe(null)
        return
      }
      expect(Math.abs(at('sum') - truth.sum), `sum ${where}`).toBeLessThan(1e-9 * truth.sum)
      expect(at('max'), `max ${where}`).toBe(truth.values[truth.n - 1])
      if (!rankable(from, to)) {
        expect([at('p50'), at('p99')], `percentiles ${where}`).toEqual([null, null])
        nulls++
        return
      }
      expect(within(at('p50'), truth.rank(0.5)), `p50 ${where}: ${at('p50')} vs ${truth.rank(0.5)}`).toBe(true)
      expect(within(at('p99'), truth.rank(0.99)), `p99 ${where}: ${at('p99')} vs ${truth.rank(0.99)}`).toBe(true)
      ranked++
      if ([...withoutHistogram].some(m => m >= from && m < to)) rankedOverOld++
    })
    expect(nulls).toBeGreaterThanOrEqual(leastNull)
    expect(ranked).toBeGreaterThanOrEqual(leastRanked)
    expect(rankedOverOld).toBeGreaterThanOrEqual(leastRankedOverOld)
  })
})

describe.skipIf(LACKING)('functions over stat leaves', () => {
  it('sumSeries of counts, alias and aliasByNode keep the merged points; consolidateBy and scale consolidate the points as they are', async () => {
    const from = '-2d'
    const body = byTarget(await render({
      from,
      maxDataPoints: 100,
      target: [
        'sumSeries(api.*.count)',
        'alias(api.latency.p99,"p99")',
        'aliasByNode(api.*.p99,1)',
        'api.latency.p99',
        'api.other.p99',
        'consolidateBy(api.latency.p99,"max")',
        'consolidateBy(api.latency.p99,"average")',
        'scale(api.latency.p99,2)'
      ]
    }))
    const native = (await render({ from, target: 'api.latency.p99' }))[0].datapoints
    const merged = body['api.latency.p99']
    expect(merged.length).toBeLessThanOrEqual(100)
    const step = 60
    expect(native[1][1] - native[0][1]).toBe(step)
    const per = (merged[1][1] - merged[0][1]) / step
    expect(per).toBe(29) // 2,880 minutes → 100 points
    expect(body.p99).toEqual(merged)
    expect(body.latency).toEqual(merged)
    expect(body.other).toEqual(body['api.other.p99'])
    const group = t => native.filter(([, u]) => u >= t - step && u < t - step + per * step).map(([x]) => x).filter(x => x !== null)
    let differs = 0
    merged.forEach(([v, t], i) => {
      const values = group(t)
      const max = values.length ? Math.max(...values) : null
      const average = values.length ? values.reduce((a, b) => a + b, 0) / values.length : null
      expect(body['consolidateBy(api.latency.p99,"max")'][i]).toEqual([max, t])
      expect(body['consolidateBy(api.latency.p99,"average")'][i][0]).toBeCloseTo(average, 9)
      // a function's new values cannot be merged again: a percentile falls back to max
      expect(body['scale(api.latency.p99,2)'][i]).toEqual([max === null ? null : 2 * max, t])
      if (v !== null && v !== max) differs++
    })
    expect(differs).toBeGreaterThan(0)
    // sumSeries: the counts of both distributions, summed per point (quarter-hours of minutes: sum)
    const counts = body['sumSeries(api.*.count)']
    const minuteStep = counts[1][1] - counts[0][1]
    for (const [v, t] of counts) {
      const n = exact('api.latency', t - 60, t - 60 + minuteStep).n + exact('api.other', t - 60, t - 60 + minuteStep).n
      expect(v ?? 0, `sumSeries at ${t}`).toBe(n)
    }
  })

  it('timeShift keeps the merged points of the shifted window', async () => {
    const [shifted] = await render({ from: '-2d', target: 'timeShift(api.latency.p99,"1d")', maxDataPoints: 50 })
    const step = 60
    const per = (shifted.datapoints[1][1] - shifted.datapoints[0][1]) / step
    expect(per).toBe(58) // 2,880 minutes → 50 points
    // the shifted window ends where the unshifted one does, a day earlier
    const end = Math.floor(NOW_S / step) * step + step - 86_400
    let checked = 0
    for (const [v, t] of shifted.datapoints) {
      const truth = exact('api.latency', t - 86_400 - step, Math.min(end, t - 86_400 - step + per * step))
      if (!truth.n) continue
      expect(within(v, truth.rank(0.99)), `at ${t}: ${v} vs ${truth.rank(0.99)}`).toBe(true)
      checked++
    }
    expect(checked).toBeGreaterThan(40)
  })
})

describe.skipIf(LACKING)('hostile stat leaves and globs', () => {
  it('a leaf that names no stat, or a stat of a counter, is an unknown path: no series', async () => {
    for (const target of ['api.latency.p9999999999999', 'api.latency.p1000', 'api.latency.p-1', 'api.latency.p99.9', 'api.latency.P99', 'api.latency.__proto__', 'api.latency.p101', 'api.latency.last', 'count.metric.p99', 'count.metric.count', 'api.requests.*', 'api.latency.p99.*', 'no.such.p99']) {
      expect(await render({ from: '-1h', target }), target).toEqual([])
    }
    expect(await render({ from: '-1h', target: 'api.latency.p{1000,-1,p99}' })).toEqual([])
    // a gauge's stat is no leaf of a distribution: a brace holding it draws the others
    expect((await render({ from: '-1h', target: 'api.latency.{p99,last}' })).map(s => s.target)).toEqual(['api.latency.p99'])
    expect((await render({ from: '-2h', target: 'count.metric' }))[0].datapoints.some(([v]) => v === 7)).toBe(true)
  })

  it('globs over many distributions stay within GRAPHITE_MAX_GLOB_METRICS, MAX_SERIES and MAX_READ_POINTS', async () => {
    const refusals = [
      ['many.*.*', /"many\.\*\.\*" matches more than GRAPHITE_MAX_GLOB_METRICS = 1000/],
      ['many.*.{count,p50,p99,p999}', /MAX_SERIES = 500/],
      ['many.*.p99', /MAX_READ_POINTS = 100000 points \("many\.\*\.p99": 150 series × 10080 points\)/]
    ]
    for (const [target, message] of refusals) {
      const res = await get(`/render?format=json&from=-7d&target=${encodeURIComponent(target)}`)
      expect(res.status, target).toBe(400)
      expect(res.body.message, target).toMatch(message)
    }
    expect((await get('/metrics/find?query=many.*.*')).status).toBe(400)
    // within the budget: 150 p99 series of one value each, every one its only value, labelled
    // with the window's first minute (08:08, the minute after -1h's)
    const body = await render({ from: '-1h', target: 'many.*.p99', maxDataPoints: 1 })
    expect(body).toHaveLength(MANY)
    for (const { target, datapoints } of body) {
      const d = Number(target.split('.')[1].slice(1))
      expect(datapoints, target).toEqual([[d + 1, Math.floor(NOW_S / 60) * 60 - 3600 + 60]])
    }
  })
})

describe.skipIf(LACKING)('a render request merges at most 4 × MAX_READ_BUCKETS across its series, each read at most MAX_READ_BUCKETS', () => {
  let small
  const DAY_START = Date.UTC(2025, 2, 9)
  // 600 distinct values from 09:35 to 09:45 yesterday: a percentile read of the hour merges their 600 buckets (the
  // minutes' histograms), and so does its merge again past maxDataPoints=2 (the half-hour band labelled 09:30)
  const wide = (metric) => Array.from({ length: 600 }, (_, i) => ({ metric, kind: 'distribution', value: Math.exp((i - 300) * 0.03), ts: DAY_START + 38 * QH + 300_000 + i * 1000 }))
  const renderSmall = async (targets, extra = '') => {
    const res = await small.inject({ url: `/render?format=json&from=${DAY_START / 1000 + 36 * 900}&until=${DAY_START / 1000 + 40 * 900}${targets.map(t => `&target=${encodeURIComponent(t)}`).join('')}${extra}` })
    return { status: res.statusCode, body: res.json() }
  }

  beforeAll(async () => {
    small = await testApp('graphite_buckets', { clock, env: { PREALLOC_PROBABILITY: '0', MAX_READ_BUCKETS: '1500' } })
    for (const metric of ['wide.a', 'wide.b', 'wide.c', ...Array.from({ length: 8 }, (_, i) => `more.m${i}`)]) {
      const res = await small.inject({ method: 'POST', url: '/v1/events', payload: wide(metric) })
      expect(res.statusCode, res.body).toBe(200)
    }
    // 1,600 values a bucket apart (γ of α = 1 %: ln γ ≈ 0.02) in the same ten minutes: one read of more than 1,500 buckets
    const huge = Array.from({ length: 1600 }, (_, i) => ({ metric: 'huge', kind: 'distribution', value: Math.exp(i * 0.021), ts: DAY_START + 38 * QH + 300_000 + Math.floor(i * 600 / 1600) * 1000 }))
    for (let i = 0; i < huge.length; i += 800) expect((await small.inject({ method: 'POST', url: '/v1/events', payload: huge.slice(i, i + 800) })).statusCode).toBe(200)
  })
  afterAll(async () => { await small?.close() })

  it('refuses, with the 400 naming it, leaves of several metrics that each fit but together pass 4 × MAX_READ_BUCKETS', async () => {
    // 11 × 600 buckets: each read alone fits in 1,500, all of them pass 6,000
    const res = await renderSmall(['wide.{a,b,c}.p99', 'more.*.p99'])
    expect(res.status, JSON.stringify(res.body)).toBe(400)
    // refused where their minutes' histograms are checked, before any merge
    expect(res.body.message).toMatch(/this request checks more than 4 × MAX_READ_BUCKETS = 6000 minute-histogram buckets across its series/)
    // 3 × 600: more than one read's 1,500, within the request's 6,000
    const three = await renderSmall(['wide.a.p99', 'wide.b.p99', 'wide.c.p99'])
    expect(three.status, JSON.stringify(three.body)).toBe(200)
    expect(three.body).toHaveLength(3)
  })

  it('refuses one metric\'s read of more than MAX_READ_BUCKETS, naming the metric', async () => {
    const res = await renderSmall(['huge.p99'])
    expect(res.status, JSON.stringify(res.body)).toBe(400)
    // refused where its minutes' histograms are checked, before any merge
    expect(res.body.message).toMatch(/this read \(of huge\) checks more than MAX_READ_BUCKETS = 1500 minute-histogram buckets/)
  })

  it('reads one metric once for all its percentile leaves, across targets and past maxDataPoints; the other stats cost no bucket', async () => {
    // wide.a's percentiles: 600 buckets read, 600 merged again past maxDataPoints; wide.b and wide.c's other stats none
    const targets = ['wide.a.p{50,90,99}', 'wide.a.p999', 'wide.a.p75', 'wide.a.*', 'wide.b.{count,sum,mean,min,max}', 'wide.c.{count,sum,mean,min,max}']
    const res = await renderSmall(targets, '&maxDataPoints=2')
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const byTarget = Object.fromEntries(res.body.map(s => [s.target, s.datapoints]))
    const values = Array.from({ length: 600 }, (_, i) => Math.exp((i - 300) * 0.03))
    const rank = q => values[Math.floor(q * 599)]
    for (const [leaf, q] of [['p50', 0.5], ['p90', 0.9], ['p99', 0.99], ['p999', 0.999], ['p75', 0.75]]) {
      const points = byTarget[`wide.a.${leaf}`].filter(([v]) => v !== null)
      expect(points, leaf).toHaveLength(1)
      expect(within(points[0][0], rank(q)), `${leaf}: ${points[0][0]} against ${rank(q)}`).toBe(true)
    }
    for (const metric of ['wide.b', 'wide.c']) {
      expect(byTarget[`${metric}.count`].reduce((n, [v]) => n + (v ?? 0), 0)).toBe(600)
      expect(byTarget[`${metric}.max`].find(([v]) => v !== null)[0]).toBeCloseTo(values[599], 9)
    }
  })
})
