// Entry point: configuration, the database (MONGODB_URI or the embedded
// default), the app, listening, and a graceful close on SIGTERM/SIGINT.
import closeWithGrace from 'close-with-grace'
import { fileURLToPath } from 'node:url'
import pino from 'pino'
import { buildApp, defaultLogger } from './app.js'
import { ConfigError, loadConfig } from './config.js'

const projectRoot = fileURLToPath(new URL('..', import.meta.url))

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

  let embedded = null
  if (!config.mongodbUri) {
    const { startEmbeddedMongo } = await import('./db/embedded.js')
    try {
      embedded = await startEmbeddedMongo({ persistent: true, dataDir: `${projectRoot}data`, logger: log })
    } catch (err) {
      console.error(`statbucket: ${err.message}`)
      process.exit(1)
    }
  }

  const app = await buildApp({
    config,
    mongodbUri: embedded?.uri,
    backend: embedded?.backend,
    loggerInstance: log,
    onClose: embedded ? () => embedded.stop() : undefined
  })

  closeWithGrace({ delay: config.writeTimeoutMs * 3 }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'closing after an error')
    else app.log.info({ signal }, 'closing: flushing queued events')
    await app.close()
  })

  await app.listen({ port: config.port, host: config.host })
}

main().catch(err => {
  console.error('statbucket failed to start:', err)
  process.exit(1)
})
