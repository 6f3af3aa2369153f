// Sends one flush: one unordered bulkWrite per collection, in parallel, and
// retries exactly the operations that failed definitely with a retryable
// code, a bounded number of times.
import { APPLIED, NOT_APPLIED, UNKNOWN, classifyBulkWriteError } from './write-outcomes.js'

/** The update of a document's increments: upsert, $inc, metric/date on insert */
export function incrementUpdate (id, { metric, date, inc }) {
  return {
    updateOne: {
      filter: { _id: id },
      update: { $inc: inc, $setOnInsert: { metric, date: new Date(date) } },
      upsert: true
    }
  }
}

export function registryUpdate (name, { firstSeen, lastSeen }, now) {
  return {
    updateOne: {
      filter: { _id: name },
      update: { $min: { firstSeen: new Date(firstSeen) }, $max: { lastSeen: new Date(lastSeen), lastWrite: new Date(now) } },
      upsert: true
    }
  }
}

/**
 * Sends `operations` (keyed by `keys`) to `collection`, retrying definite
 * retryable failures up to maxRetries times. Resolves (never rejects) to
 * { outcomes: Map<key, outcome>, statements, retries }.
 */
export async function bulkWriteWithRetries (collection, keys, operations, { maxRetries = 3, writeOptions = {}, writesRetried = false, deadline = Infinity } = {}) {
  const outcomes = new Map()
  let pendingKeys = keys
  let pendingOps = operations
  let statements = 0
  let retries = 0
  let error = null
  for (let attempt = 0; pendingOps.length > 0; attempt++) {
    statements += pendingOps.length
    try {
      await collection.bulkWrite(pendingOps, { ordered: false, ...writeOptions })
      for (const key of pendingKeys) outcomes.set(key, APPLIED)
      break
    } catch (err) {
      const { outcomes: result, retry } = classifyBulkWriteError(err, pendingOps.length, { writesRetried })
      pendingKeys.forEach((key, i) => outcomes.set(key, result[i]))
      if (retry.length === 0 || attempt >= maxRetries || performance.now() >= deadline) {
        error = err
        break
      }
      retries += retry.length
      pendingKeys = retry.map(i => pendingKeys[i])
      pendingOps = retry.map(i => pendingOps[i])
    }
  }
  return { outcomes, statements, retries, error }
}

/**
 * Writes a merged flush (see mergeWriteUnits) to the three collections in
 * parallel. → { outcomes: Map<'d:'|'m:'|'r:' + id, outcome>, statements, retries, errors }
 */
export async function executeFlush (merged, collections, { now, maxRetries, writeOptions, writesRetried, deadline } = {}) {
  const parts = [
    ['d:', collections.daily, merged.daily, incrementUpdate],
    ['m:', collections.monthly, merged.monthly, incrementUpdate],
    ['r:', collections.metrics, merged.metrics, (name, seen) => registryUpdate(name, seen, now)]
  ]
  const results = await Promise.all(parts.map(([prefix, collection, docs, toOperation]) => {
    if (docs.size === 0) return { outcomes: new Map(), statements: 0, retries: 0 }
    const keys = []
    const operations = []
    for (const [id, doc] of docs) {
      keys.push(prefix + id)
      operations.push(toOperation(id, doc))
    }
    return bulkWriteWithRetries(collection, keys, operations, { maxRetries, writeOptions, writesRetried, deadline })
  }))
  const outcomes = new Map()
  let statements = 0
  let retries = 0
  const errors = []
  for (const r of results) {
    for (const [k, v] of r.outcomes) outcomes.set(k, v)
    statements += r.statements
    retries += r.retries
    if (r.error) errors.push(r.error)
  }
  return { outcomes, statements, retries, errors }
}

export { APPLIED, NOT_APPLIED, UNKNOWN }
