// A gauge in Graphite: its own name a leaf of its last level, and a branch
// of stat leaves (last, min, max, mean, count, sum). Past maxDataPoints each
// consolidated point means its stat over the span graphite-web groups into
// it (the span's last level, its extremes, Σ sum ÷ Σ count), never a sum of
// levels: each point is checked against the raw levels sent in its span.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { serverLacks } from '../helpers/server-gaps.js'
import { testApp } from '../helpers/test-app.js'

// skipped whole where the server lacks it (test/helpers/server-gaps.js)
const LACKING = serverLacks('wide updates', 'test/graphite/gauge-leaves.test.js')

// 2026-03-02T10:30:00Z, on a minute; Grafana's relative `from=-2d`
const NOW = Date.UTC(2026, 2, 2, 10, 30)
const NOW_S = NOW / 1000
const MIN = 60_000
const clock = manualClock(NOW)
let app

// raw levels per gauge: [{ time (ms), value }] sorted by time
const sent = new Map()

function levels (metric, from, count, valueAt) {
  const list = []
  for (let i = 0; i < count; i++) list.push({ time: from + i * MIN, value: valueAt(i) })
  sent.set(metric, list)
  return list.map(({ time, value }) => ({ metric, kind: 'gauge', value, ts: time }))
}

/** What a stat of `metric` is over [fromS, toS) (epoch s), from the raw levels, or null where none was sent */
function expected (metric, stat, fromS, toS) {
  const inSpan = sent.get(metric).filter(e => e.time >= fromS * 1000 && e.time < toS * 1000)
  if (inSpan.length === 0) return null
  const values = inSpan.map(e => e.value)
  const sum = values.reduce((a, b) => a + b, 0)
  return { last: values.at(-1), min: Math.min(...values), max: Math.max(...values), count: values.length, sum, mean: sum / values.length }[stat]
}

async function render (query) {
  const res = await app.inject({ method: 'GET', url: `/render?${query}&format=json` })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

beforeAll(async () => {
  app = await testApp('graphite_gauge', { clock, env: { PREALLOC_PROBABILITY: '0' } })
  const start = NOW - 2 * 86_400_000
  // gg.level: 10 every minute for two days (the read Grafana makes of a flat level)
  // gg.wave: a level that moves, so last, min, max and mean differ in every span
  const events = [
    ...levels('gg.level', start, 2 * 1440, () => 10),
    ...levels('gg.wave', start, 2 * 1440, i => ((i * 37) % 101) - 20 + (i % 7) / 4)
  ]
  for (let i = 0; i < events.length; i += 1000) {
    const res = await app.inject({ method: 'POST', url: '/v1/events', payload: events.slice(i, i + 1000) })
    expect(res.statusCode, res.body).toBe(200)
  }
})

afterAll(async () => { await app?.close() })

describe.skipIf(LACKING)('a gauge through Graphite', () => {
  it('its name reads its level, not sums of levels, with maxDataPoints as without', async () => {
    const [consolidated] = await render('target=gg.level&from=-2d&maxDataPoints=100')
    expect(consolidated.datapoints.length).toBeLessThanOrEqual(100)
    const values = consolidated.datapoints.map(([v]) => v).filter(v => v !== null)
    expect(values.length).toBeGreaterThan(90)
    expect(new Set(values)).toEqual(new Set([10]))
    const [native] = await render('target=gg.level&from=-2d')
    expect(new Set(native.datapoints.map(([v]) => v).filter(v => v !== null))).toEqual(new Set([10]))
  })

  it('every stat leaf, consolidated, is its stat over each point\'s span of the raw levels', async () => {
    const stats = ['last', 'min', 'max', 'mean', 'count', 'sum']
    const answer = await render(`${stats.map(s => `target=gg.wave.${s}`).join('&')}&from=${NOW_S - 2 * 86_400}&until=${NOW_S}&maxDataPoints=77`)
    expect(answer.map(s => s.target).sort()).toEqual(stats.map(s => `gg.wave.${s}`).sort())
    for (const series of answer) {
      const stat = series.target.split('.').at(-1)
      const points = series.datapoints
      expect(points.length).toBeLessThanOrEqual(77)
      const step = points[1][1] - points[0][1]
      expect(step).toBeGreaterThan(60) // consolidated
      let compared = 0
      for (const [value, t] of points) {
        // graphite-web nudges a consolidated series' start: the point labelled t holds the native
        // minutes [t − 60, t − 60 + step), cut at the native end (until's minute, included)
        const want = expected('gg.wave', stat, t - 60, Math.min(t - 60 + step, NOW_S + 60))
        if (want === null) { expect(value, `${series.target} at ${t}`).toBeNull(); continue }
        expect(value, `${series.target} at ${t}`).toBeCloseTo(want, 9)
        compared++
      }
      expect(compared).toBeGreaterThan(70)
    }
  })

  it('lists its stat leaves under its name, which is a leaf too', async () => {
    const res = await app.inject({ method: 'GET', url: '/metrics/find?query=gg.wave.*' })
    expect(res.statusCode).toBe(200)
    expect(res.json().map(n => n.text)).toEqual(['count', 'last', 'max', 'mean', 'min', 'sum'])
    const expand = await app.inject({ method: 'GET', url: '/metrics/expand?query=gg.*&leavesOnly=1' })
    expect(expand.json().results).toEqual(['gg.level', 'gg.wave'])
    const percentile = await render('target=gg.wave.p99&from=-1h')
    expect(percentile).toEqual([]) // a gauge keeps no histogram: no such leaf
  })
})
