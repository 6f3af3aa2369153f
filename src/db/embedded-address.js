// Where a running statbucket's embedded database listens, kept beside its data
// (docs/architecture.md#where-the-database-comes-from): the embedded
// database picks a free port at random, so the maintenance commands (check,
// retention) read this file to reach the database of a service that runs.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const PROJECT_DATA_DIR = fileURLToPath(new URL('../../data', import.meta.url))
const FILE = 'embedded-address.json'

/** STATBUCKET_EMBEDDED's values: auto (a real mongod, else mongo-java-server), or one forced */
export const EMBEDDED_MODES = ['auto', 'mongod', 'java']

/** The embedded database's data directory: STATBUCKET_DATA_DIR, else ./data of the project. */
export function embeddedDataDir (env = process.env) {
  return env.STATBUCKET_DATA_DIR || PROJECT_DATA_DIR
}

/** Records { uri, backend, pid } for the process that owns the embedded database; → a remover. */
export function publishEmbeddedAddress (dataDir, { uri, backend }, pid = process.pid) {
  const file = path.join(dataDir, FILE)
  const tmp = `${file}.${pid}.tmp`
  fs.writeFileSync(tmp, JSON.stringify({ uri, backend, pid }) + '\n')
  fs.renameSync(tmp, file) // readers never see half a file
  return () => {
    // only our own record: a later owner's must stay
    if (readEmbeddedAddress(dataDir, { alive: () => true })?.pid === pid) fs.rmSync(file, { force: true })
  }
}

function processAlive (pid) {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return err.code === 'EPERM' // alive, owned by another user
  }
}

/**
 * The address a live owner published, or null (no file, unreadable, or its
 * process has gone: a kill -9 leaves the file behind).
 */
export function readEmbeddedAddress (dataDir, { alive = processAlive } = {}) {
  let record
  try {
    record = JSON.parse(fs.readFileSync(path.join(dataDir, FILE), 'utf8'))
  } catch {
    return null
  }
  if (typeof record?.uri !== 'string' || !/^mongodb:\/\/127\.0\.0\.1:\d+$/.test(record.uri)) return null
  if (!Number.isInteger(record.pid) || !alive(record.pid)) return null
  return record
}
