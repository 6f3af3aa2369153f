// What the database behind a client can do, told by behaviour (the
// database plugin asks at boot; /readyz reports it).
const noop = () => {}

/**
 * Which server is behind `db`, told by behaviour, not version (the Java
 * server's buildInfo claims 5.0.0). mongo-java-server answers `isMaster` but
 * knows neither `hello` nor `explain`; every mongod/mongos the 6.x driver
 * talks to knows `explain`, and 4.4.2+ knows `hello`. FerretDB answers
 * `hello` too and claims 7.0 (it says its own name in buildInfo's
 * `ferretdbVersion`): what sets it apart, a bulk of updates that never
 * returns, cannot be probed without hanging it (docs/adr/0057-ferretdb.md).
 * @returns {Promise<'mongod' | 'ferretdb' | 'mongo-java-server' | 'unknown'>}
 */
export async function detectBackend (db) {
  const run = (cmd) => db.command(cmd).then(() => null, (err) => err)
  if (!(await run({ hello: 1 }))) {
    const info = await db.command({ buildInfo: 1 }).catch(() => ({}))
    return typeof info.ferretdbVersion === 'string' ? 'ferretdb' : 'mongod'
  }
  if (await run({ isMaster: 1 })) return 'unknown'
  const err = await run({ explain: { count: 'statbucket_probe' } })
  if (!err) return 'mongod'
  return err.code === 59 ? 'mongo-java-server' : 'unknown' // 59: CommandNotFound
}

/**
 * True when multi-document transactions work (replica set or sharded
 * cluster); false on a standalone mongod and on mongo-java-server. The probe
 * inserts into a scratch collection of `db` (the URI's default database unless
 * given) and drops it afterwards.
 */
export async function supportsTransactions (client, db = client.db()) {
  const coll = db.collection('statbucket_txn_probe')
  const session = client.startSession()
  try {
    await session.withTransaction(async () => {
      await coll.insertOne({ probe: true, at: new Date() }, { session })
    })
    await coll.drop().catch(noop)
    return true
  } catch {
    return false
  } finally {
    await session.endSession().catch(noop)
  }
}

const asSent = (operations) => operations

/**
 * How a bulkWrite's updates of one document each (`updateOne`, every filter
 * naming an `_id`, so at most one document matches) are sent to `backend`:
 * as they are, except on FerretDB 1.x, as `updateMany`. FerretDB keeps the
 * read of each `updateOne` of a command open until the whole command ends,
 * each holding a connection of its backend's pool (SQLite: 100 per database,
 * PostgreSQL: 50 per server); the 100th (50th) update of existing documents
 * in one command waits for a connection forever, and every later command
 * needing one with it. `updateMany` reads to the end and lets its connection
 * go (docs/adr/0057-ferretdb.md). Not for a server that retries writes: a
 * multi update is never retried.
 * → (operations) => operations
 */
export function bulkUpdatesFor (backend) {
  if (backend !== 'ferretdb') return asSent
  return (operations) => operations.map(op => op.updateOne ? { updateMany: op.updateOne } : op)
}
