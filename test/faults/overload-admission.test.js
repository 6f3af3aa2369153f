// Admission before work, against a real statbucket process: 300 clients
// post 2 MB bodies (9,000 events each) as fast as they are answered for
// 8 s while another client asks /healthz every 20 ms. Writes the service
// cannot take are refused with 503 + Retry-After before their bodies are
// parsed (the server's own counts: most 503s given before reading, the rest
// by the writer), so /healthz keeps answering 200; no write waits out the
// writer's bound (no 504, no client left without an answer), and what was
// acknowledged is stored. The latencies are printed, not asserted.
import { spawn } from 'node:child_process'
import http from 'node:http'
import { describe, expect, it } from 'vitest'
import { onCleanup, request, sleep, startStatbucket, storedTotals, uniqueDb, useDatabase } from './harness.js'

const WRITE_TIMEOUT_MS = 10_000 // the default
const CLIENTS = 300
const db = useDatabase({ heap: '768m' })

// One load process: CLIENTS keep-alive clients posting a 2 MB body (9,000 events of five
// 180-character names) until the deadline, each waiting Retry-After after a 503 as the
// contract asks; prints every answer { status, ms } as JSON.
const LOAD_SCRIPT = `
import http from 'node:http'
const [port, clients, durationMs] = process.argv.slice(1).map(Number)
const names = Array.from({ length: 5 }, (_, i) => 'ov.m' + i + '.' + 'x'.repeat(180))
const body = Buffer.from(JSON.stringify(Array.from({ length: 9000 }, (_, i) => ({ metric: names[i % 5], value: 1 }))))
if (body.length < 1.7 * 1048576 || body.length > 2 * 1048576) throw new Error('body of ' + body.length + ' bytes')
const agent = new http.Agent({ keepAlive: true, maxSockets: clients })
const deadline = Date.now() + durationMs
const answers = []
const post = () => new Promise(resolve => {
  const started = performance.now()
  const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/v1/events', agent, headers: { 'content-type': 'application/json', 'content-length': body.length } }, res => {
    res.resume()
    res.on('end', () => resolve({ status: res.statusCode, retryAfter: res.headers['retry-after'], ms: performance.now() - started }))
  })
  req.on('error', err => resolve({ error: err.code, ms: performance.now() - started }))
  req.end(body)
})
await Promise.all(Array.from({ length: clients }, async () => {
  while (Date.now() < deadline) {
    const res = await post()
    answers.push(res)
    if (res.status === 503) await new Promise(resolve => setTimeout(resolve, 1000 * Number(res.retryAfter ?? 1)))
  }
}))
agent.destroy()
process.stdout.write(JSON.stringify(answers))
`

function percentile (values, p) {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]
}

describe('overload before admission', () => {
  it('300 clients of 2 MB bodies: refused before their bodies are read, /healthz answered, no write past the writer\'s bound, acknowledged ≤ stored', async () => {
    const dbName = uniqueDb('admission')
    const sb = await startStatbucket({ MONGODB_URI: db.uri, MONGODB_DB: dbName, WRITE_TIMEOUT_MS: String(WRITE_TIMEOUT_MS) })
    onCleanup(() => sb.stop())
    // the load from two processes of their own (150 clients each), so that this one only asks /healthz
    const loaders = [0, 1].map(() => spawn(process.execPath, ['--input-type=module', '-e', LOAD_SCRIPT, String(sb.port), String(CLIENTS / 2), '8000'], { stdio: ['ignore', 'pipe', 'inherit'] }))
    onCleanup(async () => { for (const l of loaders) l.kill('SIGKILL') })
    const loadResults = loaders.map(l => new Promise(resolve => {
      let out = ''
      l.stdout.on('data', d => { out += d })
      l.on('exit', () => resolve(JSON.parse(out)))
    }))
    const healthAgent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    onCleanup(async () => healthAgent.destroy())
    const deadline = Date.now() + 8000
    const health = []
    while (Date.now() < deadline) {
      const started = performance.now()
      const status = await new Promise(resolve => {
        http.get({ host: '127.0.0.1', port: sb.port, path: '/healthz', agent: healthAgent }, res => { res.resume(); res.on('end', () => resolve(res.statusCode)) })
          .on('error', err => resolve(err.code))
      })
      health.push({ status, ms: performance.now() - started })
      await sleep(20)
    }
    const answers = (await Promise.all(loadResults)).flat()
    const acked = answers.filter(a => a.status === 200).length * 9000

    const statuses = {}
    for (const a of answers) statuses[a.status ?? a.error] = (statuses[a.status ?? a.error] ?? 0) + 1
    const healthP99 = percentile(health.map(h => h.ms), 99)
    const slowest = Math.max(...answers.map(a => a.ms))
    const slowestOf = status => Math.round(Math.max(0, ...answers.filter(a => a.status === status).map(a => a.ms)))
    console.log(`slowest 200 ${slowestOf(200)} ms, slowest 503 ${slowestOf(503)} ms; p99 200 ${Math.round(percentile(answers.filter(a => a.status === 200).map(a => a.ms), 99))} ms, p99 503 ${Math.round(percentile(answers.filter(a => a.status === 503).map(a => a.ms), 99))}`)
    console.log(`overload admission: ${answers.length} writes ${JSON.stringify(statuses)}; /healthz ${health.length} asks, p50 ${percentile(health.map(h => h.ms), 50).toFixed(1)} ms, p99 ${healthP99.toFixed(1)} ms, max ${Math.max(...health.map(h => h.ms)).toFixed(1)} ms; slowest write answer ${Math.round(slowest)} ms; acknowledged ${acked} events`)
    expect(health.every(h => h.status === 200)).toBe(true)
    expect(health.length).toBeGreaterThan(0)
    // no answer came from the writer's WRITE_TIMEOUT_MS (504) or never (every loader's request was answered)
    for (const status of Object.keys(statuses)) expect(['200', '503']).toContain(status)
    // the server's own books: every 503 is a write refused before its body was read, or one the writer
    // refused once parsed (admitted while it had room); most of them before reading
    const served = (await request(sb.port, { path: '/metrics' })).body
    const sum = re => [...served.matchAll(re)].reduce((n, m) => n + Number(m[1]), 0)
    const beforeReading = sum(/^statbucket_writes_refused_before_reading_total\{[^}]*\} (\d+)$/gm)
    const afterReading = sum(/^statbucket_writer_answers_total\{outcome="not_applied"\} (\d+)$/gm)
    console.log(`503s: ${beforeReading} before reading, ${afterReading} by the writer once read`)
    expect(beforeReading + afterReading).toBe(statuses[503])
    expect(beforeReading).toBeGreaterThan(afterReading)
    expect(answers.filter(a => a.status === 503).every(a => a.retryAfter === '1')).toBe(true)
    expect(statuses[200]).toBeGreaterThan(0)
    expect(statuses[503]).toBeGreaterThan(0)

    await sb.stop({ signal: 'SIGTERM' })
    const stored = await storedTotals(db.uri, dbName)
    const storedEvents = Object.values(stored.daily).reduce((a, b) => a + b, 0)
    expect(storedEvents).toBeGreaterThanOrEqual(acked)
  }, 120_000)
})
