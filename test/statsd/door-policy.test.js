// One policy for every door, on the StatsD door: a loopback listener
// whatever HOST is, no open listener under WRITE_TOKENS unless the operator
// says so, per-name admission when the registry is full (a known metric's
// values never go with a new name's), one warn line per drop reason per
// minute, and a TCP connection cap and idle timeout, counted.
import dgram from 'node:dgram'
import net from 'node:net'
import { Writable } from 'node:stream'
import { afterEach, describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../src/config.js'
import { manualClock } from '../../src/clock.js'
import { createDropLog } from '../../src/statsd/drop-log.js'
import { statsdApp, until } from './helpers.js'
import { testApp } from '../helpers/test-app.js'

const open = []
afterEach(async () => { while (open.length) await open.pop()() })

/** Writes lines over one TCP connection and closes it; resolves once the server has them */
function sendTcp (port, text) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.end(text))
    socket.on('close', resolve)
    socket.on('error', reject)
  })
}

describe('where the StatsD listener listens', () => {
  it('on 127.0.0.1 whatever HOST is', () => {
    expect(loadConfig({ HOST: '0.0.0.0', STATSD_PORT: '8125' }).statsdHost).toBe('127.0.0.1')
    expect(loadConfig({ HOST: '0.0.0.0', STATSD_PORT: '8125', STATSD_HOST: '0.0.0.0' }).statsdHost).toBe('0.0.0.0')
  })

  it('not on another address under WRITE_TOKENS unless STATSD_UNAUTHENTICATED=allow, in one line naming both', () => {
    const env = { STATSD_PORT: '8125', STATSD_HOST: '0.0.0.0', WRITE_TOKENS: 'w'.repeat(16) }
    expect(() => loadConfig(env)).toThrow(ConfigError)
    expect(() => loadConfig(env)).toThrow(/^STATSD_UNAUTHENTICATED: WRITE_TOKENS is set but StatsD would listen on 0\.0\.0\.0:8125 \(STATSD_HOST, STATSD_PORT\), where anyone who reaches it writes without a token: bind it to 127\.0\.0\.1, set STATSD_PORT=0 to turn it off, or set STATSD_UNAUTHENTICATED=allow to accept that$/)
    expect(loadConfig({ ...env, STATSD_UNAUTHENTICATED: 'allow' }).statsdHost).toBe('0.0.0.0')
    for (const host of ['127.0.0.1', '::1', 'localhost', '127.0.0.2']) expect(loadConfig({ ...env, STATSD_HOST: host }).statsdHost).toBe(host)
    expect(loadConfig({ STATSD_HOST: '0.0.0.0', WRITE_TOKENS: 'w'.repeat(16), STATSD_PORT: '0' }).statsdPort).toBe(null) // no listener, nothing to refuse
    expect(() => loadConfig({ ...env, STATSD_UNAUTHENTICATED: 'yes' })).toThrow(/STATSD_UNAUTHENTICATED: must be one of refuse, allow/)
  })
})

describe('a full registry over StatsD', () => {
  it('drops only the lines of new names: a known metric\'s values in the same stream are kept', async () => {
    const s = await statsdApp('statsd_full', { MAX_METRICS: '2', STATSD_REGISTRY_SHARE: '100' })
    open.push(() => s.app.close().catch(() => {}))
    await sendTcp(s.app.statsd.port, 'known.a:1|c\nknown.b:1|c\n')
    await until(() => s.seen.received.tcp === 2, 'the first two values')
    await until(async () => (await s.app.inject({ url: '/v1/metrics' })).json().metrics.length === 2, 'two metrics registered')
    // the registry is full now: 100 values of a known metric and one line of a new name, in one batch
    await sendTcp(s.app.statsd.port, Array.from({ length: 100 }, () => 'known.a:1|c').join('\n') + '\nbrand.new:5|c\n')
    const totals = await s.closeAndReadTotals()
    expect(totals).toEqual({ 'known.a': 101, 'known.b': 1 })
    expect(s.seen.dropped).toEqual({ registry_full: 1 })
  })

  it('admits as many new names as it has free places, from a burst of more', async () => {
    const s = await statsdApp('statsd_burst', { MAX_METRICS: '500', STATSD_REGISTRY_SHARE: '100' })
    open.push(() => s.app.close().catch(() => {}))
    await sendTcp(s.app.statsd.port, Array.from({ length: 10 }, (_, i) => `old.m${i}:1|c`).join('\n') + '\n')
    await until(async () => (await s.app.inject({ url: '/v1/metrics' })).json().metrics.length === 10, 'ten metrics registered')
    await sendTcp(s.app.statsd.port, Array.from({ length: 1500 }, (_, i) => `burst.m${i}:1|c`).join('\n') + '\n')
    const totals = await s.closeAndReadTotals()
    const burst = Object.keys(totals).filter(name => name.startsWith('burst.'))
    expect(burst).toHaveLength(490)
    expect(s.seen.dropped).toEqual({ registry_full: 1010 })
  })
})

