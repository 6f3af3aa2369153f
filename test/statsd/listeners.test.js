// The StatsD listeners with a real client (hot-shots, over TCP and UDP) and
// raw sockets; totals read from the database after the app closed.
import dgram from 'node:dgram'
import net from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import StatsD from 'hot-shots'
import { loadConfig } from '../../src/config.js'
import { testApp } from '../helpers/test-app.js'
import { distributionTotals, statsdApp, until } from './helpers.js'
import { bucketValue, createMapping } from '../../src/bucket/distribution-sketch.js'
import { MAX_BUCKETS_PER_REQUEST } from '../../src/bucket/distribution-rules.js'

const open = []
afterEach(async () => {
  while (open.length) await open.pop()()
})

function hotShots (port, protocol, options = {}) {
  const errors = []
  const client = new StatsD({ host: '127.0.0.1', port, protocol, datadog: false, errorHandler: (err) => errors.push(err), ...options })
  const close = () => new Promise(resolve => client.close(() => resolve()))
  return { client, errors, close }
}

/** Every kind of line, through the client's own API; → values sent, the counter totals, the distributions and the gauges they make */
function sendEveryKind (client) {
  for (let i = 0; i < 3000; i++) client.increment('app.requests', (i % 5) + 1)
  for (let i = 0; i < 1000; i++) client.timing('db.query', 7)
  for (let i = 0; i < 500; i++) client.histogram('resp.size', 2)
  for (let i = 0; i < 500; i++) client.distribution('batch.len', 3)
  for (let i = 0; i < 100; i++) client.gauge('queue.depth', i)
  // deltas from the level the door holds: 99 + 5 − 3; and one from nothing stored (0)
  client.gaugeDelta('queue.depth', 5)
  client.gaugeDelta('queue.depth', -3)
  client.gaugeDelta('pool.free', -2)
  for (let i = 0; i < 100; i++) client.set('users', `u${i}`)
  // tagged: each value counts toward its series and toward the untagged name
  for (let i = 0; i < 100; i++) client.increment('tagged.hits', 1, ['region:eu', 'env:prod'])
  for (let i = 0; i < 20; i++) client.increment('tagged.hits', 2, { env: 'dev' })
  for (let i = 0; i < 50; i++) client.timing('tagged.took', 4, ['route:/a'])
  for (let i = 0; i < 10; i++) client.gauge('tagged.level', i, ['pool:x'])
  client.increment('my app/requests per sec', 4)
  return {
    values: 5384,
    totals: {
      'app.requests': 9000, // 600 × (1 + 2 + 3 + 4 + 5)
      'tagged.hits': 140,
      'tagged.hits;env=prod;region=eu': 100,
      'tagged.hits;env=dev': 40,
      'my_app-requests_per_sec': 4
    },
    // timers (ms), histograms (h) and distributions (d): one distribution each, under the name as sent
    distributions: {
      'db.query': { count: 1000, sum: 7000, min: 7, max: 7 },
      'resp.size': { count: 500, sum: 1000, min: 2, max: 2 },
      'batch.len': { count: 500, sum: 1500, min: 3, max: 3 },
      'tagged.took': { count: 50, sum: 200, min: 4, max: 4 },
      'tagged.took;route=/a': { count: 50, sum: 200, min: 4, max: 4 }
    },
    // gauges: count, sum, min, max and the last level, the deltas applied in the order sent
    gauges: {
      'queue.depth': { count: 102, sum: 4950 + 104 + 101, min: 0, max: 104, last: 101 },
      'pool.free': { count: 1, sum: -2, min: -2, max: -2, last: -2 },
      'tagged.level': { count: 10, sum: 45, min: 0, max: 9, last: 9 },
      'tagged.level;pool=x': { count: 10, sum: 45, min: 0, max: 9, last: 9 }
    },
    dropped: { set: 100 }
  }
}

