// A lease document (docs/adr/0001-retention-lease-and-rate.md): a job that must
// not run on two instances at once (retention) holds `jobs/{ _id: name }`
// while it runs. Taken with one conditional upsert: the document matches
// when it is free (expired) or already ours; when it is held by another
// owner the filter matches nothing, the upsert tries to insert the same
// _id, and the duplicate key error means "taken".
import { randomUUID } from 'node:crypto'
import { JOBS_COLLECTION } from '../db/collections.js'

export const LEASE_COLLECTION = JOBS_COLLECTION

/**
 * collection: the `jobs` collection; name: the job; clock: { now() };
 * ttlMs: how long a lease lasts without renewal; owner: this holder's id.
 */
export function createLease ({ collection, name, clock, ttlMs, owner = `${process.pid}-${randomUUID()}` }) {
  if (!(ttlMs > 0)) throw new TypeError('createLease: ttlMs must be a positive number')

  /** Takes the lease, or renews it when it is already ours. → true when held now. */
  async function acquire () {
    const now = clock.now()
    try {
      await collection.updateOne(
        { _id: name, $or: [{ owner }, { expiresAt: { $lte: new Date(now) } }] },
        { $set: { owner, expiresAt: new Date(now + ttlMs) } },
        { upsert: true }
      )
      return true
    } catch (err) {
      if (err?.code === 11000) return false // another owner holds an unexpired lease
      throw err
    }
  }

  /** Extends our lease. → false when it is no longer ours (it expired and someone took it). */
  async function renew () {
    const now = clock.now()
    const { matchedCount } = await collection.updateOne(
      { _id: name, owner },
      { $set: { expiresAt: new Date(now + ttlMs) } }
    )
    return matchedCount === 1
  }

  /** Gives the lease up at once (only if still ours), so the next run need not wait for expiry. */
  async function release () {
    await collection.deleteOne({ _id: name, owner })
  }

  /** The lease document as stored, or null */
  function holder () {
    return collection.findOne({ _id: name })
  }

  return { name, owner, ttlMs, acquire, renew, release, holder }
}