describe('one StatsD sender cannot take the registry', () => {
  it('the StatsD doors fill STATSD_REGISTRY_SHARE of MAX_METRICS; the rest stays for POST /v1/events', async () => {
    const s = await statsdApp('statsd_share', { MAX_METRICS: '100', STATSD_REGISTRY_SHARE: '50' })
    open.push(() => s.app.close().catch(() => {}))
    await sendTcp(s.app.statsd.port, Array.from({ length: 80 }, (_, i) => `sd.m${i}:1|c`).join('\n') + '\n')
    await until(() => s.seen.dropped.registry_full === 30, '30 new names turned away')
    const posted = await s.app.inject({ method: 'POST', url: '/v1/events', payload: Array.from({ length: 50 }, (_, i) => ({ metric: `http.m${i}` })) })
    expect(posted.json()).toEqual({ accepted: 50 })
    const over = await s.app.inject({ method: 'POST', url: '/v1/statsd', payload: 'sd.late:1|c', headers: { 'content-type': 'text/plain' } })
    expect(over.statusCode).toBe(400)
    expect(over.json().message).toMatch(/STATSD_REGISTRY_SHARE/)
    const totals = await s.closeAndReadTotals()
    expect(Object.keys(totals).filter(n => n.startsWith('sd.'))).toHaveLength(50)
    expect(Object.keys(totals).filter(n => n.startsWith('http.'))).toHaveLength(50)
  })

  it('the StatsD doors admit STATSD_NEW_METRICS_PER_MINUTE new names and series a minute; the next minute, more', async () => {
    const clock = manualClock(Date.UTC(2026, 10, 21, 12, 0, 0))
    const app = await testApp('statsd_rate', { clock, statsd: true, env: { STATSD_NEW_METRICS_PER_MINUTE: '20', STATSD_FLUSH_INTERVAL_MS: '20', PREALLOC_PROBABILITY: '0' } })
    open.push(() => app.close().catch(() => {}))
    const metric = async (name) => (await app.inject('/metrics')).body.match(new RegExp(`^statbucket_statsd_dropped_total\\{reason="${name}"\\} (\\d+)$`, 'm'))?.[1]
    await sendTcp(app.statsd.port, Array.from({ length: 50 }, (_, i) => `r.m${i}:1|c|#k:v`).join('\n') + '\n')
    // each line is a new series and a new name: 20 entries a minute are 10 lines
    await until(async () => (await metric('new_metrics_rate')) === '40', '40 lines turned away by the rate')
    expect((await app.inject('/v1/metrics?prefix=r.m')).json().metrics).toHaveLength(20)
    // a known name's new series needs one place; HTTP has no rate
    expect((await app.inject({ method: 'POST', url: '/v1/events', payload: { metric: 'r.http', tags: { k: 'v' } } })).json()).toEqual({ accepted: 1 })
    const refused = await app.inject({ method: 'POST', url: '/v1/statsd', payload: 'r.late:1|c', headers: { 'content-type': 'text/plain' } })
    expect(refused.json().message).toMatch(/STATSD_NEW_METRICS_PER_MINUTE = 20/)
    clock.advance(60_000)
    await sendTcp(app.statsd.port, Array.from({ length: 5 }, (_, i) => `r.n${i}:1|c`).join('\n') + '\n')
    await until(async () => (await app.inject('/v1/metrics?prefix=r.n')).json().metrics.length === 5, 'five more the next minute')
  })
})

