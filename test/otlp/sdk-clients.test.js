// POST /v1/metrics against real OpenTelemetry clients: @opentelemetry/sdk-metrics
// exporting through @opentelemetry/exporter-metrics-otlp-proto (protobuf) and
// -http (OTLP JSON), delta and cumulative, to the app listening on a free
// port. What they record is what series, total, quantiles and Graphite answer;
// a cumulative exponential histogram the SDK downscales between exports adds
// exactly the values of the period.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AggregationTemporality, AggregationType, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics'
import { OTLPMetricExporter as ProtoExporter } from '@opentelemetry/exporter-metrics-otlp-proto'
import { AggregationTemporalityPreference, OTLPMetricExporter as JsonExporter } from '@opentelemetry/exporter-metrics-otlp-http'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { testApp } from '../helpers/test-app.js'

const LATENCIES = [3, 7, 7, 12, 40, 95, 180, 250, 600, 1200]

/** A meter provider exporting to `url` through `Exporter` with `temporality`, its reader flushed by hand */
function client (Exporter, url, temporality, service) {
  const exporter = new Exporter({ url, temporalityPreference: temporality })
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 })
  const provider = new MeterProvider({
    resource: resourceFromAttributes({ 'service.name': service }),
    readers: [reader],
    views: [{ instrumentName: '*.exp', aggregation: { type: AggregationType.EXPONENTIAL_HISTOGRAM } }]
  })
  return { meter: provider.getMeter('test'), flush: () => provider.forceFlush(), shutdown: () => provider.shutdown() }
}

