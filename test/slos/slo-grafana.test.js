// Grafana's Infinity data source on the SLO reports (docs/slos.md#grafana):
// each query of the page's table sent as Infinity's backend sends it
// (grafana-infinity-datasource pkg/infinity/request.go and headers.go: GET,
// Accept "application/json;q=0.9,text/plain", Accept-Encoding gzip, the
// Bearer token, Go's User-Agent, the query string re-encoded), over HTTP;
// its root selector and columns (GJSON paths) read from the answer, every
// column present in every row with its type (null, as the report says, an
// empty cell).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { gunzipSync } from 'node:zlib'
import { manualClock } from '../../src/clock.js'
import { testApp } from '../helpers/test-app.js'

const NOW = Date.UTC(2026, 10, 28, 12, 0, 30)
const TOKEN = 'g'.repeat(24)
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'slo-grafana-'))
const page = fs.readFileSync(new URL('../../docs/slos.md', import.meta.url), 'utf8')

/** The page's Grafana table → [{ query, url, root, columns: [{ selector, time }] }] */
function documentedQueries () {
  const section = page.slice(page.indexOf('## Grafana'))
  const rows = section.split('\n').filter(l => l.startsWith('| ') && !l.startsWith('| query') && !l.startsWith('|---'))
  return rows.map(row => {
    const [query, url, root, columns] = row.split('|').slice(1, -1).map(c => c.trim())
    return {
      query,
      url: url.replaceAll('`', '').replace('NAME', 'availability'),
      root: root.replaceAll('`', ''),
      columns: columns.split(/,\s*(?![^(]*\))/).map(c => ({ selector: /^`([^`]+)`/.exec(c)[1], time: /\(time, format `2006-01-02`\)/.test(c) }))
    }
  })
}

/** A GJSON path of plain keys (all the page uses): `a.b` */
const gjson = (value, selector) => selector.split('.').reduce((v, key) => (v === null || v === undefined ? undefined : v[key]), value)

/** Infinity's GET: the headers its backend sets, in its order, and Go's User-Agent */
function infinityGet (port, url) {
  const u = new URL(url, `http://127.0.0.1:${port}`)
  u.search = new URLSearchParams([...u.searchParams].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))).toString() // Go's url.Values.Encode sorts
  return new Promise((resolve, reject) => {
    const req = http.request(u, {
      method: 'GET',
      headers: { 'User-Agent': 'Go-http-client/1.1', Accept: 'application/json;q=0.9,text/plain', 'Accept-Encoding': 'gzip', Authorization: `Bearer ${TOKEN}` }
    }, res => {
      const chunks = []
      res.on('data', c => chunks.push(c))
      res.on('end', () => {
        const raw = Buffer.concat(chunks)
        resolve({ status: res.statusCode, headers: res.headers, text: (res.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8') })
      })
    })
    req.on('error', reject)
    req.end()
  })
}

let app
beforeAll(async () => {
  fs.writeFileSync(path.join(dir, 'slos.yaml'), JSON.stringify({
    apiVersion: 'openslo/v1',
    kind: 'SLO',
    metadata: { name: 'availability' },
    spec: {
      indicator: { spec: { ratioMetric: { good: { metricSource: { type: 'statbucket', spec: { metric: 'web.requests', tags: ['status!=~5..'] } } }, total: { metricSource: { type: 'statbucket', spec: { metric: 'web.requests' } } } } } },
      timeWindow: [{ duration: '1M', calendar: { timeZone: 'Europe/Berlin' } }],
      budgetingMethod: 'Occurrences',
      objectives: [{ target: 0.999 }]
    }
  }))
  app = await testApp('slo_grafana', { clock: manualClock(NOW), env: { SLO_FILE: path.join(dir, 'slos.yaml'), READ_TOKENS: TOKEN }, sloReloadOnHangup: false })
  const events = ['200', '200', '503'].flatMap((status, i) => [NOW - 60_000 * (i + 1), NOW - 86_400_000 * 3].map(ts => ({ metric: 'web.requests', tags: { status }, ts })))
  expect((await app.inject({ method: 'POST', url: '/v1/events', payload: events })).json()).toEqual({ accepted: events.length })
  await app.listen({ port: 0, host: '127.0.0.1' })
})
afterAll(async () => {
  await app?.close()
  fs.rmSync(dir, { recursive: true, force: true })
})

describe('the page\'s Infinity queries', () => {
  it('the table holds the three queries', () => {
    expect(documentedQueries().map(q => q.query)).toEqual(['the SLOs', 'a period\'s days', 'the burn rates'])
  })

  it.each(documentedQueries().map(q => [q.query, q]))('%s: 200 JSON, every column in every row', async (name, { url, root, columns }) => {
    const res = await infinityGet(app.server.address().port, url)
    expect(res.status, res.text).toBe(200)
    expect(res.headers['content-type']).toMatch(/^application\/json/)
    const body = JSON.parse(res.text)
    const selected = root === '' ? body : gjson(body, root)
    const rows = Array.isArray(selected) ? selected : [selected]
    expect(rows.length).toBeGreaterThan(0)
    for (const row of rows) {
      for (const { selector, time } of columns) {
        const value = gjson(row, selector)
        if (time) expect(value, selector).toMatch(/^\d{4}-\d{2}-\d{2}$/) // Go's layout 2006-01-02
        else expect(['string', 'number', 'null'], `${selector} in ${JSON.stringify(row)}`).toContain(value === null ? 'null' : typeof value) // null: an empty cell
      }
    }
  })

  it('without the token Infinity is configured with: 401, which Infinity shows as the error', async () => {
    const res = await new Promise((resolve, reject) => {
      http.get(`http://127.0.0.1:${app.server.address().port}/v1/slos`, { headers: { Accept: 'application/json;q=0.9,text/plain' } }, r => { r.resume(); r.on('end', () => resolve(r.statusCode)) }).on('error', reject)
    })
    expect(res).toBe(401)
  })
})
