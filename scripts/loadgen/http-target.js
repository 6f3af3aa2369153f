// Load generator target: statbucket's HTTP API.
import { createHttpClient } from '../shared/http-client.js'
import { DAY_MS, startOfDay, startOfMonth, addMonths } from '../../src/bucket/time.js'

// errors before a connection was made: the request never left this machine
const NOT_REACHED = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EADDRNOTAVAIL'])

/** What an answer means for the events it carried */
export function outcomeOf ({ status, json, error }) {
  if (status === 200) return 'acked'
  if (status === 503 && json?.outcome === 'not_applied') return 'not_applied'
  if (status >= 400 && status < 500 && status !== 408) return 'rejected'
  if (!status && NOT_REACHED.has(error)) return 'not_reached' // not applied
  return 'unknown' // 504, other 5xx, a reset or other network error, timeout: may be applied
}

export async function createHttpTarget ({ url, token, concurrency }) {
  const client = createHttpClient({ url, token, connections: concurrency })
  const ready = await client.request('GET', '/readyz')
  if (ready.status !== 200) {
    client.close()
    const why = ready.error ? ready.error : `answered ${ready.status} ${ready.text?.slice(0, 200)}`
    throw new Error(`statbucket at ${url} is not ready: GET /readyz ${why}`)
  }
  const info = ready.json ?? {}

  async function seriesSum (metric, from, to, step) {
    const q = `from=${from}&to=${to}&step=${step}`
    const res = await client.request('GET', `/v1/metrics/${encodeURIComponent(metric)}/series?${q}`)
    if (res.status === 404) return 0
    if (res.status !== 200) throw new Error(`GET series of ${metric} answered ${res.status}: ${res.text?.slice(0, 200)}`)
    return res.json.values.reduce((s, v) => s + (v ?? 0), 0)
  }

  return {
    description: `${url} (statbucket HTTP API; server backend ${info.backend ?? '?'})`,
    layout: 'hierarchical',
    backend: info.backend ?? null,
    async send (events) {
      const res = await client.request('POST', '/v1/events', events.length === 1 ? events[0] : events)
      const outcome = outcomeOf(res)
      return { outcome, status: res.status, message: res.error ?? res.json?.message ?? res.text?.slice(0, 300) }
    },
    /** Sums of the metrics' day documents and month documents over [from, to), through the API */
    async totals (metrics, from, to) {
      const dayFrom = startOfDay(from); const dayTo = startOfDay(to - 1) + DAY_MS
      const monthFrom = startOfMonth(from); const monthTo = addMonths(startOfMonth(to - 1), 1)
      let daily = 0; let monthly = 0
      for (const m of metrics) {
        const d = await seriesSum(m, dayFrom, dayTo, 'day')
        const mo = await seriesSum(m, monthFrom, monthTo, 'month')
        daily += d
        monthly += mo
      }
      return { daily, monthly }
    },
    /** The registry's names that start with `prefix` (GET /v1/metrics, every page) */
    async namesWithPrefix (prefix) {
      const names = []
      for (let after = null; ;) {
        const res = await client.request('GET', `/v1/metrics?prefix=${encodeURIComponent(prefix)}&limit=10000${after ? `&after=${encodeURIComponent(after)}` : ''}`)
        if (res.status !== 200) throw new Error(`GET /v1/metrics answered ${res.status}: ${res.text?.slice(0, 200)}`)
        const page = res.json.metrics.map(m => m.name)
        names.push(...page)
        if (page.length < 10000) return names
        after = page.at(-1)
      }
    },
    /** DELETE /v1/metrics/:metric → null, or why it failed */
    async deleteMetric (name) {
      const res = await client.request('DELETE', `/v1/metrics/${encodeURIComponent(name)}`)
      return res.status === 200 ? null : `${res.status} ${res.error ?? res.json?.message ?? ''}`.trim()
    },
    async close () { client.close() }
  }
}