describe('the StatsD doors\' places a minute', () => {
  it('a new name whose values were turned away gives its minute\'s place back: the next new name takes it', async () => {
    const clock = manualClock(Date.UTC(2026, 10, 21, 12, 0, 0))
    const app = await testApp('statsd_rate_back', { clock, statsd: true, env: { STATSD_NEW_METRICS_PER_MINUTE: '6', STATSD_FLUSH_INTERVAL_MS: '20', PREALLOC_PROBABILITY: '0' } })
    open.push(() => app.close().catch(() => {}))
    const dropped = async () => (await app.inject('/metrics')).body.match(/^statbucket_statsd_dropped_total\{reason="new_metrics_rate"\} (\d+)$/m)?.[1]
    // 5 new names, then a new name with a new series: 2 places for 1 left, so the name is admitted, its series
    // is not, and the series goes with its name (nothing of w.y is written): its place is given back
    await sendTcp(app.statsd.port, [...Array.from({ length: 5 }, (_, i) => `w.x${i}:1|c`), 'w.y:1|c|#k:1'].join('\n') + '\n')
    await until(async () => (await dropped()) === '1', 'w.y;k=1 turned away by the rate')
    expect((await app.inject('/v1/metrics?prefix=w.')).json().metrics.map(m => m.name ?? m).sort()).toEqual(['w.x0', 'w.x1', 'w.x2', 'w.x3', 'w.x4'])
    await sendTcp(app.statsd.port, 'w.z:1|c\n')
    await until(async () => (await app.inject('/v1/metrics?prefix=w.z')).json().metrics.length === 1, 'w.z written with the place w.y gave back', 10_000)
    expect(await dropped()).toBe('1')
    // the minute's 6 places are now taken: the next new name waits for the next minute
    await sendTcp(app.statsd.port, 'w.late:1|c\n')
    await until(async () => (await dropped()) === '2', 'w.late turned away by the rate')
  })
})

describe('the TCP listener\'s limits', () => {
  it('closes connections over STATSD_TCP_MAX_CONNECTIONS at once and counts them; HTTP keeps answering', async () => {
    const s = await statsdApp('statsd_cap', { STATSD_TCP_MAX_CONNECTIONS: '5' })
    open.push(() => s.app.close().catch(() => {}))
    const sockets = []
    const closedByServer = []
    open.push(async () => { for (const c of sockets) c.destroy() })
    for (let i = 0; i < 8; i++) {
      const socket = net.connect(s.app.statsd.port, '127.0.0.1')
      socket.on('error', () => {})
      socket.on('close', () => closedByServer.push(i))
      sockets.push(socket)
      await new Promise(resolve => socket.once('connect', resolve))
    }
    await until(() => closedByServer.length === 3, 'three connections closed by the server')
    expect(closedByServer).toEqual([5, 6, 7])
    expect((await s.app.inject({ method: 'POST', url: '/v1/events', payload: { metric: 'http.ok' } })).statusCode).toBe(200)
    const metrics = (await s.app.inject({ url: '/metrics' })).body
    expect(metrics).toContain('statbucket_statsd_tcp_connections_closed_total{reason="connection_cap"} 3')
  })

  it('closes a connection idle for STATSD_TCP_IDLE_TIMEOUT_MS, and counts it', async () => {
    const s = await statsdApp('statsd_idle', { STATSD_TCP_IDLE_TIMEOUT_MS: '1000' })
    open.push(() => s.app.close().catch(() => {}))
    const socket = net.connect(s.app.statsd.port, '127.0.0.1')
    socket.on('error', () => {})
    open.push(async () => socket.destroy())
    let closed = false
    socket.on('close', () => { closed = true })
    await new Promise(resolve => socket.once('connect', resolve))
    socket.write('idle.before:2|c\n')
    await until(() => closed, 'the idle connection closed by the server', 10_000)
    const metrics = (await s.app.inject({ url: '/metrics' })).body
    expect(metrics).toContain('statbucket_statsd_tcp_connections_closed_total{reason="idle_timeout"} 1')
    expect((await s.closeAndReadTotals())['idle.before']).toBe(2)
  })
})

