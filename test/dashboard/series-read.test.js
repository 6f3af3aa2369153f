// Reading a chart's series at one step (src/dashboard/js/series-read.js):
// the requests it sends through api.js (fetch stubbed), the stats of a
// distribution for the latency panel, and the step it falls back to.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { readSeries, readStats } from '../../src/dashboard/js/series-read.js'
import { parseSeriesQuery } from '../../src/routes/query-params.js'
import { planSeries } from '../../src/reader/series-plan.js'

const QUERY = { from: Date.UTC(2026, 10, 20, 12), to: Date.UTC(2026, 10, 21, 12), tz: 'UTC' }
const json = (status, body) => ({ ok: status < 400, status, statusText: '', json: async () => body })

/** Stubs fetch with answer(url) → [status, body]; → the URLs asked, parsed */
function stubFetch (answer) {
  const asked = []
  vi.stubGlobal('fetch', async path => {
    const url = new URL(path, 'http://dashboard')
    asked.push(url)
    return json(...answer(url))
  })
  return asked
}

const ok = url => [200, { metric: decodeURIComponent(url.pathname.split('/')[3]), stat: url.searchParams.get('stat') ?? 'count', step: url.searchParams.get('step'), timestamps: [], values: [] }]

afterEach(() => vi.unstubAllGlobals())

describe('readStats', () => {
  it('asks each stat of the one distribution at the step given, in order', async () => {
    const asked = stubFetch(ok)
    const { step, results } = await readStats('api.latency', ['p50', 'p90', 'p99'], { query: QUERY, step: 'quarter-hour', coarsen: true })
    expect(step).toBe('quarter-hour')
    expect(asked.map(u => [u.pathname, Object.fromEntries(u.searchParams)])).toEqual(['p50', 'p90', 'p99'].map(stat => [
      '/v1/metrics/api.latency/series',
      { from: String(QUERY.from), to: String(QUERY.to), tz: 'UTC', stat, step: 'quarter-hour' }
    ]))
    expect(results.map(r => [r.metric, r.stat, r.answer.stat])).toEqual([['api.latency', 'p50', 'p50'], ['api.latency', 'p90', 'p90'], ['api.latency', 'p99', 'p99']])
  })

  it('with coarsen, asks every stat again at the step a refusal names', async () => {
    const asked = stubFetch(url => {
      if (url.searchParams.get('step') === 'quarter-hour' && url.searchParams.get('stat') === 'p99') {
        const message = 'step: quarter-hour detail is kept from 2026-11-21 on …: use step=hour or coarser'
        return [400, { statusCode: 400, message, details: [{ path: 'step', message }] }]
      }
      return ok(url)
    })
    const { step, results } = await readStats('api.latency', ['p50', 'p90', 'p99'], { query: QUERY, step: 'quarter-hour', coarsen: true })
    expect(step).toBe('hour')
    expect(asked.map(u => `${u.searchParams.get('stat')}@${u.searchParams.get('step')}`)).toEqual([
      'p50@quarter-hour', 'p90@quarter-hour', 'p99@quarter-hour', 'p50@hour', 'p90@hour', 'p99@hour'
    ])
    expect(results.every(r => r.answer.step === 'hour')).toBe(true)
  })

  it('asks percentiles at step minute, and with coarsen every stat again at the step the API names when minutes are not kept for the window', async () => {
    // the API's own refusal of minutes before the metric's minute horizon (12 h ago), as for a counter
    const query = { from: String(QUERY.from), to: String(QUERY.to), step: 'minute' }
    let refusal
    try {
      planSeries({ ...parseSeriesQuery(query, { now: QUERY.to }), maxPoints: 20_000, horizons: { minuteFrom: QUERY.to - 12 * 3_600_000, dailyFrom: null } })
    } catch (err) {
      refusal = { statusCode: err.statusCode, message: err.message, details: err.details }
    }
    expect(refusal).toMatchObject({ statusCode: 400, details: [{ path: 'step' }] })
    const asked = stubFetch(url => (url.searchParams.get('step') === 'minute' ? [400, refusal] : ok(url)))
    const { step, results } = await readStats('api.latency', ['p50', 'p90', 'p99'], { query: QUERY, step: 'minute', coarsen: true })
    expect(step).toBe('quarter-hour')
    expect(asked.map(u => `${u.searchParams.get('stat')}@${u.searchParams.get('step')}`)).toEqual([
      'p50@minute', 'p90@minute', 'p99@minute', 'p50@quarter-hour', 'p90@quarter-hour', 'p99@quarter-hour'
    ])
    expect(results.map(r => r.answer.step)).toEqual(['quarter-hour', 'quarter-hour', 'quarter-hour'])
  })

  it('without coarsen, answers the refusal as it is', async () => {
    stubFetch(url => (url.searchParams.get('stat') === 'p50' ? [400, { message: 'nope', details: [{ path: 'step', message: 'nope' }] }] : ok(url)))
    const { step, results } = await readStats('api.latency', ['p50', 'p90'], { query: QUERY, step: 'minute', coarsen: false })
    expect(step).toBe('minute')
    expect(results[0]).toMatchObject({ stat: 'p50', error: { status: 400, message: 'nope' } })
    expect(results[1].answer.stat).toBe('p90')
  })
})

describe('readSeries', () => {
  it('asks each metric\'s default series: no stat in the query', async () => {
    const asked = stubFetch(ok)
    const { results } = await readSeries(['web.hits', 'api.latency'], { query: QUERY, step: 'minute' })
    expect(asked.map(u => [u.pathname, u.searchParams.has('stat'), u.searchParams.get('step')])).toEqual([
      ['/v1/metrics/web.hits/series', false, 'minute'],
      ['/v1/metrics/api.latency/series', false, 'minute']
    ])
    expect(results.map(r => [r.metric, r.answer.stat])).toEqual([['web.hits', 'count'], ['api.latency', 'count']])
  })

  it('asks each metric with its own parameters (its tag filters and group-by), at every step it retries', async () => {
    const asked = stubFetch(url => (url.searchParams.get('step') === 'minute' ? [400, { message: 'step: too fine', details: [{ path: 'step', message: 'too fine', coarsest: 'hour' }] }] : ok(url)))
    const params = { 'web.requests': { tag: ['status=~5', 'route!=/home'], by: 'route' } }
    await readSeries(['web.requests', 'web.hits'], { query: QUERY, step: 'minute', coarsen: true }, m => params[m] ?? {})
    expect(asked.map(u => [u.pathname.split('/')[3], u.searchParams.getAll('tag'), u.searchParams.get('by')])).toEqual([
      ['web.requests', ['status=~5', 'route!=/home'], 'route'], ['web.hits', [], null],
      ['web.requests', ['status=~5', 'route!=/home'], 'route'], ['web.hits', [], null]
    ])
  })
})
