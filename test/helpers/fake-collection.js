// A stand-in for a driver collection whose bulkWrite fails on cue.
import { MongoNetworkTimeoutError, MongoServerSelectionError } from 'mongodb'

export function fakeCollection () {
  const calls = []
  const script = [] // functions (ops) => result | throw; consumed one per call
  return {
    calls,
    /** The next bulkWrite runs fn(ops) instead of succeeding */
    next (fn) { script.push(fn) },
    async bulkWrite (ops, options) {
      calls.push({ ops, options })
      const fn = script.shift()
      if (fn) return fn(ops)
      return { ok: 1 }
    }
  }
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
