// Hostile StatsD against the running service, over TCP and POST /v1/statsd:
// packets mixing known metrics' counters (plain, sampled, packed, tagged)
// with every kind of line that must be dropped — gauges of new names (the
// registry is full), gauge levels and deltas out of range, a gauge on a
// counter's name, sets, unknown
// types, NaN, ±Infinity, 1e400, timer values out of range or negative, bad
// sample rates (0, negative, a weight 1/rate past 1e15), prototype names, names too
// long, control characters, 10,000-character lines — and new names while
// the registry is full. Never a 5xx; the work bounded as the doors count it:
// every line parsed once at most, no character parsed that was not sent, a
// request with a line that cannot be kept refused whole (400) and the
// registry's limit met (registry_full); the stored totals equal an
// independent model of what must be kept (a known metric's values are never
// lost to a bad line or a new name beside them). How long it takes is the
// fuzzer's figure (scripts/fuzz.js), not a test's.
import fc from 'fast-check'
import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { statsdApp, until } from './helpers.js'

// every line a door parses, counted by door (POST /v1/statsd's body, or a listener's pipeline): the calls of parseLine and the characters handed to it
const parsing = vi.hoisted(() => ({ http: { lines: 0, chars: 0 }, pipeline: { lines: 0, chars: 0 } }))
vi.mock('../../src/statsd/line-parser.js', async (importOriginal) => {
  const real = await importOriginal()
  return {
    ...real,
    parseLine (line, ...rest) {
      const door = /statsd\/http-lines\.js/.test(new Error().stack) ? parsing.http : parsing.pipeline
      door.lines++
      door.chars += line.length
      return real.parseLine(line, ...rest)
    }
  }
})

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
  fc.tuple(known, fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 100 })).map(([m, a, b]) => ({ text: `${m}:${a}|c:${b}|c`, adds: [[m, a + b]] }))
)
const droppedLine = fc.oneof(
  fc.constantFrom('queue.depth:3|g', 'queue.depth:+3|g', 'users:u1|s', 'x:1|zz', 'x:NaN|c', 'x:Infinity|c', 'x:-Infinity|c', 'x:1e400|c',
    'x:1|c|@0', 'x:1|c|@-1', 'x:1|c|@NaN', ':1|c', '__proto__:1|c', 'constructor:1|zz', 'toString:1|g', 'x', 'x:|c', 'x:1|',
    'x:1e16|c', '\u0000:1|c', 'é:1|c', '-bad:1|c', 'new.fresh:1|c', 'brand.new.one:7|c',
    // timer, histogram and distribution values that cannot be kept
    'x:NaN|ms', 'x:Infinity|ms', 'x:-Infinity|d', 'x:1e308|ms', 'x:1e400|h', 'known.k0:-1|ms', 'x:1|ms|@0', 'x:1|ms|@-1',
    'x:1|ms|@1e-300', 'x:1|ms|@5e-324', 'x:1|h|@NaN', '-bad:1|ms', `${'t'.repeat(201)}:1|ms`,
    // gauges that cannot be kept: out of range, a bad rate, on a counter's name
    'x:NaN|g', 'x:+1e16|g', 'x:-Infinity|g', 'x:1e308|g', 'x:1|g|@x', 'known.k0:5|g', 'known.k1:+5|g', 'known.k2:-1|g',
    // tags that break the rules (prototype keys, ; = ~ in values, twice a key, 17 tags, a value too long), and a new
    // series of a known name while the registry is full: neither the series nor the name gets the value
    'known.k0:1|c|#env:prod,__proto__:x', 'known.k1:1|c|#constructor:x', 'known.k1;k=a;k=b:1|c', 'known.k2:1|c|#k:a=b', 'known.k2:1|c|#k:~a',
    `known.k3:1|c|#${Array.from({ length: 17 }, (_, i) => `t${i}:v`).join(',')}`, `known.k3:1|c|#k:${'v'.repeat(129)}`, 'known.k4:1|c|#env:prod',
    'known.k4;env=prod:2|c'),
  fc.integer({ min: 201, max: 10_000 }).map(n => `${'n'.repeat(n)}:1|c`),
  fc.string({ maxLength: 40 }).filter(t => t.trim() !== '' && !t.includes('\n') && !/^known\./.test(t) && !/:/.test(t))
).map(text => ({ text, adds: null }))
const packet = fc.array(fc.oneof({ weight: 2, arbitrary: keptLine }, { weight: 1, arbitrary: droppedLine }), { minLength: 1, maxLength: 40 })

