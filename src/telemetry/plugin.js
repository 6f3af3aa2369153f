// The app's telemetry publisher (src/telemetry/publisher.js): services publish what
// happens, /metrics and any `observer` hooks passed to buildApp subscribe.
import fp from 'fastify-plugin'
import { TELEMETRY_EVENTS, createTelemetry } from './publisher.js'

/** options.observer: { flushed(payload), answered(payload), preallocated(payload) } (any subset) */
async function telemetry (app, { observer = {} } = {}) {
  const publisher = createTelemetry({ logger: app.log })
  for (const name of TELEMETRY_EVENTS) {
    if (typeof observer[name] === 'function') publisher.subscribe(name, observer[name])
  }
  app.decorate('telemetry', publisher)
}

export default fp(telemetry, { name: 'telemetry' })
