// Entry point: configuration, the database (MONGODB_URI or the embedded
// default), the app, listening, and a graceful close on SIGTERM/SIGINT.
import pino from 'pino'
import { buildApp, defaultLogger } from './app.js'
import { ConfigError, loadConfig } from './config.js'
import { describeStartupFailure } from './startup-failure.js'
import { embeddedDataDir } from './db/embedded-address.js'
import { HOLD_MAX_MS, installShutdown } from './shutdown.js'
import { applyHeapGrowth } from './heap-growth.js'

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
  applyHeapGrowth(config.heapGrowthPercent)
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

  installShutdown({ app, log, graceMs: config.shutdownGraceMs, drainTimeoutMs: config.writeTimeoutMs * 3 + config.shutdownGraceMs + HOLD_MAX_MS })

  try {
    await app.listen({ port: config.port, host: config.host })
  } catch (err) {
    await app.close().catch(() => {})
    failToStart(err, config)
  }
}

main().catch(err => failToStart(err, null))
