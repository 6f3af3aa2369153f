// /render latency: sumSeries over the seeded read metrics × 24 h at the
// native minute step, against the same sum built from one /v1/.../series
// request per metric (issued together) and summed by the client.
import { DAY_MS } from '../../src/bucket/time.js'

function percentile (sorted, p) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : null
}

async function timed (seconds, once) {
  const latencies = []
  const until = performance.now() + seconds * 1000
  let last = null
  while (performance.now() < until) {
    const t0 = performance.now()
    last = await once()
    latencies.push(performance.now() - t0)
  }
  latencies.sort((a, b) => a - b)
  return { requests: latencies.length, p50Ms: percentile(latencies, 0.5), p99Ms: percentile(latencies, 0.99), last }
}

async function getJson (url) {
  const res = await fetch(url)
  if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}: ${(await res.text()).slice(0, 200)}`)
  return res.json()
}

export async function benchGraphite ({ server, seed, seconds, prefix = 'bench.read.' }) {
  const day = seed.lastDay // a whole seeded day
  const fromS = day / 1000 - 60 // whisper semantics: points after `from`
  const untilS = (day + DAY_MS) / 1000 - 60
  const render = `${server.url}/render?format=json&target=${encodeURIComponent(`sumSeries(${prefix}*)`)}&from=${fromS}&until=${untilS}`
  const renderRun = await timed(seconds, async () => {
    const [series] = await getJson(render)
    return series.datapoints.reduce((a, [v]) => a + (v ?? 0), 0)
  })
  const seriesRun = await timed(seconds, async () => {
    const answers = await Promise.all(seed.metrics.map(m => getJson(`${server.url}/v1/metrics/${m}/series?from=${day}&to=${day + DAY_MS}&step=minute`)))
    return answers.reduce((a, s) => a + s.values.reduce((b, v) => b + (v ?? 0), 0), 0)
  })
  return {
    metrics: seed.metrics.length,
    points: 1440,
    seconds,
    render: { requests: renderRun.requests, p50Ms: renderRun.p50Ms, p99Ms: renderRun.p99Ms },
    series: { requests: seriesRun.requests, p50Ms: seriesRun.p50Ms, p99Ms: seriesRun.p99Ms },
    sameTotal: renderRun.last === seriesRun.last,
    total: renderRun.last
  }
}
