// GET /metrics: Prometheus counters read before and after ingests, flushes,
// preallocations and rejected requests; one registry per app.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { testApp } from '../helpers/test-app.js'
import { parseMetrics } from '../helpers/prometheus-text.js'

const NOW = Date.UTC(2026, 10, 21, 12, 0)
const clock = manualClock(NOW)
let app
let preallocate = false // what the app's random() lets the preallocator do
const extraHooks = { flushed: 0, answered: 0, preallocated: 0 }

beforeAll(async () => {
  app = await testApp('prometheus', {
    clock,
    env: { PREALLOC_PROBABILITY: '1', PREALLOC_BUSY_MINUTES: '1' }, // one write makes a metric busy: the sweep takes it
    random: () => (preallocate ? 0 : 1),
    observer: {
      flushed: () => extraHooks.flushed++,
      answered: () => extraHooks.answered++,
      preallocated: () => extraHooks.preallocated++
    }
  })
})
afterAll(async () => { await app?.close() })

async function scrape (instance = app) {
  const res = await instance.inject('/metrics')
  expect(res.statusCode).toBe(200)
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/)
  return parseMetrics(res.body)
}

const post = (payload, headers) => app.inject({ method: 'POST', url: '/v1/events', payload, headers })
const delta = (before, after, key) => (after.get(key) ?? 0) - (before.get(key) ?? 0)

describe('GET /metrics', () => {
  it('counts accepted events, flushes and their documents, and the HTTP request', async () => {
    const before = await scrape()
    const events = [
      { metric: 'm.a', value: 2, ts: NOW - 60_000 },
      { metric: 'm.a', ts: NOW - 30 * 3600_000 }, // yesterday: another daily document
      { metric: 'm.b' }
    ]
    const res = await post(events)
    expect(res.json()).toEqual({ accepted: 3 })
    const after = await scrape()

    expect(delta(before, after, 'statbucket_events_accepted_total')).toBe(3)
    expect(delta(before, after, 'statbucket_writer_answers_total{outcome="applied"}')).toBe(1)
    expect(delta(before, after, 'statbucket_flushes_total')).toBe(1)
    expect(delta(before, after, 'statbucket_flush_duration_seconds_count')).toBe(1)
    expect(delta(before, after, 'statbucket_flush_duration_seconds_sum')).toBeGreaterThan(0)
    // m.a: 2 days + 1 month, m.b: 1 day + 1 month
    expect(delta(before, after, 'statbucket_flush_documents_sum')).toBe(5)
    expect(delta(before, after, 'statbucket_flush_events_sum')).toBe(3)
    expect(delta(before, after, 'statbucket_http_request_duration_seconds_count{method="POST",route="/v1/events",status_code="200"}')).toBe(1)
    expect(after.get('statbucket_pending_events')).toBe(0)
    expect(after.get('statbucket_queued_requests')).toBe(0)
  })

  it('counts rejected events by status, and reads by route pattern', async () => {
    expect((await post({ metric: 'm.a' })).statusCode).toBe(200) // a metric to read
    const before = await scrape()
    expect((await post([{ metric: 'ok' }, { metric: 'bad name' }, { metric: 'ok2' }])).statusCode).toBe(400)
    // refused by the ingest service, once the door let go of the body: counted all the same
    const old = await post([{ metric: 'ok' }, { metric: 'ok', ts: '2001-01-01T00:00:00Z' }])
    expect(old.statusCode).toBe(400)
    expect(old.json().message).toMatch(/^events\[1\]\.ts: is older than MAX_AGE_DAYS/)
    expect((await post('metric=x', { 'content-type': 'application/x-www-form-urlencoded' })).statusCode).toBe(415)
    expect((await app.inject('/v1/metrics/m.a/series?step=hour')).statusCode).toBe(200)
    expect((await app.inject('/v1/metrics/nope/ytd')).statusCode).toBe(404)
    expect((await app.inject('/no/such/path')).statusCode).toBe(404)
    const after = await scrape()

    expect(delta(before, after, 'statbucket_events_rejected_total{status="400"}')).toBe(5)
    expect(after.has('statbucket_events_rejected_total{status="415"}')).toBe(true)
    expect(delta(before, after, 'statbucket_events_accepted_total')).toBe(0)
    const http = (route, status) => `statbucket_http_request_duration_seconds_count{method="GET",route="${route}",status_code="${status}"}`
    expect(delta(before, after, http('/v1/metrics/:metric/series', 200))).toBe(1)
    expect(delta(before, after, http('/v1/metrics/:metric/ytd', 404))).toBe(1)
    expect(delta(before, after, http('unmatched', 404))).toBe(1)
  })

  it('counts preallocations by kind and collection', async () => {
    const before = await scrape()
    // On Nov 30 the next day starts a month: its monthly document is preallocated too.
    clock.set(Date.UTC(2026, 10, 30, 12, 0))
    try {
      preallocate = true
      await post({ metric: 'p.random' })
      preallocate = false
      await app.preallocator.idle()
      await post({ metric: 'p.swept' })
      // tomorrow for every metric busy today that lacks it: p.swept only
      await app.sweep.runOnce()
    } finally {
      clock.set(NOW)
    }
    const after = await scrape()
    const prealloc = (kind, collection) => delta(before, after, `statbucket_preallocations_total{kind="${kind}",collection="${collection}"}`)
    expect(prealloc('probabilistic', 'daily')).toBe(1)
    expect(prealloc('probabilistic', 'monthly')).toBe(1)
    expect(prealloc('sweep', 'daily')).toBe(1)
    expect(prealloc('sweep', 'monthly')).toBe(1)
  })

  it('has process metrics, and calls the extra observer hooks too', async () => {
    const seen = { ...extraHooks }
    preallocate = true
    try {
      expect((await post({ metric: 'hooks.a' })).statusCode).toBe(200)
      await app.preallocator.idle()
    } finally {
      preallocate = false
    }
    const samples = await scrape()
    expect(samples.has('process_cpu_user_seconds_total')).toBe(true)
    expect(samples.has('nodejs_heap_size_used_bytes')).toBe(true)
    expect(extraHooks.flushed).toBeGreaterThan(seen.flushed)
    expect(extraHooks.answered).toBeGreaterThan(seen.answered)
    expect(extraHooks.preallocated).toBeGreaterThan(seen.preallocated)
  })

  it('keeps one registry per app', async () => {
    const other = await testApp('prometheus2', { clock: manualClock(NOW), env: { PREALLOC_PROBABILITY: '0' } })
    try {
      expect((await post({ metric: 'mine.a' })).statusCode).toBe(200)
      const mine = await scrape()
      const fresh = await scrape(other)
      expect(mine.get('statbucket_events_accepted_total')).toBeGreaterThan(0)
      expect(fresh.get('statbucket_events_accepted_total')).toBe(0)
      await other.inject({ method: 'POST', url: '/v1/events', payload: { metric: 'x' } })
      expect((await scrape(other)).get('statbucket_events_accepted_total')).toBe(1)
      expect((await scrape()).get('statbucket_events_accepted_total')).toBe(mine.get('statbucket_events_accepted_total'))
    } finally {
      await other.close()
    }
  })
})
