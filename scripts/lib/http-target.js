// Load generator target: statbucket's HTTP API.
import http from 'node:http'
import https from 'node:https'
import { DAY_MS, startOfDay, startOfMonth, addMonths } from '../../src/bucket/time.js'

const REQUEST_TIMEOUT_MS = 60_000

export function createHttpClient ({ url, token, connections = 8 }) {
  const base = new URL(url)
  const lib = base.protocol === 'https:' ? https : http
  const agent = new lib.Agent({ keepAlive: true, maxSockets: connections })
  function request (method, path, body) {
    return new Promise((resolve) => {
      const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body))
      const headers = { accept: 'application/json' }
      if (payload) { headers['content-type'] = 'application/json'; headers['content-length'] = payload.length }
      if (token) headers.authorization = `Bearer ${token}`
      const req = lib.request(new URL(path, base), { method, agent, headers, timeout: REQUEST_TIMEOUT_MS }, (res) => {
        const chunks = []
        res.on('data', c => chunks.push(c))
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8')
          let json = null
          try { json = JSON.parse(text) } catch {}
          resolve({ status: res.statusCode, json, text })
        })
        res.on('error', err => resolve({ status: 0, error: err }))
      })
      req.on('timeout', () => req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)))
      req.on('error', err => resolve({ status: 0, error: err }))
      req.end(payload)
    })
  }
  return { request, close: () => agent.destroy() }
}

/** What an answer means for the events it carried */
export function outcomeOf ({ status, json }) {
  if (status === 200) return 'acked'
  if (status === 503 && json?.outcome === 'not_applied') return 'not_applied'
  if (status >= 400 && status < 500 && status !== 408) return 'rejected'
  return 'unknown' // 504, other 5xx, network error, timeout: may be applied
}

export async function createHttpTarget ({ url, token, concurrency, layout }) {
  const client = createHttpClient({ url, token, connections: concurrency })
  const ready = await client.request('GET', '/readyz')
  if (ready.status !== 200) {
    client.close()
    const why = ready.error ? ready.error.message : `answered ${ready.status} ${ready.text?.slice(0, 200)}`
    throw new Error(`statbucket at ${url} is not ready: GET /readyz ${why}`)
  }
  const info = ready.json ?? {}
  if (layout && info.layout && info.layout !== layout) {
    client.close()
    const err = new Error(`--layout ${layout} does not match the server's BUCKET_LAYOUT (${info.layout}); restart statbucket with BUCKET_LAYOUT=${layout}`)
    err.usage = true
    throw err
  }

  async function seriesSum (metric, from, to, step) {
    const q = `from=${from}&to=${to}&step=${step}`
    const res = await client.request('GET', `/v1/metrics/${encodeURIComponent(metric)}/series?${q}`)
    if (res.status === 404) return 0
    if (res.status !== 200) throw new Error(`GET series of ${metric} answered ${res.status}: ${res.text?.slice(0, 200)}`)
    return res.json.values.reduce((s, v) => s + (v ?? 0), 0)
  }

  return {
    description: `${url} (statbucket HTTP API; server backend ${info.backend ?? '?'}, layout ${info.layout ?? '?'})`,
    layout: info.layout ?? layout ?? 'hierarchical',
    backend: info.backend ?? null,
    async send (events) {
      const res = await client.request('POST', '/v1/events', events.length === 1 ? events[0] : events)
      const outcome = outcomeOf(res)
      return { outcome, status: res.status, message: res.error?.message ?? res.json?.message ?? res.text?.slice(0, 300) }
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
    async close () { client.close() }
  }
}