describe('StatsD listeners', () => {
  it('TCP with hot-shots: exact totals per tag set and per name, gauges with their deltas stored, sets counted on /metrics by reason', async () => {
    const s = await statsdApp('statsd_tcp')
    open.push(() => s.app.close())
    const { client, errors, close } = hotShots(s.app.statsd.port, 'tcp', { maxBufferSize: 4096, bufferFlushInterval: 5 })
    const expected = sendEveryKind(client)
    await close()
    await until(() => s.seen.received.tcp === expected.values, `${expected.values} values read over TCP`)
    const metrics = (await s.app.inject({ method: 'GET', url: '/metrics' })).body
    expect(metrics).not.toContain('reason="gauge"')
    expect(metrics).toContain('statbucket_statsd_dropped_total{reason="set"} 100')
    expect(metrics).not.toContain('reason="bad_tags"')
    expect(metrics).toContain(`statbucket_statsd_received_total{transport="tcp"} ${expected.values}`)
    expect(await s.closeAndReadTotals()).toEqual(expected.totals)
    expect(distributionTotals(s.distributions)).toEqual(expected.distributions)
    expect(s.gauges).toEqual(expected.gauges)
    // the same value merged: far fewer events than values
    expect(s.distributions['db.query'].events).toBeLessThan(1000)
    expect(s.seen.dropped).toEqual(expected.dropped)
    expect(errors).toEqual([])
  })

  it('UDP with hot-shots: every value read is stored (UDP may lose datagrams before the server reads them)', async () => {
    const s = await statsdApp('statsd_udp')
    open.push(() => s.app.close())
    const { client, errors, close } = hotShots(s.app.statsd.port, 'udp', { maxBufferSize: 1400, bufferFlushInterval: 5 })
    for (let i = 0; i < 2000; i++) client.increment('udp.hits')
    for (let i = 0; i < 500; i++) client.timing('udp.took', 3)
    await close()
    // wait for every datagram; if the kernel lost some, the check below still holds for what was read
    await until(() => s.seen.received.udp === 2500, 'every datagram', 10_000).catch(() => {})
    const read = s.seen.received.udp
    expect(read).toBeGreaterThan(0)
    const totals = await s.closeAndReadTotals()
    const took = s.distributions['udp.took'] ?? { count: 0, sum: 0 }
    expect((totals['udp.hits'] ?? 0) + took.count).toBe(read)
    expect(took.sum).toBe(3 * took.count)
    expect(s.seen.dropped).toEqual({})
    expect(errors).toEqual([])
  })

  it('UDP: past the batch limit while a submit is in flight, values are dropped as overload and counted', async () => {
    const s = await statsdApp('statsd_overload', { MAX_EVENTS_PER_REQUEST: '5' })
    open.push(() => s.app.close())
    const socket = dgram.createSocket('udp4')
    open.push(() => new Promise(resolve => socket.close(resolve)))
    // one datagram, 20 distinct metrics: 5 fill the batch and are submitted, 5 fill it again while that submit is in flight, 10 are dropped
    const lines = Array.from({ length: 20 }, (_, i) => `m${String(i).padStart(2, '0')}:1|c`).join('\n')
    await new Promise((resolve, reject) => socket.send(lines, s.app.statsd.port, '127.0.0.1', err => err ? reject(err) : resolve()))
    await until(() => s.seen.received.udp === 20, 'the datagram')
    const metrics = (await s.app.inject({ method: 'GET', url: '/metrics' })).body
    expect(metrics).toContain('statbucket_statsd_dropped_total{reason="overload"} 10')
    const totals = await s.closeAndReadTotals()
    expect(s.seen.dropped).toEqual({ overload: 10 })
    expect(Object.keys(totals).sort()).toEqual(['m00', 'm01', 'm02', 'm03', 'm04', 'm05', 'm06', 'm07', 'm08', 'm09'])
    expect(s.seen.dropped).toEqual({ overload: 10 })
  })

  it('TCP: a client far faster than the database loses nothing; reading pauses and what the server holds stays bounded', async () => {
    const maxEvents = 50
    const s = await statsdApp('statsd_fast', { MAX_EVENTS_PER_REQUEST: String(maxEvents), MAX_PENDING_EVENTS: '100' })
    open.push(() => s.app.close())
    const metricsCount = 500
    const rounds = 40
    let maxHeld = 0
    let maxPending = 0
    const sampler = setInterval(() => {
      maxHeld = Math.max(maxHeld, s.app.statsd.stats().heldEvents.tcp)
      maxPending = Math.max(maxPending, s.app.writer.stats().pendingEvents)
    }, 5)
    open.push(() => clearInterval(sampler))
    const { client, errors, close } = hotShots(s.app.statsd.port, 'tcp', { maxBufferSize: 8192, bufferFlushInterval: 5 })
    for (let r = 0; r < rounds; r++) {
      for (let m = 0; m < metricsCount; m++) client.increment(`fast.m${m}`, 1)
    }
    await close()
    await until(() => s.seen.received.tcp === metricsCount * rounds, 'every line read', 120_000)
    clearInterval(sampler)
    expect(s.app.statsd.stats().pauses).toBeGreaterThan(0)
    // bound: a full batch plus the lines of one socket read (64 KiB of lines at least 9 bytes long)
    expect(maxHeld).toBeLessThanOrEqual(maxEvents + Math.ceil(65_536 / 9))
    expect(maxPending).toBeLessThanOrEqual(100)
    const totals = await s.closeAndReadTotals()
    expect(Object.keys(totals)).toHaveLength(metricsCount)
    for (let m = 0; m < metricsCount; m++) expect(totals[`fast.m${m}`]).toBe(rounds)
    expect(s.seen.dropped).toEqual({})
    expect(errors).toEqual([])
  }, 180_000)

  it('a TCP line longer than 64 KiB is dropped as line_too_long; the lines around it are kept', async () => {
    const s = await statsdApp('statsd_long')
    open.push(() => s.app.close())
    const socket = net.connect(s.app.statsd.port, '127.0.0.1')
    await new Promise(resolve => socket.once('connect', resolve))
    socket.end(`before:1|c\n${'x'.repeat(70_000)}:1|c\nafter:2|c\n`)
    await new Promise(resolve => socket.once('close', resolve))
    await until(() => s.seen.received.tcp === 2, 'the two short lines')
    expect(await s.closeAndReadTotals()).toEqual({ before: 1, after: 2 })
    expect(s.seen.dropped).toEqual({ line_too_long: 1 })
  })

  it('TCP, raw lines: a sample rate weighs a timer value, the same value is merged, packed lines of both kinds kept', async () => {
    const s = await statsdApp('statsd_weights')
    open.push(() => s.app.close())
    const socket = net.connect(s.app.statsd.port, '127.0.0.1')
    await new Promise(resolve => socket.once('connect', resolve))
    const lines = [
      ...Array.from({ length: 10_000 }, () => 'api.latency:42|ms'),
      'api.latency:87|ms|@0.1', 'api.latency:87|ms|@0.1', 'api.latency:12.5|ms|@0.5',
      'api.hits:1|c:2|c|@0.5', 'api.size:300|h:-20|h:300|d',
      // dropped, each counted by reason
      'api.latency:NaN|ms', 'api.latency:-1|ms', 'api.latency:1e308|ms', 'api.latency:1|ms|@0', 'api.latency:1|ms|@1e-300'
    ]
    socket.end(lines.join('\n') + '\n')
    await new Promise(resolve => socket.once('close', resolve))
    await until(() => s.seen.received.tcp === lines.length + 3, 'every value')
    expect(await s.closeAndReadTotals()).toEqual({ 'api.hits': 5 })
    expect(s.distributions['api.latency'].weights).toEqual({ 42: 10_000, 87: 20, 12.5: 2 })
    expect(distributionTotals(s.distributions)).toEqual({
      'api.latency': { count: 10_022, sum: 42 * 10_000 + 87 * 20 + 25, min: 12.5, max: 87 },
      'api.size': { count: 3, sum: 580, min: -20, max: 300 }
    })
    expect(s.seen.dropped).toEqual({ bad_value: 3, bad_sample_rate: 2 })
  })

  it('TCP: a delta of a gauge this instance holds no level of starts from the level stored (another instance, or before a restart)', async () => {
    const first = await testApp('statsd_restart', { env: { PREALLOC_PROBABILITY: '0' }, keepDatabase: true })
    const dbName = first.config.mongodbDb
    expect((await first.inject({ method: 'POST', url: '/v1/events', payload: { metric: 'restart.depth', kind: 'gauge', value: 40 } })).statusCode).toBe(200)
    await first.close()
    const s = await statsdApp('statsd_restart', { MONGODB_DB: dbName })
    open.push(() => s.app.close())
    const socket = net.connect(s.app.statsd.port, '127.0.0.1')
    await new Promise(resolve => socket.once('connect', resolve))
    socket.end('restart.depth:+2|g\nrestart.depth:-1|g\nnever.seen:-5|g\nnever.seen:+1|g\n')
    await new Promise(resolve => socket.once('close', resolve))
    await until(() => s.seen.received.tcp === 4, 'the four values')
    await s.closeAndReadTotals()
    expect(s.gauges).toEqual({
      'restart.depth': { count: 3, sum: 40 + 42 + 41, min: 40, max: 42, last: 41 },
      'never.seen': { count: 2, sum: -9, min: -5, max: -4, last: -4 }
    })
    expect(s.seen.dropped).toEqual({})
  })

  it('TCP: a timer on a counter\'s name (and a count on a timer\'s) is a counted kind_mismatch drop; the other names of the batch are kept', async () => {
    const s = await statsdApp('statsd_kinds')
    open.push(() => s.app.close())
    const send = async (lines) => {
      const socket = net.connect(s.app.statsd.port, '127.0.0.1')
      await new Promise(resolve => socket.once('connect', resolve))
      socket.end(lines.join('\n') + '\n')
      await new Promise(resolve => socket.once('close', resolve))
    }
    await send(['mix.hits:1|c', 'mix.took:5|ms'])
    await until(() => s.seen.received.tcp === 2, 'the first lines', 8000)
    await until(async () => (await s.app.mongo.db.collection('metrics').countDocuments({ _id: { $in: ['mix.hits', 'mix.took'] } })) === 2, 'both names registered', 8000)
    await send(['mix.hits:7|ms', 'mix.hits:8|ms|@0.5', 'mix.took:1|c', 'mix.other:2|c', 'mix.took:6|ms', 'mix.hits:+1|g', 'mix.took:3|g'])
    await until(() => (s.seen.dropped.kind_mismatch ?? 0) === 5, 'five values dropped for their kind', 8000)
    expect(await s.closeAndReadTotals()).toEqual({ 'mix.hits': 1, 'mix.other': 2 })
    expect(distributionTotals(s.distributions)).toEqual({ 'mix.took': { count: 2, sum: 11, min: 5, max: 6 } })
    expect(s.gauges).toEqual({})
    expect(s.seen.dropped).toEqual({ kind_mismatch: 5 })
  })

  it('TCP: a timer whose values of one batch open more than 2,000 buckets of a day is a counted too_many_buckets drop; the batch\'s other names are kept', async () => {
    const s = await statsdApp('statsd_wide', { STATSD_FLUSH_INTERVAL_MS: '200' })
    open.push(() => s.app.close())
    const mapping = createMapping(0.01)
    const lines = Array.from({ length: MAX_BUCKETS_PER_REQUEST + 1 }, (_, i) => `wide.took:${bucketValue(mapping, i - 900)}|ms`)
    lines.push('wide.hits:3|c', 'narrow.took:5|ms')
    const socket = net.connect(s.app.statsd.port, '127.0.0.1')
    await new Promise(resolve => socket.once('connect', resolve))
    socket.end(lines.join('\n') + '\n')
    await new Promise(resolve => socket.once('close', resolve))
    await until(() => s.seen.received.tcp === lines.length, 'every line', 8000)
    await until(() => (s.seen.dropped.too_many_buckets ?? 0) === MAX_BUCKETS_PER_REQUEST + 1, 'the wide timer dropped', 8000)
    expect(await s.closeAndReadTotals()).toEqual({ 'wide.hits': 3 })
    expect(distributionTotals(s.distributions)).toEqual({ 'narrow.took': { count: 1, sum: 5, min: 5, max: 5 } })
  })

  it('off with STATSD_PORT=0; stopped on close', async () => {
    const off = await testApp('statsd_off', { env: { STATSD_PORT: '0' } })
    expect(off.hasDecorator('statsd')).toBe(false)
    await off.close()
    const s = await statsdApp('statsd_close')
    const port = s.app.statsd.port
    await s.closeAndReadTotals()
    const refused = await new Promise(resolve => {
      const socket = net.connect(port, '127.0.0.1')
      socket.once('connect', () => { socket.destroy(); resolve(false) })
      socket.once('error', (err) => resolve(err.code))
    })
    expect(refused).toBe('ECONNREFUSED')
  })

  it('configuration errors name the variable', () => {
    expect(() => loadConfig({ STATSD_PORT: 'abc' })).toThrow(/^STATSD_PORT: /)
    expect(() => loadConfig({ STATSD_PORT: '70000' })).toThrow(/^STATSD_PORT: /)
    expect(() => loadConfig({ STATSD_PORT: '8125', STATSD_FLUSH_INTERVAL_MS: '0' })).toThrow(/^STATSD_FLUSH_INTERVAL_MS: /)
    expect(() => loadConfig({ STATSD_PORT: '8125', STATSD_HOST: 'a b' })).toThrow(/^STATSD_HOST: /)
    // loopback whatever HOST is (StatsD carries no token)
    expect(loadConfig({ HOST: '0.0.0.0', STATSD_PORT: '8125' })).toMatchObject({ statsdPort: 8125, statsdHost: '127.0.0.1', statsdFlushIntervalMs: 1000 })
    expect(loadConfig({})).toMatchObject({ statsdPort: 8125 }) // StatsD's port by default (default-listener.test.js)
    expect(loadConfig({ STATSD_PORT: '0' })).toMatchObject({ statsdPort: null })
  })
})
