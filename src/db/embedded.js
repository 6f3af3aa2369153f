// An embedded local database for when MONGODB_URI is unset (docs/architecture.md#where-the-database-comes-from).
//
// First choice: a real mongod from mongodb-memory-server-core (a dev
// dependency, imported lazily so a production install needs MONGODB_URI).
// Fallback (e.g. offline, where mongod cannot be downloaded): mongo-java-server
// in a child JVM (./java-server.js). Otherwise: an Error saying how to set
// MONGODB_URI.
//
// STATBUCKET_EMBEDDED forces one path, so tests can cover both:
//   auto (default) - mongod, else mongo-java-server
//   mongod         - mongod only
//   java           - mongo-java-server only
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { startJavaServer } from './java-server.js'
import { EMBEDDED_MODES as MODES, embeddedDataDir, publishEmbeddedAddress } from './embedded-address.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const noop = () => {}
const quietLogger = { debug: noop, info: noop, warn: noop, error: noop }

/**
 * A persistent database publishes its address in its data directory while it
 * runs (./embedded-address.js), so the maintenance commands can reach it.
 * javaHeap: mongo-java-server's -Xmx (default 512m), which holds every
 * document it stores (the benchmark's cardinality section needs gigabytes).
 * @returns {Promise<{ uri: string, backend: 'mongod' | 'mongo-java-server', stop: () => Promise<void> }>}
 */
export async function startEmbeddedMongo (options = {}) {
  const db = await startFirstAvailable(options)
  if (!options.persistent) return db
  const dataDir = options.dataDir ?? embeddedDataDir()
  let unpublish = () => {}
  try {
    unpublish = publishEmbeddedAddress(dataDir, db)
  } catch (err) {
    (options.logger ?? quietLogger).warn({ err: err.message, dataDir }, 'could not record the embedded database\'s address: npm run check and retention will not find it')
  }
  return { ...db, stop: async () => { unpublish(); await db.stop() } }
}

async function startFirstAvailable ({
  persistent = false,
  dataDir = embeddedDataDir(),
  logger = quietLogger,
  downloadTimeoutMs = 60_000,
  javaHeap
} = {}) {
  const mode = process.env.STATBUCKET_EMBEDDED || 'auto'
  if (!MODES.includes(mode)) throw new Error(`STATBUCKET_EMBEDDED must be one of ${MODES.join(', ')}, not '${mode}'`)
  if (persistent) fs.mkdirSync(dataDir, { recursive: true })
  const failures = []

  if (mode !== 'java') {
    try {
      const db = await startMongod({ persistent, dataDir, logger, downloadTimeoutMs })
      logger.info({ backend: db.backend, uri: db.uri, dbPath: db.dbPath ?? 'in memory' }, 'embedded MongoDB running')
      return db
    } catch (err) {
      failures.push(`mongod (mongodb-memory-server-core): ${err.message}`)
      logger.info({ err: err.message }, 'embedded mongod unavailable')
    }
  }

  if (mode !== 'mongod') {
    try {
      const h2File = persistent ? path.join(dataDir, 'statbucket.h2.mv.db') : undefined
      const db = await startJavaServer({ h2File, logger, ...(javaHeap ? { heap: javaHeap } : {}) })
      logger.info({ backend: db.backend, uri: db.uri, pid: db.pid, h2File: h2File ?? 'in memory' }, 'embedded MongoDB running')
      // said in words, once, where a newcomer looks: what the substitute is and how to leave it
      logger.warn(`no mongod could be had, so statbucket runs on mongo-java-server, a substitute for trying it out only: no transactions (no Idempotency-Key), no TTL, slower range reads. For real use set MONGODB_URI=mongodb://host:27017 (or put mongod on the PATH).${failures.length ? ` Why not mongod: ${failures[0].split('\n')[0]}` : ''}`)
      return db
    } catch (err) {
      failures.push(`mongo-java-server: ${err.message}`)
    }
  }

  throw new Error([
    `No embedded MongoDB could be started (STATBUCKET_EMBEDDED=${mode}). Point statbucket at a MongoDB server instead, e.g.`,
    '  MONGODB_URI=mongodb://127.0.0.1:27017 npm start',
    'Why each embedded option failed:',
    ...failures.map((f) => `  - ${f.replace(/\n/g, '\n    ')}`)
  ].join('\n'))
}

async function startMongod ({ persistent, dataDir, logger, downloadTimeoutMs }) {
  let MongoMemoryServer
  try {
    ({ MongoMemoryServer } = await import('mongodb-memory-server-core'))
  } catch (err) {
    logger.info('mongodb-memory-server-core is not installed (a dev dependency); skipping mongod')
    throw new Error(`cannot import mongodb-memory-server-core: ${err.message}`)
  }
  // The binary is found or downloaded first, in a child process that a time
  // limit can kill: an in-process download offers no way to abort it, and a
  // hung socket would keep our event loop alive.
  const binary = await locateMongod(downloadTimeoutMs)
  const dbPath = persistent ? path.join(dataDir, 'mongod') : undefined
  if (dbPath) fs.mkdirSync(dbPath, { recursive: true })
  const server = await MongoMemoryServer.create({
    binary: { systemBinary: binary },
    instance: dbPath ? { dbPath, storageEngine: 'wiredTiger' } : {}
  })
  return {
    uri: server.getUri(),
    backend: 'mongod',
    dbPath,
    // doCleanup false keeps a persistent dbPath (only a temporary one is removed).
    stop: async () => { await server.stop({ doCleanup: !persistent, force: false }) }
  }
}

// Prints the mongod path (downloading it into mongodb-memory-server's cache
// the first time); run by locateMongod in a child process.
const LOCATE_SCRIPT = `
const { MongoBinary } = await import('mongodb-memory-server-core')
try {
  console.log('MONGOD_PATH ' + await MongoBinary.getPath())
} catch (err) {
  console.log('MONGOD_ERROR ' + String(err.message).replace(/\\s+/g, ' '))
}`

function locateMongod (timeoutMs) {
  return new Promise((resolve, reject) => {
    // One download attempt: the library retries 3 times unless told otherwise.
    const env = { MONGOMS_MAX_RETRIES: '1', ...process.env }
    const child = spawn(process.execPath, ['--input-type=module', '-e', LOCATE_SCRIPT], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.on('data', (d) => { out += d })
    child.stderr.on('data', noop) // its download retries warn on the console
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`no mongod binary within ${timeoutMs} ms (download blocked or too slow; set MONGOMS_SYSTEM_BINARY to use an installed mongod)`))
    }, timeoutMs)
    child.on('error', (err) => { clearTimeout(timer); reject(err) })
    child.on('exit', (code, signal) => {
      clearTimeout(timer)
      const found = /^MONGOD_PATH (.+)$/m.exec(out)
      if (found) return resolve(found[1])
      const failed = /^MONGOD_ERROR (.+)$/m.exec(out)
      reject(new Error(failed ? failed[1] : `mongod lookup exited (${signal ?? `code ${code}`})`))
    })
  })
}