describe.each([
  ['protobuf', ProtoExporter],
  ['JSON', JsonExporter]
])('an OpenTelemetry SDK exporting OTLP/HTTP %s', (encoding, Exporter) => {
  let app
  let url
  const prefix = encoding === 'JSON' ? 'j' : 'p'
  const DAY = 86_400_000
  // whole UTC days around now: the SDK stamps its points with the wall clock
  const from = Math.floor(Date.now() / DAY) * DAY - DAY
  const to = from + 3 * DAY
  const read = async (path) => {
    const res = await app.inject({ url: `${path}${path.includes('?') ? '&' : '?'}from=${from}&to=${to}` })
    expect(res.statusCode, res.body).toBe(200)
    return res.json()
  }
  const enc = encodeURIComponent

  beforeAll(async () => {
    app = await testApp(`otlp_sdk_${prefix}`, { env: { PREALLOC_PROBABILITY: '0' } })
    await app.listen({ port: 0, host: '127.0.0.1' })
    url = `http://127.0.0.1:${app.server.address().port}/v1/metrics`
  })
  afterAll(async () => { await app?.close() })

  for (const [temporality, name] of [[AggregationTemporalityPreference.DELTA, 'delta'], [AggregationTemporalityPreference.CUMULATIVE, 'cumulative']]) {
    it(`stores ${name} counters, up-down counters, gauges and histograms per attribute set, exactly`, async () => {
      const p = `${prefix}.${name}`
      const c = client(Exporter, url, temporality, 'checkout')
      const requests = c.meter.createCounter(`${p}.requests`)
      const queue = c.meter.createUpDownCounter(`${p}.queue`)
      const temperature = c.meter.createGauge(`${p}.temperature`)
      const latency = c.meter.createHistogram(`${p}.latency`, { advice: { explicitBucketBoundaries: [5, 10, 50, 100, 500, 1000] } })
      const exp = c.meter.createHistogram(`${p}.latency.exp`)

      // three exports: for cumulative, the first point of each series is its baseline
      requests.add(1, { route: '/login', status: 200 })
      queue.add(1)
      await c.flush()
      requests.add(5, { route: '/login', status: 200 })
      requests.add(2, { route: '/home', status: 500 })
      queue.add(4)
      temperature.record(21.5, { room: 'a' })
      for (const v of LATENCIES) { latency.record(v, { route: '/login' }); exp.record(v) }
      await c.flush()
      requests.add(3, { route: '/login', status: 200 })
      queue.add(-2)
      temperature.record(19, { room: 'a' })
      for (const v of LATENCIES) { latency.record(v * 2, { route: '/login' }); exp.record(v * 2) }
      await c.flush()
      await c.shutdown()

      const baseline = name === 'cumulative'
      // delta: every increment; cumulative: what the series grew by after its first point
      expect((await read(`/v1/metrics/${enc(`${p}.requests;route=/login;service=checkout;status=200`)}/total`)).total).toBe(baseline ? 8 : 9)
      // the /home series first appears in the second export: its first point is its baseline when cumulative
      expect((await read(`/v1/metrics/${enc(`${p}.requests;route=/home;service=checkout;status=500`)}/total`)).total).toBe(baseline ? 0 : 2)
      // Graphite: the untagged name is the sum of its series, and seriesByTag finds each
      const render = async (target) => {
        const now = Math.floor(Date.now() / 1000)
        const res = await app.inject({ url: `/render?target=${enc(target)}&from=${now - 3600}&until=${now + 300}&format=json` })
        expect(res.statusCode, res.body).toBe(200)
        return res.json().map(s => s.datapoints.reduce((a, [v]) => a + (v ?? 0), 0))
      }
      expect(await render(`${p}.requests`)).toEqual([baseline ? 8 : 11])
      expect(await render(`seriesByTag('name=${p}.requests','status=500')`)).toEqual([baseline ? 0 : 2])
      // an up-down counter is cumulative whatever the preference (the SDK's delta selector keeps it so): a level
      const queueRead = await read(`/v1/metrics/${enc(`${p}.queue;service=checkout`)}/series?step=day`)
      expect(queueRead.values.filter(v => v !== null)).toEqual([3])
      const temp = await read(`/v1/metrics/${enc(`${p}.temperature;room=a;service=checkout`)}/series?step=day`)
      expect(temp.values.filter(v => v !== null)).toEqual([19])

      // histograms: count, sum, min and max exact (cumulative: the first point is the baseline, the next adds its count and sum)
      const sum = LATENCIES.reduce((a, b) => a + b, 0)
      const q = await read(`/v1/metrics/${enc(`${p}.latency;route=/login;service=checkout`)}/quantiles?q=0,0.5,1`)
      const qe = await read(`/v1/metrics/${enc(`${p}.latency.exp;service=checkout`)}/quantiles?q=0,0.5,1`)
      const within = (value, exact, alpha) => expect(Math.abs(value - exact) / exact).toBeLessThanOrEqual(alpha)
      if (baseline) {
        for (const r of [q, qe]) expect(r).toMatchObject({ count: 10, sum: 2 * sum })
        // min and max of a cumulative point are its whole period's: the added values are placed at their buckets' values
        // (the doubled median, 80, in the bucket (50, 100]: its middle, 75, within the sketch's α)
        within(q.quantiles[1].value, 75, 0.01)
        within(qe.quantiles[1].value, 80, 0.02)
      } else {
        for (const r of [q, qe]) expect(r).toMatchObject({ count: 20, sum: 3 * sum, min: 3, max: 2400 })
        expect(q.quantiles[0].value).toBe(3)
        expect(q.quantiles[2].value).toBe(2400)
        // the median (the 10th of 20 values, rank ⌊0.5·19⌋), 80, lies in the bucket (50, 100]: at its middle, within α
        within(q.quantiles[1].value, 75, 0.01)
        // exponential buckets at the SDK's scale are about as fine as α: a bucket's value and the sketch's, each within ~1 %
        within(qe.quantiles[1].value, 80, 0.02)
      }
    })
  }

  it('a cumulative exponential histogram whose scale the SDK lowers between exports adds exactly the values of the period', async () => {
    const p = `${prefix}.downscale`
    const exporter = new Exporter({ url, temporalityPreference: AggregationTemporalityPreference.CUMULATIVE })
    // what the SDK exports, seen in memory too: the scale it chose each time
    const seen = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE)
    const readers = [exporter, seen].map(e => new PeriodicExportingMetricReader({ exporter: e, exportIntervalMillis: 3_600_000 }))
    const provider = new MeterProvider({
      resource: resourceFromAttributes({ 'service.name': 'checkout' }),
      readers,
      views: [{ instrumentName: '*.exp', aggregation: { type: AggregationType.EXPONENTIAL_HISTOGRAM } }]
    })
    const h = provider.getMeter('test').createHistogram(`${p}.exp`)
    h.record(100)
    h.record(100.5)
    await provider.forceFlush() // the baseline, at a fine scale
    const period = [1, 7, 100, 2500, 40_000, 900_000]
    for (const v of period) h.record(v)
    await provider.forceFlush() // the same start, the scale lowered to hold 1..900,000 in 160 buckets
    await provider.shutdown()
    const scales = seen.getMetrics().map(r => r.scopeMetrics[0].metrics[0].dataPoints[0].value.scale)
    expect(scales[0]).toBeGreaterThan(scales[1])
    const q = await read(`/v1/metrics/${enc(`${p}.exp;service=checkout`)}/quantiles?q=0.5`)
    expect(q).toMatchObject({ count: period.length, sum: period.reduce((a, b) => a + b, 0) })
  })

  it('says what limits a quantile: buckets coarser than α, or the sketch (a fine exponential scale, values sent one by one)', async () => {
    const p = `${prefix}.acc`
    const c = client(Exporter, url, AggregationTemporalityPreference.DELTA, 'checkout')
    const coarse = c.meter.createHistogram(`${p}.coarse`, { advice: { explicitBucketBoundaries: [10, 100, 1000] } })
    const fine = c.meter.createHistogram(`${p}.fine.exp`) // values 1 % apart in all: a fine scale
    const fineValues = Array.from({ length: 50 }, (_, i) => 100 + i * 0.02)
    for (const v of LATENCIES) coarse.record(v)
    for (const v of fineValues) fine.record(v)
    await c.flush()
    await c.shutdown()
    const events = await app.inject({ method: 'POST', url: '/v1/events', payload: fineValues.map(value => ({ metric: `${p}.json`, kind: 'distribution', value })) })
    expect(events.statusCode, events.body).toBe(200)

    // every answer keeps the promise it makes: each quantile within relativeError of the value at its rank
    const promiseKept = (answer, values) => {
      const sorted = [...values].sort((a, b) => a - b)
      for (const { q, value } of answer.quantiles) {
        const exact = sorted[Math.floor(q * (sorted.length - 1))]
        expect(Math.abs(value - exact) / exact).toBeLessThanOrEqual(answer.relativeError * (1 + 1e-9))
      }
    }
    const qs = 'q=0,0.25,0.5,0.9,1'
    const c1 = await read(`/v1/metrics/${enc(`${p}.coarse;service=checkout`)}/quantiles?${qs}`)
    // the median, 40, counted in (10, 100] at 55: that bucket's values may be 4.5 × off, far coarser than α
    expect(c1).toMatchObject({ accuracy: 0.01, limitedBy: 'buckets' })
    expect(c1.relativeError).toBeCloseTo((1 + 4.5) * 1.01 - 1, 9)
    promiseKept(c1, LATENCIES)
    const f1 = await read(`/v1/metrics/${enc(`${p}.fine.exp;service=checkout`)}/quantiles?${qs}`)
    expect(f1).toMatchObject({ accuracy: 0.01, limitedBy: 'sketch' })
    expect(f1.relativeError).toBeGreaterThan(0.01)
    expect(f1.relativeError).toBeLessThan(0.0101) // 160 buckets over 1 %: each a few 1e-5 wide
    promiseKept(f1, fineValues)
    const j1 = await read(`/v1/metrics/${enc(`${p}.json`)}/quantiles?${qs}`)
    expect(j1).toMatchObject({ accuracy: 0.01, relativeError: 0.01, limitedBy: 'sketch' })
    promiseKept(j1, fineValues)
  })
})
