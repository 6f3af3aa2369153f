// StatsD is on by default, where StatsD clients send (127.0.0.1:8125), so
// the README's UDP example is stored by a plain `npm start`; STATSD_PORT=0
// turns it off; a StatsD port already taken stops the start in one line
// naming the cause and the fix. The real server (`node src/server.js`) on
// the suite's database.
import { spawn } from 'node:child_process'
import dgram from 'node:dgram'
import net from 'node:net'
import { createInterface } from 'node:readline'
import { afterEach, describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../src/config.js'
import { freeStatsdPort } from '../../scripts/shared/child-server.js'
import { ROOT } from '../helpers/run-node.js'
import { mongodbUri, uniqueDbName } from '../helpers/test-app.js'

const cleanups = []
afterEach(async () => { while (cleanups.length) await cleanups.pop()().catch(() => {}) })

/** `node src/server.js` → { logs, stderr, exited: Promise<code>, listening: Promise<port|null> (null: exited first) } */
function startServer (env) {
  const child = spawn(process.execPath, ['src/server.js'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, MONGODB_URI: mongodbUri(), MONGODB_DB: uniqueDbName('statsddefault'), HOST: '127.0.0.1', PORT: '0', PREALLOC_PROBABILITY: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  const logs = []
  const stderr = []
  const exited = new Promise(resolve => child.once('exit', code => resolve(code)))
  let onListening
  const listening = new Promise(resolve => { onListening = resolve })
  exited.then(() => onListening(null))
  createInterface({ input: child.stdout }).on('line', line => {
    try { logs.push(JSON.parse(line)) } catch { logs.push({ raw: line }) }
    const m = /listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(logs.at(-1).msg ?? '')
    if (m) onListening(Number(m[1]))
  })
  createInterface({ input: child.stderr }).on('line', line => stderr.push(line))
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
    await exited
  })
  return { child, logs, stderr, exited, listening }
}

/** Whether 127.0.0.1:port can be had now for TCP and UDP */
async function portFree (port) {
  const tcp = net.createServer()
  const tcpOk = await new Promise(resolve => { tcp.once('error', () => resolve(false)); tcp.listen(port, '127.0.0.1', () => resolve(true)) })
  if (tcpOk) await new Promise(resolve => tcp.close(resolve))
  const udp = dgram.createSocket('udp4')
  const udpOk = await new Promise(resolve => { udp.once('error', () => resolve(false)); udp.bind({ port, address: '127.0.0.1', exclusive: true }, () => resolve(true)) })
  await new Promise(resolve => udp.close(resolve))
  return tcpOk && udpOk
}

async function totalOf (port, metric) {
  const hour = Math.floor(Date.now() / 3_600_000) * 3_600_000
  const res = await fetch(`http://127.0.0.1:${port}/v1/metrics/${metric}/total?from=${hour - 3_600_000}&to=${hour + 7_200_000}`)
  return res.ok ? (await res.json()).total : null
}

describe('StatsD by default', () => {
  it('is configured on 127.0.0.1:8125 whatever HOST is; STATSD_PORT=0 turns it off', () => {
    expect(loadConfig({})).toMatchObject({ statsdPort: 8125, statsdHost: '127.0.0.1' })
    expect(loadConfig({ HOST: '0.0.0.0' })).toMatchObject({ statsdPort: 8125, statsdHost: '127.0.0.1' })
    expect(loadConfig({ STATSD_PORT: '' })).toMatchObject({ statsdPort: 8125 })
    expect(loadConfig({ STATSD_PORT: '0' })).toMatchObject({ statsdPort: null })
    expect(loadConfig({ STATSD_PORT: '9125' })).toMatchObject({ statsdPort: 9125 })
    // with WRITE_TOKENS, the default port on another address needs the opt-in, or the listener off
    const open = { STATSD_HOST: '0.0.0.0', WRITE_TOKENS: 'w'.repeat(16) }
    expect(() => loadConfig(open)).toThrow(ConfigError)
    expect(() => loadConfig(open)).toThrow(/^STATSD_UNAUTHENTICATED: WRITE_TOKENS is set but StatsD would listen on 0\.0\.0\.0:8125 \(STATSD_HOST, STATSD_PORT\), where anyone who reaches it writes without a token: bind it to 127\.0\.0\.1, set STATSD_PORT=0 to turn it off, or set STATSD_UNAUTHENTICATED=allow to accept that$/)
    expect(loadConfig({ ...open, STATSD_PORT: '0' }).statsdPort).toBe(null)
    expect(loadConfig({ ...open, STATSD_UNAUTHENTICATED: 'allow' }).statsdPort).toBe(8125)
  })

  it('the server stores the README\'s UDP line sent to 127.0.0.1:8125 (or, 8125 taken, says so in one line)', async () => {
    const free = await portFree(8125)
    const server = startServer({})
    const port = await server.listening
    if (!free) {
      // another program holds 8125 on this machine: the start fails, naming the cause and the fix
      expect(port).toBe(null)
      expect(await server.exited).toBe(1)
      expect(server.stderr).toEqual([expect.stringMatching(/^statbucket: StatsD port 8125 on 127\.0\.0\.1 is already in use/)])
      return
    }
    expect(port).not.toBe(null)
    expect(server.logs.find(l => l.msg === 'StatsD listening (UDP and TCP)')).toMatchObject({ host: '127.0.0.1', port: 8125 })
    const udp = dgram.createSocket('udp4')
    await new Promise(resolve => udp.send('jobs.done:1|c', 8125, '127.0.0.1', resolve))
    udp.close()
    for (let i = 0; i < 100 && await totalOf(port, 'jobs.done') !== 1; i++) await new Promise(resolve => setTimeout(resolve, 100))
    expect(await totalOf(port, 'jobs.done')).toBe(1)
  }, 30_000)

  it('STATSD_PORT=0: no listener, and the log says how to have one', async () => {
    const server = startServer({ STATSD_PORT: '0' })
    expect(await server.listening).not.toBe(null)
    expect(server.logs.filter(l => /StatsD/.test(l.msg ?? '')).map(l => l.msg)).toEqual(['StatsD off (STATSD_PORT=0); unset STATSD_PORT for 127.0.0.1:8125'])
  }, 30_000)

  for (const transport of ['udp', 'tcp']) {
    it(`a StatsD port already taken (${transport}) stops the start in one line naming it and the fix`, async () => {
      const port = await freeStatsdPort()
      let holder
      if (transport === 'udp') {
        holder = dgram.createSocket('udp4')
        await new Promise(resolve => holder.bind({ port, address: '127.0.0.1', exclusive: true }, resolve))
        cleanups.push(() => new Promise(resolve => holder.close(resolve)))
      } else {
        holder = net.createServer()
        await new Promise(resolve => holder.listen(port, '127.0.0.1', resolve))
        cleanups.push(() => new Promise(resolve => holder.close(resolve)))
      }
      const server = startServer({ STATSD_PORT: String(port) })
      expect(await server.listening).toBe(null)
      expect(await server.exited).toBe(1)
      expect(server.stderr).toEqual([`statbucket: StatsD port ${port} on 127.0.0.1 is already in use (another statbucket, or a StatsD daemon): stop it, set STATSD_PORT to a free port, or STATSD_PORT=0 to turn StatsD off`])
    }, 30_000)
  }
})
