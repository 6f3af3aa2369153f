// The otlp section's request: what a service instrumented with the
// OpenTelemetry SDK exports in one go, built by the real clients
// (@opentelemetry/sdk-metrics, @opentelemetry/exporter-metrics-otlp-proto,
// delta temporality) and captured as it arrives over HTTP, so the bench
// replays the bytes an SDK sends. The mix (OTLP_MIX): per export, HTTP
// server counters and explicit-bounds latency histograms per route,
// method and status, exponential histograms of database calls, gauges and
// up-down counters (non-monotonic cumulative sums: gauge levels); each
// histogram series a few log-normal latencies (./timer-workload.js).
import http from 'node:http'
import { MeterProvider, PeriodicExportingMetricReader, AggregationType } from '@opentelemetry/sdk-metrics'
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto'
import { AggregationTemporalityPreference } from '@opentelemetry/exporter-metrics-otlp-http'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { latencies } from './timer-workload.js'

// points per export of each kind; each series its own attribute set
export const OTLP_MIX = Object.freeze({ deltaSums: 100, explicitHistograms: 50, exponentialHistograms: 10, gauges: 20, upDownCounters: 20, valuesPerHistogram: 20 })
// semantic conventions' advice for http.server.request.duration, in s
const HTTP_BOUNDS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10]
const METHODS = ['GET', 'POST']
const STATUSES = [200, 404]

/** The attribute set of series i of a kind: routes × methods × statuses */
const httpAttributes = (i) => ({ 'http.route': `/api/v1/resource${Math.floor(i / 4)}`, 'http.request.method': METHODS[i % 2], 'http.response.status_code': STATUSES[Math.floor(i / 2) % 2] })

/** Records OTLP_MIX's values on a meter (names under prefix) → the sum of the counters' increments */
function record (meter, prefix, mix) {
  const requests = meter.createCounter(`${prefix}http.server.requests`)
  const duration = meter.createHistogram(`${prefix}http.server.request.duration`, { unit: 's', advice: { explicitBucketBoundaries: HTTP_BOUNDS } })
  const db = meter.createHistogram(`${prefix}db.client.operation.duration`, { unit: 's' })
  const memory = meter.createGauge(`${prefix}process.memory.usage`, { unit: 'By' })
  const inflight = meter.createUpDownCounter(`${prefix}http.server.active_requests`)
  let counted = 0
  for (let i = 0; i < mix.deltaSums; i++) { const n = 1 + (i % 7); requests.add(n, httpAttributes(i)); counted += n }
  for (let i = 0; i < mix.explicitHistograms; i++) for (const ms of latencies(mix.valuesPerHistogram, 1 + i)) duration.record(ms / 1000, httpAttributes(i))
  for (let i = 0; i < mix.exponentialHistograms; i++) for (const ms of latencies(mix.valuesPerHistogram, 1000 + i)) db.record(ms / 1000, { 'db.operation.name': i % 2 ? 'find' : 'update', 'db.collection.name': `c${i}` })
  for (let i = 0; i < mix.gauges; i++) memory.record(1e8 + i * 4096, { 'process.memory.type': `heap${i}` })
  for (let i = 0; i < mix.upDownCounters; i++) inflight.add(1 + i, httpAttributes(i))
  return counted
}

/**
 * One export of OTLP_MIX (names under prefix) as the protobuf exporter sends it
 * → { body: Buffer, headers: { content-type, content-encoding? }, points, counterTotal }
 */
export async function captureOtlpExport ({ prefix = 'bench.otlp.', mix = OTLP_MIX } = {}) {
  let captured = null
  let counterTotal = 0
  const sink = http.createServer((req, res) => {
    const chunks = []
    req.on('data', c => chunks.push(c))
    req.on('end', () => {
      // the first export (forceFlush's); shutdown's after it holds only the cumulative up-down counters again
      captured ??= { body: Buffer.concat(chunks), headers: { 'content-type': req.headers['content-type'], ...(req.headers['content-encoding'] ? { 'content-encoding': req.headers['content-encoding'] } : {}) } }
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end()
    })
  })
  await new Promise(resolve => sink.listen(0, '127.0.0.1', resolve))
  try {
    const exporter = new OTLPMetricExporter({ url: `http://127.0.0.1:${sink.address().port}/v1/metrics`, temporalityPreference: AggregationTemporalityPreference.DELTA })
    const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 })
    const provider = new MeterProvider({
      resource: resourceFromAttributes({ 'service.name': 'bench-checkout', 'service.version': '1.4.2', 'host.name': 'bench-host' }),
      readers: [reader],
      views: [{ instrumentName: `${prefix}db.client.operation.duration`, aggregation: { type: AggregationType.EXPONENTIAL_HISTOGRAM } }]
    })
    counterTotal = record(provider.getMeter('bench'), prefix, mix)
    await provider.forceFlush()
    await provider.shutdown()
  } finally {
    await new Promise(resolve => sink.close(resolve))
  }
  if (!captured) throw new Error('the OTLP exporter sent nothing')
  const points = mix.deltaSums + mix.explicitHistograms + mix.exponentialHistograms + mix.gauges + mix.upDownCounters
  return { ...captured, mix, points, counterTotal }
}
