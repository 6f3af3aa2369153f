// An in-memory stand-in for a replica set's collections and sessions, just
// enough for the writer's keyed (transactional) flush: bulkWrite (and updateOne) of upserts
// with $inc / $setOnInsert / $min / $max, insertMany with a unique _id,
// findOne / find({ _id: { $in } }), and transactions whose writes become
// visible only on commit. Faults are injected per step with failNext().
import { MongoNetworkError, MongoServerError } from 'mongodb'
import { asUpdateOneError } from './fake-collection.js'

function setPath (doc, path, fn) {
  const parts = path.split('.')
  let node = doc
  for (const p of parts.slice(0, -1)) node = node[p] ??= {}
  const last = parts.at(-1)
  node[last] = fn(node[last])
}

function applyUpdate (doc, update, inserted) {
  for (const [path, v] of Object.entries(update.$inc ?? {})) setPath(doc, path, old => (old ?? 0) + v)
  for (const [path, v] of Object.entries(update.$min ?? {})) setPath(doc, path, old => (old === undefined || v < old ? v : old))
  for (const [path, v] of Object.entries(update.$max ?? {})) setPath(doc, path, old => (old === undefined || v > old ? v : old))
  if (inserted) for (const [path, v] of Object.entries(update.$setOnInsert ?? {})) setPath(doc, path, () => v)
}

export const errors = {
  duplicateKey: () => new MongoServerError({ message: 'E11000 duplicate key', code: 11000 }),
  writeConflict: () => new MongoServerError({ message: 'WriteConflict', code: 112, errorLabels: ['TransientTransactionError'] }),
  network: () => new MongoNetworkError('connection reset'),
  unknownCommit: () => {
    const err = new MongoNetworkError('connection reset during commit')
    err.addErrorLabel('UnknownTransactionCommitResult')
    return err
  }
}

export function fakeTransactionalDb () {
  const data = new Map() // collection name → Map<_id, doc>
  const script = [] // [{ step, fn }] consumed in order of matching step
  const calls = []
  const table = name => data.get(name) ?? data.set(name, new Map()).get(name)

  /**
   * The next time `step` ('insertMany' | 'bulkWrite:<coll>' | 'commit' | 'beforeCommit') runs, fn(ctx) runs first; it may
   * throw, or return { reply } for insertMany or bulkWrite to answer instead of its counts (the writes are made all the same)
   */
  function failNext (step, fn) { script.push({ step, fn }) }
  async function hook (step, ctx) {
    calls.push(step)
    const i = script.findIndex(s => s.step === step)
    if (i === -1) return
    const [{ fn }] = script.splice(i, 1)
    return await fn(ctx)
  }

  function collection (name) {
    return {
      collectionName: name,
      db: { command: async () => ({ ok: 1 }) },
      async createIndex () { return 'ttl' },
      async findOne (filter) {
        const doc = table(name).get(filter._id)
        return doc ? structuredClone(doc) : null
      },
      find (filter) {
        const ids = filter._id?.$in
        return {
          toArray: async () => [...table(name).values()].filter(d => !ids || ids.includes(d._id)).map(d => structuredClone(d))
        }
      },
      async insertMany (docs, { session } = {}) {
        const scripted = await hook('insertMany', { docs })
        const staged = session?.tx ?? null
        for (const doc of docs) {
          if (table(name).has(doc._id) || staged?.inserted.has(`${name}\0${doc._id}`)) throw errors.duplicateKey()
          const write = () => table(name).set(doc._id, structuredClone(doc))
          if (staged) { staged.inserted.add(`${name}\0${doc._id}`); staged.writes.push(write) } else write()
        }
        return scripted?.reply ?? { insertedCount: docs.length }
      },
      // the plain flush's lone update: the same step as a bulkWrite of it, failing as the driver's updateOne does
      async updateOne (filter, update, { upsert, ...options } = {}) {
        try {
          return await this.bulkWrite([{ updateOne: { filter, update, upsert } }], options)
        } catch (err) {
          throw asUpdateOneError(err)
        }
      },
      async bulkWrite (ops, { session } = {}) {
        const scripted = await hook('bulkWrite:' + name, { ops })
        const staged = session?.tx ?? null
        let matchedCount = 0
        for (const { updateOne } of ops) {
          // counted as the server counts it when it applies the statement (in a transaction: as staged)
          if (table(name).has(updateOne.filter._id)) matchedCount++
          const write = () => {
            const existing = table(name).get(updateOne.filter._id)
            const doc = existing ?? { _id: updateOne.filter._id }
            applyUpdate(doc, updateOne.update, !existing)
            table(name).set(doc._id, doc)
          }
          if (staged) staged.writes.push(write); else write()
        }
        return scripted?.reply ?? { ok: 1, matchedCount, upsertedCount: ops.length - matchedCount }
      }
    }
  }

  const client = {
    startSession () {
      const session = {
        tx: null,
        startTransaction () { session.tx = { writes: [], inserted: new Set(), committed: false } },
        async commitTransaction () {
          await hook('beforeCommit', { session })
          if (!session.tx) throw new MongoServerError({ message: 'NoSuchTransaction', code: 251, errorLabels: ['TransientTransactionError'] })
          if (!session.tx.committed) {
            for (const w of session.tx.writes) w()
            session.tx.committed = true
          }
          // a fault here: committed, and the acknowledgment lost
          await hook('commit', { session })
        },
        async abortTransaction () {
          if (session.tx?.committed) throw new Error('abort after commit')
          session.tx = null
        },
        async endSession () {}
      }
      return session
    }
  }

  return {
    client,
    collection,
    data,
    calls,
    failNext,
    docs: name => [...table(name).values()]
  }
}
