// The StatsD listeners with a client from another ecosystem: PyPI `statsd`
// (pystatsd) in a venv that scripts/statsd-client/setup-venv.sh builds when
// it is missing (.ci/run builds it too).
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { beforeAll, describe, expect, it } from 'vitest'
import { distributionTotals, statsdApp, until } from './helpers.js'

const run = promisify(execFile)
const scripts = fileURLToPath(new URL('../../scripts/statsd-client/', import.meta.url))
let python

beforeAll(async () => {
  const { stdout } = await run('sh', [`${scripts}setup-venv.sh`], { timeout: 300_000 })
  python = `${stdout.trim()}/bin/python`
}, 300_000)

// py.pool: 0..49, then +3 and −1; py.level: pystatsd's 0 then −4 for a negative level
const GAUGES = {
  'py.pool': { count: 52, sum: 1225 + 52 + 51, min: 0, max: 52, last: 51 },
  'py.level': { count: 2, sum: -4, min: -4, max: 0, last: -4 }
}

const send = async (protocol, port) => Number((await run(python, [`${scripts}send.py`, protocol, String(port)], { timeout: 60_000 })).stdout.trim())

describe('StatsD with the PyPI statsd client', () => {
  it('over TCP: exact totals, the timer a distribution, gauges with their deltas; sets counted', async () => {
    const s = await statsdApp('statsd_py_tcp')
    try {
      const sent = await send('tcp', s.app.statsd.port)
      expect(sent).toBe(2605)
      await until(() => s.seen.received.tcp === sent, `${sent} values over TCP`)
      expect(await s.closeAndReadTotals()).toEqual({
        'py.orders': 5000, // 500 × (1 + 2 + 3 + 4)
        'py.stock': -3
      })
      // pystatsd sends `py.render:8.000000|ms`: one distribution value, 500 times
      expect(distributionTotals(s.distributions)).toEqual({ 'py.render': { count: 500, sum: 4000, min: 8, max: 8 } })
      expect(s.distributions['py.render'].weights).toEqual({ 8: 500 })
      expect(s.gauges).toEqual(GAUGES)
      expect(s.seen.dropped).toEqual({ set: 50 })
    } finally {
      await s.app.close()
    }
  })

  it('over UDP: every value read is stored or counted as dropped', async () => {
    const s = await statsdApp('statsd_py_udp')
    try {
      const sent = await send('udp', s.app.statsd.port)
      // the kernel may lose datagrams: wait for all, then check what was read
      await until(() => s.seen.received.udp === sent, 'every datagram', 10_000).catch(() => {})
      const read = s.seen.received.udp
      expect(read).toBeGreaterThan(0)
      const totals = await s.closeAndReadTotals()
      const dropped = s.seen.dropped.set ?? 0
      const render = s.distributions['py.render'] ?? { count: 0, sum: 0 }
      expect(render.sum).toBe(8 * render.count)
      expect(Object.keys(s.distributions).filter(m => m !== 'py.render')).toEqual([])
      if (read === sent) {
        expect(totals).toEqual({ 'py.orders': 5000, 'py.stock': -3 })
        expect(distributionTotals(s.distributions)).toEqual({ 'py.render': { count: 500, sum: 4000, min: 8, max: 8 } })
        expect(s.gauges).toEqual(GAUGES)
        expect(dropped).toBe(50)
      } else {
        expect(read).toBeLessThan(sent)
        expect(dropped).toBeLessThanOrEqual(50)
      }
    } finally {
      await s.app.close()
    }
  })
})
