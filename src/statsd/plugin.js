// The StatsD listeners (docs/statsd.md), on unless STATSD_PORT=0:
// UDP and TCP on STATSD_HOST:STATSD_PORT (127.0.0.1:8125), each through its own pipeline into
// the ingest service. Stopped on close before the writer drains: what they
// hold is submitted first. The gauges' levels the StatsD doors apply deltas
// to (gauge-levels.js) are the instance's, decorated as app.statsdGauges for
// POST /v1/statsd too, whether or not the listeners run; so is the drop log
// (app.statsdDrops).
import fp from 'fastify-plugin'
import { realTimers } from '../clock.js'
import { STATSD_DEFAULT_PORT } from '../config.js'
import { GAUGE_KIND } from '../bucket/metric-kinds.js'
import { createGaugeLevels } from './gauge-levels.js'
import { startStatsdListeners } from './listeners.js'
import { createStatsdPipeline } from './pipeline.js'
import { createDropLog } from './drop-log.js'

/** options.timers: the pipelines' timers (src/clock.js), for tests */
async function statsd (app, { timers = realTimers } = {}) {
  const { config, clock, ingest, telemetry, reader, registry } = app
  const gaugeLevels = createGaugeLevels({
    maxNames: config.statsdGaugeLevels,
    // a name known as another kind stores no level (its delta is refused as kind_mismatch anyway)
    storedLevel: async (name) => {
      const kind = registry.kindOf(name)
      return kind === undefined || kind.kind === GAUGE_KIND ? reader.gaugeLevel(name) : null
    }
  })
  app.decorate('statsdGauges', gaugeLevels)
  // one drop log for every door: POST /v1/statsd notes its dropped tags in it too
  const drops = createDropLog({ clock, log: app.log.child({ component: 'statsd' }) })
  app.decorate('statsdDrops', drops)
  if (config.statsdPort === null) {
    app.log.info(`StatsD off (STATSD_PORT=0); unset STATSD_PORT for ${config.statsdHost}:${STATSD_DEFAULT_PORT}`)
    return
  }
  const dropped = (transport, reason, values, example) => {
    telemetry.publish('statsdDropped', { transport, reason, values })
    drops.note(reason, example, values)
  }

  const pipelineFor = (transport, lossless) => createStatsdPipeline({
    ingest,
    clock,
    timers,
    flushIntervalMs: config.statsdFlushIntervalMs,
    maxEvents: config.maxEventsPerRequest,
    lossless,
    gaugeLevels,
    log: app.log.child({ statsd: transport }),
    onReceived: (values) => telemetry.publish('statsdReceived', { transport, values }),
    onDrop: (reason, values, example) => dropped(transport, reason, values, example)
  })
  const udp = pipelineFor('udp', false)
  const tcp = pipelineFor('tcp', true)
  let pauses = 0
  const listeners = await startStatsdListeners({
    onPause: () => { pauses++ },
    host: config.statsdHost,
    port: config.statsdPort,
    udp,
    tcp,
    onDrop: (reason, values, example) => dropped('tcp', reason, values, example),
    onConnectionClosed: (reason) => {
      telemetry.publish('statsdConnectionClosed', { reason })
      drops.note(`tcp_${reason}`, null)
    },
    maxConnections: config.statsdTcpMaxConnections,
    idleTimeoutMs: config.statsdTcpIdleTimeoutMs,
    log: app.log
  }).catch(err => {
    // marked as StatsD's: the failure to start names STATSD_PORT, not PORT (src/startup-failure.js)
    err.statsd = { host: config.statsdHost, port: config.statsdPort }
    throw err
  })
  app.log.info({ host: config.statsdHost, port: listeners.port }, 'StatsD listening (UDP and TCP)')
  app.decorate('statsd', {
    port: listeners.port,
    host: config.statsdHost,
    /** Events held by each pipeline, and how often a TCP connection stopped reading */
    stats: () => ({ heldEvents: { udp: udp.held, tcp: tcp.held }, pauses })
  })

  // before the writer drains (src/statsd/doors.js): what the pipelines hold is submitted
  let closed = null
  const close = () => {
    closed ??= (async () => {
      await listeners.close()
      await Promise.all([udp.close(), tcp.close()])
    })()
    return closed
  }
  app.doors.onClose(close)
  app.addHook('onClose', close) // a boot that failed after this plugin never ran preClose
}

export default fp(statsd, { name: 'statsd', dependencies: ['doors', 'ingest', 'telemetry', 'reader', 'registry'] })
