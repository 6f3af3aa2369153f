// Idempotency-Key on POST /v1/events (exactly once across retries).
//
// A keyed request is flushed in a transaction that also inserts its key
// (idempotency-flush.js), so a key exists exactly when its request was
// applied. A retry finds the key and gets the first answer; a retry of a
// request that was not applied finds none and is applied. Keys live in
// `idempotency_keys`, removed by a TTL index IDEMPOTENCY_TTL seconds after
// they were recorded. Needs transactions (replica set, sharded cluster): the
// route answers 400 to a key elsewhere.
import { createHash } from 'node:crypto'
import { KEY_IN_FLIGHT, KEY_RECORDED, KEY_REUSED, NOT_APPLIED, REPLAYED } from '../writer/write-outcomes.js'
import { KEYS_COLLECTION } from '../db/collections.js'

export const KEY_COLLECTION = KEYS_COLLECTION
/** JSON with object keys sorted, so that key order does not change a body's hash */
function canonicalJson (value) {
  if (Array.isArray(value)) return '[' + value.map(canonicalJson).join(',') + ']'
  if (value !== null && typeof value === 'object') {
    return '{' + Object.keys(value).sort().map(k => JSON.stringify(k) + ':' + canonicalJson(value[k])).join(',') + '}'
  }
  return JSON.stringify(value)
}

/** SHA-256 (hex) of a parsed body: a reused key with another body is told apart by it */
export function bodyHash (body) {
  return createHash('sha256').update(canonicalJson(body)).digest('hex')
}

/** A key's _id: scoped by who sent it (a token's identity), so clients never share keys */
export function keyId (scope, key) {
  return `${scope ?? 'open'}:${key}`
}

/** The document a transaction inserts for an applied request */
export function keyRecord ({ id, hash, answer }, now) {
  return { _id: id, hash, status: 200, body: answer, createdAt: new Date(now) }
}

/**
 * collection: the key collection; writer: the writer (writer.js);
 * ttlSeconds: IDEMPOTENCY_TTL.
 */
export function createIdempotencyStore ({ collection, writer, ttlSeconds }) {
  const inFlight = new Set() // ids of keyed requests this instance is working on

  function replayOrReused (record, hash) {
    if (record.hash !== hash) return { outcome: KEY_REUSED }
    return { outcome: REPLAYED, body: record.body }
  }

  return {
    collection,

    /** Creates the TTL index, or changes its expireAfterSeconds to ttlSeconds. */
    async ensureIndexes () {
      try {
        await collection.createIndex({ createdAt: 1 }, { name: 'ttl', expireAfterSeconds: ttlSeconds })
      } catch (err) {
        if (err?.code !== 85 && err?.code !== 86) throw err // IndexOptionsConflict, IndexKeySpecsConflict
        await collection.db.command({ collMod: collection.collectionName, index: { name: 'ttl', expireAfterSeconds: ttlSeconds } })
      }
    },

    /**
     * Submits `unit` once for key `id`. → one of
     *   { outcome: REPLAYED, body }   the key was recorded: the first answer
     *   { outcome: KEY_IN_FLIGHT }    a request with this key is in flight
     *   { outcome: KEY_REUSED }       the key was recorded with another body
     *   the writer's answer ({ outcome: APPLIED | 'not_applied' | 'unknown', reason })
     * Throws database errors of the lookups (nothing was applied then).
     */
    async submitOnce ({ id, hash, unit, answer }) {
      const recorded = await collection.findOne({ _id: id })
      if (recorded) return replayOrReused(recorded, hash)
      if (inFlight.has(id)) return { outcome: KEY_IN_FLIGHT }
      inFlight.add(id)
      const result = await writer.submit({ ...unit, idempotency: { id, hash, answer }, settled: () => inFlight.delete(id) })
      if (result.outcome !== KEY_RECORDED) return result
      // Another instance recorded the key while this one tried: its answer stands.
      const now = await collection.findOne({ _id: id })
      if (now) return replayOrReused(now, hash)
      return { outcome: NOT_APPLIED, reason: 'the key was being recorded by another request; retry' }
    },

    inFlightCount: () => inFlight.size
  }
}
