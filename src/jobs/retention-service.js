// Builds the retention job on a database: the same for the service (the
// `retention` plugin) and `npm run retention -- --once`, so both read the
// same settings and take the same lease.
import { horizonsFor, rulesFingerprint } from '../bucket/retention-horizons.js'
import { LEASE_COLLECTION, createLease } from './lease.js'
import { createRetentionJob } from './retention-job.js'

export const RETENTION_LEASE = 'retention'
// Renewed every third of it while a pass runs; a holder that died frees it within this long.
export const RETENTION_LEASE_MS = 60_000

/**
 * db: a driver Db; collections: every kind's and metrics (db/collections.js); config: loadConfig() result;
 * bulkUpdates: how the server takes single-document updates (db/capabilities.js bulkUpdatesFor)
 */
export function createRetentionForDb ({ db, collections, config, clock, logger, sleep, onProgress, bulkUpdates, leaseMs = RETENTION_LEASE_MS, owner }) {
  const jobs = db.collection(LEASE_COLLECTION)
  const lease = createLease({ collection: jobs, name: RETENTION_LEASE, clock, ttlMs: leaseMs, owner })
  return createRetentionJob({
    collections: { ...collections, jobs },
    horizonsFor: horizonsFor(config),
    rulesFingerprint: rulesFingerprint(config),
    lease,
    rate: config.retentionRate,
    clock,
    sleep,
    logger,
    onProgress,
    bulkUpdates
  })
}
