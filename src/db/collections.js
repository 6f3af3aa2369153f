// The collections of a statbucket database, by name: every kind's
// (kinds/index.js), the registry, the jobs' and Idempotency-Key's. The
// service's plugin and the commands (check, retention) take them from here,
// so all see the same ones.
import { KIND_COLLECTIONS } from '../kinds/index.js'

/** The registry (registry/metric-registry.js) */
export const METRICS_COLLECTION = 'metrics'
/** The jobs' leases and progress (jobs/lease.js) */
export const JOBS_COLLECTION = 'jobs'
/** When each declared rollup began (registry/rollup-records.js) */
export const ROLLUPS_COLLECTION = 'rollups'
/** When each declared distribution threshold began (registry/threshold-records.js) */
export const THRESHOLDS_COLLECTION = 'thresholds'
/** When each declared zone's local days began in a name's month documents (registry/zone-records.js) */
export const ZONES_COLLECTION = 'zones'
/** SLO definitions stored through PUT /v1/slos/:name (slos/stored-slos.js) */
export const SLOS_COLLECTION = 'slos'
/** Idempotency-Key's records (idempotency/idempotency-store.js), used only where transactions work */
export const KEYS_COLLECTION = 'idempotency_keys'

export function collectionsOf (db) {
  const collections = { metrics: db.collection(METRICS_COLLECTION), rollups: db.collection(ROLLUPS_COLLECTION), thresholds: db.collection(THRESHOLDS_COLLECTION), zones: db.collection(ZONES_COLLECTION), slos: db.collection(SLOS_COLLECTION) }
  for (const name of KIND_COLLECTIONS) collections[name] = db.collection(name)
  return collections
}

/**
 * Every collection statbucket creates (db/create-collections.js): the
 * registry, every kind's, the jobs', the rollups', the thresholds', the zones', the SLOs'; Idempotency-Key's only where it is used
 * (`keys`: the deployment has transactions).
 */
export function collectionNames ({ keys }) {
  return [METRICS_COLLECTION, ...KIND_COLLECTIONS, JOBS_COLLECTION, ROLLUPS_COLLECTION, THRESHOLDS_COLLECTION, ZONES_COLLECTION, SLOS_COLLECTION, ...(keys ? [KEYS_COLLECTION] : [])]
}
