// /metrics while the database is down (docs/adr/0067-slo-metrics.md), on a
// real statbucket process and a database this file starts itself: frozen
// with SIGSTOP, the scrape is answered before the database is thawed — 200,
// every metric but the SLO series (none, never zeros), the failure counted in
// statbucket_slo_report_errors; killed, the same; back, the series return.
import { afterAll, describe, expect, it } from 'vitest'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describeLogs, onCleanup, request, startDatabase, startStatbucket, stopAll, uniqueDb, waitFor } from './harness.js'
import { parseMetrics } from '../helpers/prometheus-text.js'

// a client gives up on an answer only after this: a hang, not a slow answer (no duration is asserted)
const HANG_MS = 60_000
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'slo-scrape-outage-'))
const SLO = (name, target) => JSON.stringify({
  apiVersion: 'openslo/v1',
  kind: 'SLO',
  metadata: { name },
  spec: {
    indicator: { spec: { ratioMetric: { good: { metricSource: { type: 'statbucket', spec: { metric: 'out.requests', tags: ['status!=~5..'] } } }, total: { metricSource: { type: 'statbucket', spec: { metric: 'out.requests' } } } } } },
    timeWindow: [{ duration: '1M', calendar: { timeZone: 'Europe/Berlin' } }],
    budgetingMethod: 'Occurrences',
    objectives: [{ target }]
  }
})

afterAll(async () => {
  await stopAll()
  fs.rmSync(dir, { recursive: true, force: true })
})

const sloSeries = samples => [...samples.keys()].filter(k => k.startsWith('statbucket_slo_') && k.includes('slo="'))

describe('the SLO series of /metrics in a database outage', () => {
  it('frozen, then killed: the scrape answers 200 without the SLO series, counting the failure; back, they return', async () => {
    const file = path.join(dir, 'slos.yaml')
    fs.writeFileSync(file, [SLO('checkout', 0.999), SLO('browse', 0.99)].join('\n---\n'))
    const db = await startDatabase({ heap: '256m' })
    const sb = await startStatbucket({ MONGODB_URI: db.uri, MONGODB_DB: uniqueDb('sloscrape'), SLO_FILE: file, WRITE_TIMEOUT_MS: '5000' })
    onCleanup(() => sb.stop())
    const scrape = async () => {
      const res = await request(sb.port, { path: '/metrics', timeoutMs: HANG_MS })
      expect(res.status, JSON.stringify(res)).toBe(200)
      return parseMetrics(res.body)
    }
    const events = ['200', '200', '500'].map(status => ({ metric: 'out.requests', tags: { status } }))
    // a 503 applied nothing (a loaded machine's first flush may take longer than WRITE_TIMEOUT_MS): sent again
    await waitFor(async () => {
      const res = await request(sb.port, { method: 'POST', path: '/v1/events', body: events, timeoutMs: HANG_MS })
      expect([200, 503], JSON.stringify(res)).toContain(res.status)
      return res.status === 200
    }, { timeoutMs: 60_000, intervalMs: 500, what: 'the events to be acknowledged' })

    const up = await scrape()
    expect(up.get('statbucket_slo_period_events{slo="checkout"}')).toBe(3)
    expect(up.get('statbucket_slo_attainment{slo="browse"}')).toBe(2 / 3)
    expect(up.get('statbucket_slo_report_errors{reason="database"}')).toBe(0)

    await db.freeze()
    let frozen
    try {
      frozen = await scrape() // answered while the database is still stopped: bounded by the driver's timeouts
    } finally {
      db.thaw()
    }
    expect(sloSeries(frozen), describeLogs(sb)).toEqual([])
    expect(frozen.get('statbucket_slo_report_errors{reason="database"}')).toBeGreaterThanOrEqual(1)
    expect(frozen.get('statbucket_slo_report_errors{reason="internal"}')).toBe(0)
    expect(frozen.get('statbucket_events_accepted_total')).toBe(up.get('statbucket_events_accepted_total')) // the rest of /metrics
    expect(frozen.has('process_resident_memory_bytes')).toBe(true)

    await waitFor(async () => sloSeries(await scrape()).length === sloSeries(up).length, { timeoutMs: 30_000, intervalMs: 250, what: 'the SLO series after SIGCONT' })

    await db.kill()
    const killed = await scrape()
    expect(sloSeries(killed)).toEqual([])
    expect(killed.get('statbucket_slo_report_errors{reason="database"}')).toBeGreaterThanOrEqual(1)
    expect(sb.alive(), describeLogs(sb)).toBe(true)
    expect(sb.logs.some(l => /^SLO series left out of \/metrics/.test(l.msg ?? '')), describeLogs(sb)).toBe(true)
  }, 240_000)
})
