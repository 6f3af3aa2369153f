// What the database behind a client can do, told by behaviour (the
// database plugin asks at boot; /readyz reports it).
const noop = () => {}

/**
 * Which server is behind `db`, told by behaviour, not version (the Java
 * server's buildInfo claims 5.0.0). mongo-java-server answers `isMaster` but
 * knows neither `hello` nor `explain`; every mongod/mongos the 6.x driver
 * talks to knows `explain`, and 4.4.2+ knows `hello`.
 * @returns {Promise<'mongod' | 'mongo-java-server' | 'unknown'>}
 */
export async function detectBackend (db) {
  const run = (cmd) => db.command(cmd).then(() => null, (err) => err)
  if (!(await run({ hello: 1 }))) return 'mongod'
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
