// Hostile StatsD against the running service, over TCP and POST /v1/statsd:
// packets mixing known metrics' counters (plain, sampled, packed, tagged)
// with every kind of line that must be dropped — gauges of new names (the
// registry is full), gauge levels and deltas out of range, a gauge on a
// counter's name, sets, unknown
// types, NaN, ±Infinity, 1e400, timer values out of range or negative, bad
// sample rates (0, negative, a weight 1/rate past 1e15), prototype names, names too
// long, control characters, 10,000-character lines — and new names while
// the registry is full. Never a 5xx, never an answer slower than 1 s,
// event-loop delay p99 ≤ 50 ms; the stored totals equal an independent
// model of what must be kept (a known metric's values are never lost to a
// bad line or a new name beside them).
import fc from 'fast-check'
import net from 'node:net'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { statsdApp, until } from './helpers.js'

const KNOWN = Array.from({ length: 5 }, (_, i) => `known.k${i}`)
let s

beforeAll(async () => {
  s = await statsdApp('statsd_hostile', { MAX_METRICS: String(KNOWN.length) })
  const res = await s.app.inject({ method: 'POST', url: '/v1/events', payload: KNOWN.map(metric => ({ metric, value: 0 })) })
  expect(res.statusCode).toBe(200)
})
afterAll(async () => { await s?.app.close().catch(() => {}) })

// each line with what it adds to which known metric (null: it must be dropped)
const known = fc.constantFrom(...KNOWN)
const keptLine = fc.oneof(
  fc.tuple(known, fc.integer({ min: -1000, max: 1000 })).map(([m, v]) => ({ text: `${m}:${v}|c`, adds: [[m, v]] })),
  fc.tuple(known, fc.integer({ min: 0, max: 1000 })).map(([m, v]) => ({ text: `${m}:${v}|c|@0.5`, adds: [[m, v * 2]] })),
  fc.tuple(known, fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 100 })).map(([m, a, b]) => ({ text: `${m}:${a}|c:${b}|c`, adds: [[m, a + b]] })),
  fc.tuple(known, fc.integer({ min: 0, max: 100 })).map(([m, v]) => ({ text: `${m}:${v}|c|#env:prod,__proto__:x`, adds: [[m, v]] }))
)
const droppedLine = fc.oneof(
  fc.constantFrom('queue.depth:3|g', 'queue.depth:+3|g', 'users:u1|s', 'x:1|zz', 'x:NaN|c', 'x:Infinity|c', 'x:-Infinity|c', 'x:1e400|c',
    'x:1|c|@0', 'x:1|c|@-1', 'x:1|c|@NaN', ':1|c', '__proto__:1|c', 'constructor:1|zz', 'toString:1|g', 'x', 'x:|c', 'x:1|',
    'x:1e16|c', '\u0000:1|c', 'é:1|c', '-bad:1|c', 'new.fresh:1|c', 'brand.new.one:7|c',
    // timer, histogram and distribution values that cannot be kept
    'x:NaN|ms', 'x:Infinity|ms', 'x:-Infinity|d', 'x:1e308|ms', 'x:1e400|h', 'known.k0:-1|ms', 'x:1|ms|@0', 'x:1|ms|@-1',
    'x:1|ms|@1e-300', 'x:1|ms|@5e-324', 'x:1|h|@NaN', '-bad:1|ms', `${'t'.repeat(201)}:1|ms`,
    // gauges that cannot be kept: out of range, a bad rate, on a counter's name
    'x:NaN|g', 'x:+1e16|g', 'x:-Infinity|g', 'x:1e308|g', 'x:1|g|@x', 'known.k0:5|g', 'known.k1:+5|g', 'known.k2:-1|g'),
  fc.integer({ min: 201, max: 10_000 }).map(n => `${'n'.repeat(n)}:1|c`),
  fc.string({ maxLength: 40 }).filter(t => t.trim() !== '' && !t.includes('\n') && !/^known\./.test(t) && !/:/.test(t))
).map(text => ({ text, adds: null }))
const packet = fc.array(fc.oneof({ weight: 2, arbitrary: keptLine }, { weight: 1, arbitrary: droppedLine }), { minLength: 1, maxLength: 40 })

describe('hostile StatsD lines', () => {
  it('over TCP and HTTP: never a 5xx, never 1 s, p99 event-loop delay ≤ 50 ms, and the totals of the model', async () => {
    const model = Object.fromEntries(KNOWN.map(m => [m, 0]))
    let tcpValues = 0
    const socket = net.connect(s.app.statsd.port, '127.0.0.1')
    await new Promise((resolve, reject) => { socket.once('connect', resolve); socket.once('error', reject) })
    const h = monitorEventLoopDelay({ resolution: 5 })
    h.enable()
    const slow = []
    await fc.assert(fc.asyncProperty(packet, async (lines) => {
      const text = lines.map(l => l.text).join('\n')
      // TCP: every kept line counts, whatever stands beside it
      socket.write(text + '\n')
      for (const { adds } of lines) if (adds) for (const [m, v] of adds) { model[m] += v }
      tcpValues += lines.length
      // HTTP: a request with a line that cannot be kept is refused whole (400), and changes nothing
      const started = performance.now()
      const res = await s.app.inject({ method: 'POST', url: '/v1/statsd', payload: text, headers: { 'content-type': 'text/plain' } })
      const ms = performance.now() - started
      if (ms > 1000) slow.push(`${Math.round(ms)} ms`)
      expect(res.statusCode, res.body.slice(0, 300)).toBeLessThan(500)
      const allKept = lines.every(l => l.adds)
      expect(res.statusCode, `${JSON.stringify(text).slice(0, 300)}\n${res.body.slice(0, 300)}`).toBe(allKept ? 200 : 400)
      if (res.statusCode === 200) for (const { adds } of lines) for (const [m, v] of adds) { model[m] += v }
    }), { numRuns: 200 })
    // the server closes its side once it has read everything (then the pipeline holds every line)
    await new Promise(resolve => { socket.once('close', resolve); socket.end() })
    h.disable()
    expect(slow).toEqual([])
    expect(h.percentile(99) / 1e6).toBeLessThanOrEqual(50)
    await until(() => s.seen.received.tcp > 0, 'the TCP lines read')
    const totals = await s.closeAndReadTotals()
    for (const m of KNOWN) expect(totals[m] ?? 0, m).toBe(model[m])
    expect(Object.keys(totals).sort()).toEqual([...KNOWN].sort()) // no new name got in
    expect(s.distributions).toEqual({}) // no hostile timer value either
    expect(tcpValues).toBeGreaterThan(0)
  }, 120_000)
})
