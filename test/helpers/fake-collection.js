// A stand-in for a driver collection whose bulkWrite fails on cue.
// updateOne is a bulkWrite of its one operation, failing as the driver's
// updateOne does (asUpdateOneError).
import { MongoNetworkTimeoutError, MongoServerError, MongoServerSelectionError } from 'mongodb'

export function fakeCollection () {
  const calls = []
  const script = [] // functions (ops) => result | throw; consumed one per call
  async function bulkWrite (ops, options) {
    calls.push({ ops, options })
    const fn = script.shift()
    // a scripted call that returns nothing (a gate) succeeds as the driver's result of upserts that each inserted a document
    return (fn ? await fn(ops) : undefined) ?? { ok: 1, matchedCount: 0, upsertedCount: ops.length }
  }
  return {
    calls,
    /** The next bulkWrite (or updateOne) runs fn(ops): its result (nothing: success), or its throw */
    next (fn) { script.push(fn) },
    bulkWrite,
    async updateOne (filter, update, { upsert, ...options } = {}) {
      try {
        return await bulkWrite([{ updateOne: { filter, update, upsert } }], options)
      } catch (err) {
        throw asUpdateOneError(err)
      }
    }
  }
}

/**
 * A failure scripted in bulkWrite's shape as the driver's updateOne raises
 * it: its write error as a MongoServerError (operations/update.js handleOk),
 * the cause of a bulk failure with no write error itself
 */
export function asUpdateOneError (err) {
  if (err?.name !== 'MongoBulkWriteError') return err
  const [writeError] = [].concat(err.writeErrors ?? [])
  if (writeError) return new MongoServerError(writeError)
  return err.errorResponse instanceof Error ? err.errorResponse : err
}

export function writeErrors (...entries) {
  return Object.assign(new Error('write failed'), {
    name: 'MongoBulkWriteError',
    writeErrors: entries.map(([index, code]) => ({ index, code, errmsg: `code ${code}` })),
    result: { getWriteConcernError: () => undefined }
  })
}

export const serverSelectionError = () => new MongoServerSelectionError('server selection timed out', {})
export const networkTimeout = () => new MongoNetworkTimeoutError('socket timed out')

export function deferred () {
  return Promise.withResolvers ? Promise.withResolvers() : legacyResolvers()
}

function legacyResolvers () {
  const out = {}
  out.promise = new Promise((resolve, reject) => Object.assign(out, { resolve, reject }))
  return out
}