describe('the drop log', () => {
  it('writes one warn line per reason per minute, with the count since the last and an example cut to 200 characters', () => {
    const clock = manualClock(0)
    const lines = []
    const log = createDropLog({ clock, log: { warn: (fields, msg) => lines.push({ ...fields, msg }) } })
    log.note('gauge', 'queue.depth:3|g')
    log.note('gauge', 'queue.depth:4|g')
    log.note('set', 'users:' + 'u'.repeat(500) + '|s')
    clock.advance(59_999)
    log.note('gauge', 'queue.depth:5|g', 3)
    expect(lines.map(l => [l.reason, l.dropped, l.example.length])).toEqual([['gauge', 1, 15], ['set', 1, 201]])
    clock.advance(1)
    log.note('gauge', 'queue.depth:6|g')
    expect(lines).toHaveLength(3)
    expect(lines[2]).toMatchObject({ reason: 'gauge', dropped: 5, example: 'queue.depth:6|g' })
    expect(lines[2].msg).toMatch(/statbucket_statsd_dropped_total\{reason="gauge"\}/)
  })

  it('tags that break the rules: over UDP the line is dropped, counted and logged once a minute; POST /v1/statsd refuses it with a 400 naming the line', async () => {
    const clock = manualClock(Date.UTC(2026, 10, 21, 12, 0, 30))
    const lines = []
    const stream = new Writable({ write (chunk, _enc, done) { lines.push(JSON.parse(chunk)); done() } })
    const app = await testApp('statsd_tags', { clock, logger: { level: 'warn', stream }, statsd: true, env: { STATSD_FLUSH_INTERVAL_MS: '20', PREALLOC_PROBABILITY: '0' } })
    open.push(() => app.close())
    const tagLines = () => lines.filter(l => l.reason === 'bad_tags')
    const post = text => app.inject({ method: 'POST', url: '/v1/statsd', payload: text, headers: { 'content-type': 'text/plain' } })

    const refused = await post('t.hits:1|c|#env:prod\nt.hits:2|c|#env:prod,env:dev\n')
    expect(refused.statusCode).toBe(400)
    expect(refused.json().message).toMatch(/line 2 .*"t\.hits:2\|c\|#env:prod,env:dev".*tag "env" is given twice/)
    const res = await post('t.hits:1|c|#env:prod\nt.hits:2|c\nt.took:5|ms|#env:prod,az:b\n')
    expect(res.json()).toEqual({ accepted: 3 })
    expect(tagLines()).toEqual([])

    const udp = dgram.createSocket('udp4')
    const send = (text) => new Promise(resolve => udp.send(text, app.statsd.port, '127.0.0.1', resolve))
    await send('t.hits:1|c|#name:x')
    await until(async () => /statbucket_statsd_dropped_total\{reason="bad_tags"\} 1$/m.test((await app.inject({ url: '/metrics' })).body), 'the UDP line counted')
    expect(tagLines()).toEqual([expect.objectContaining({ level: 40, reason: 'bad_tags', dropped: 1, example: 't.hits:1|c|#name:x' })])
    // within the minute, counted into the next line, not logged
    await send('t.hits:1|c|#k:~x')
    await until(async () => /statbucket_statsd_dropped_total\{reason="bad_tags"\} 2$/m.test((await app.inject({ url: '/metrics' })).body), 'the second line counted')
    expect(tagLines()).toHaveLength(1)
    clock.advance(60_000)
    await send('t.hits:1|c|#k:a;b')
    await until(() => tagLines().length === 2, 'the next minute logged')
    expect(tagLines()[1]).toMatchObject({ reason: 'bad_tags', dropped: 2, example: 't.hits:1|c|#k:a;b' })
    udp.close()
  })
})