describe('hostile StatsD lines', () => {
  it('over TCP and HTTP: never a 5xx, every line parsed once at most, the registry\'s limit met, and the totals of the model', async () => {
    const model = Object.fromEntries(KNOWN.map(m => [m, 0]))
    let tcpValues = 0
    const tcpSent = { lines: 0, chars: 0 }
    const tcpParsedBefore = { ...parsing.pipeline }
    const socket = net.connect(s.app.statsd.port, '127.0.0.1')
    await new Promise((resolve, reject) => { socket.once('connect', resolve); socket.once('error', reject) })
    await fc.assert(fc.asyncProperty(packet, async (lines) => {
      const text = lines.map(l => l.text).join('\n')
      // TCP: every kept line counts, whatever stands beside it
      socket.write(text + '\n')
      for (const { adds } of lines) if (adds) for (const [m, v] of adds) { model[m] += v }
      tcpValues += lines.length
      tcpSent.lines += lines.length + 1 // and the empty line after the last newline
      tcpSent.chars += text.length
      // HTTP: a request with a line that cannot be kept is refused whole (400), and changes nothing
      const httpParsedBefore = { ...parsing.http }
      const res = await s.app.inject({ method: 'POST', url: '/v1/statsd', payload: text, headers: { 'content-type': 'text/plain' } })
      // its work: each line parsed once at most (every one of a body kept whole), no character that was not sent
      const allKept = lines.every(l => l.adds)
      const httpParsed = { lines: parsing.http.lines - httpParsedBefore.lines, chars: parsing.http.chars - httpParsedBefore.chars }
      expect(httpParsed.lines, 'lines of the body parsed').toBeLessThanOrEqual(lines.length)
      expect(httpParsed.chars, 'characters of the body parsed').toBeLessThanOrEqual(text.length)
      if (allKept) expect(httpParsed).toEqual({ lines: lines.length, chars: text.length - (lines.length - 1) })
      expect(res.statusCode, res.body.slice(0, 300)).toBeLessThan(500)
      expect(res.statusCode, `${JSON.stringify(text).slice(0, 300)}\n${res.body.slice(0, 300)}`).toBe(allKept ? 200 : 400)
      if (res.statusCode === 200) for (const { adds } of lines) for (const [m, v] of adds) { model[m] += v }
    }), { numRuns: 200 })
    // the server closes its side once it has read everything (then the pipeline holds every line)
    await new Promise(resolve => { socket.once('close', resolve); socket.end() })
    await until(() => s.seen.received.tcp > 0, 'the TCP lines read')
    // the listener's work is linear in what was sent: no line parsed twice, no character parsed that was not sent
    const tcpParsed = { lines: parsing.pipeline.lines - tcpParsedBefore.lines, chars: parsing.pipeline.chars - tcpParsedBefore.chars }
    expect(tcpParsed.lines, JSON.stringify({ tcpParsed, tcpSent })).toBeGreaterThan(0)
    expect(tcpParsed.lines, JSON.stringify({ tcpParsed, tcpSent })).toBeLessThanOrEqual(tcpSent.lines)
    expect(tcpParsed.chars, JSON.stringify({ tcpParsed, tcpSent })).toBeLessThanOrEqual(tcpSent.chars)
    // the registry's limit was met (new names while it is full), and held
    expect(s.seen.dropped.registry_full ?? 0, JSON.stringify(s.seen.dropped)).toBeGreaterThan(0)
    const totals = await s.closeAndReadTotals()
    for (const m of KNOWN) expect(totals[m] ?? 0, m).toBe(model[m])
    expect(Object.keys(totals).sort()).toEqual([...KNOWN].sort()) // no new name got in
    expect(s.distributions).toEqual({}) // no hostile timer value either
    expect(tcpValues).toBeGreaterThan(0)
  }, 120_000)
})
