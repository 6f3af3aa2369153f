// One StatsD load-generator process for the benchmark's statsd phase
// (./bench-statsd.js forks it): a real client, hot-shots, sending
// counter lines `<prefix>m<i>:1|c` (kind 'timer': timer lines
// `<prefix>t<i>:<latency>|ms`, latencies of timer-workload.js) over `metrics`
// names, as fast as the socket takes them or at `rate` lines/s. Talks to its parent over IPC:
//   ← { type: 'start', protocol, host, port, prefix, metrics, maxBufferSize, kind?, seed? }
//   → { type: 'ready' }
//   ← { type: 'go', seconds, rate (lines/s, or null: as fast as it can) }
//   → { type: 'done', sent, errors, firstError, sendMs, cpuMs }
// `sent` counts the lines handed to the client; sendMs ends once its buffer
// was flushed and every write completed (the lines left this process).
import StatsD from 'hot-shots'
import { latencies } from './timer-workload.js'

// Backpressure: hot-shots queues writes in the socket's memory without
// limit; past this many packets not yet written the generator waits for the
// client to drain, so "sent" means sent, not queued in this process.
const MAX_IN_FLIGHT = 64
const CHUNK = 1000
// the latencies a timer client cycles through (a power of two: the index is masked)
const LATENCIES = 1 << 16

let client = null
let config = null
let errors = 0
let firstError = null

const tick = () => new Promise(resolve => setImmediate(resolve))
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms))

function connect (msg) {
  config = msg
  client = new StatsD({
    host: msg.host,
    port: msg.port,
    protocol: msg.protocol,
    maxBufferSize: msg.maxBufferSize,
    bufferFlushInterval: 50,
    datadog: false,
    errorHandler: (err) => { errors++; firstError ??= String(err?.message ?? err) }
  })
  if (msg.protocol === 'tcp') {
    client.socket.on('connect', () => process.send({ type: 'ready' }))
  } else {
    process.send({ type: 'ready' })
  }
}

async function run ({ seconds, rate }) {
  const timers = config.kind === 'timer'
  const names = Array.from({ length: config.metrics }, (_, i) => `${config.prefix}${timers ? 't' : 'm'}${i}`)
  const values = timers ? latencies(LATENCIES, config.seed ?? 1) : null
  let v = 0
  const cpu0 = process.cpuUsage()
  const started = performance.now()
  const deadline = started + seconds * 1000
  let sent = 0
  let next = 0
  for (let now = started; now < deadline; now = performance.now()) {
    let n = CHUNK
    if (rate) {
      n = Math.min(CHUNK, Math.floor((rate * (now - started)) / 1000) - sent)
      if (n <= 0) { await sleep(1); continue }
    }
    if (timers) {
      for (let k = 0; k < n; k++) {
        client.timing(names[next], values[v])
        v = (v + 1) & (LATENCIES - 1)
        next = next + 1 === names.length ? 0 : next + 1
      }
    } else {
      for (let k = 0; k < n; k++) {
        client.increment(names[next])
        next = next + 1 === names.length ? 0 : next + 1
      }
    }
    sent += n
    if (client.messagesInFlight > MAX_IN_FLIGHT && client.drainPromise) await client.drainPromise
    else await tick()
  }
  // the last partial packet, then every write completed (handed to the kernel): the lines have left
  await new Promise(resolve => client.flush(() => resolve()))
  while (client.messagesInFlight > 0 && client.drainPromise) await client.drainPromise
  const sendMs = performance.now() - started
  const cpu = process.cpuUsage(cpu0)
  await new Promise(resolve => client.close(() => resolve()))
  process.send({ type: 'done', sent, errors, firstError, sendMs, cpuMs: (cpu.user + cpu.system) / 1000 }, () => process.disconnect())
}

process.on('message', (msg) => {
  if (msg?.type === 'start') connect(msg)
  else if (msg?.type === 'go') run(msg).catch(err => { process.send({ type: 'failed', message: String(err?.stack ?? err) }); process.exitCode = 1 })
})
// the parent went away (or `done` was sent): do not outlive it
process.on('disconnect', () => { setTimeout(() => process.exit(0), 100).unref() })
