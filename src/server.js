// Entry point: configuration, the database (MONGODB_URI or the embedded
// default), the app, listening, and a graceful close on SIGTERM/SIGINT.
import closeWithGrace from 'close-with-grace'
import pino from 'pino'
import { buildApp, defaultLogger } from './app.js'
import { ConfigError, loadConfig } from './config.js'
import { describeStartupFailure } from './startup-failure.js'
import { embeddedDataDir } from './db/embedded-address.js'

/** One line naming the cause and the fix; the stack only at LOG_LEVEL=debug */
function failToStart (err, config) {
  console.error(`statbucket: ${describeStartupFailure(err, config)}`)
  if (config?.logLevel === 'debug' || config?.logLevel === 'trace') console.error(err)
  process.exit(1)
}

async function main () {
  let config
  try {
    config = loadConfig()
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err
    console.error(`statbucket: bad configuration: ${err.message}`)
    process.exit(2)
  }
  const log = pino(defaultLogger(config.logLevel))

  const dataDir = embeddedDataDir()
  let embedded = null
  if (!config.mongodbUri) {
    const { startEmbeddedMongo } = await import('./db/embedded.js')
    try {
      embedded = await startEmbeddedMongo({ persistent: true, dataDir, logger: log })
    } catch (err) {
      failToStart(err, { ...config, dataDir })
    }
  }

  let app
  try {
    app = await buildApp({
      config,
      mongodbUri: embedded?.uri,
      backend: embedded?.backend,
      loggerInstance: log,
      onClose: embedded ? () => embedded.stop() : undefined
    })
  } catch (err) {
    await embedded?.stop().catch(() => {})
    failToStart(err, config)
  }

  closeWithGrace({ delay: config.writeTimeoutMs * 3 }, async ({ signal, err }) => {
    const { pendingEvents } = app.writer.stats()
    let flushedEvents = 0
    app.telemetry.subscribe('flushed', ({ events }) => { flushedEvents += events })
    if (err) app.log.error({ err }, 'shutting down after an error')
    app.log.info({ signal, pendingEvents }, `shutting down${signal ? ` on ${signal}` : ''}: accepting no new connections, flushing ${pendingEvents} queued events, answering every request received`)
    await app.close()
    log.info({ flushedEvents }, `closed: flushed ${flushedEvents} events after the signal; every request received was answered`)
  })

  try {
    await app.listen({ port: config.port, host: config.host })
  } catch (err) {
    await app.close().catch(() => {})
    failToStart(err, config)
  }
}

main().catch(err => failToStart(err, null))
