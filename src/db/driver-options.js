// The MongoDB driver's options for a writing client: the database plugin's
// and the load generator's (scripts/loadgen/mongo-target.js).

/**
 * Driver timeouts chosen so that one attempt of a flush ends within
 * WRITE_TIMEOUT_MS: server selection and connecting take at most 25 % of it
 * each and a sent operation at most 50 %. The writer stops retrying at the
 * same deadline and its watchdog answers `unknown` then for whatever is still
 * running; on a replica set the driver may retry a write once more itself,
 * which can keep the flush slot (not the answers) up to one more attempt.
 */
export function driverOptions (writeTimeoutMs) {
  return {
    serverSelectionTimeoutMS: Math.max(100, Math.floor(writeTimeoutMs * 0.25)),
    connectTimeoutMS: Math.max(100, Math.floor(writeTimeoutMs * 0.25)),
    socketTimeoutMS: Math.max(200, Math.floor(writeTimeoutMs * 0.5)),
    appName: 'statbucket'
  }
}

/**
 * How many WRITE_TIMEOUT_MS a flush's write may still land after the flush
 * began: its last attempt may start just before the writer's deadline (one),
 * take server selection, connecting and the operation (one more, as above),
 * and be retried once by the driver (one more). The check confirms a
 * mismatch between two documents a flush writes apart only once it held
 * unchanged that long: a repair made sooner could meet the write it lacked
 * landing after it (jobs/check-run.js, jobs/minute-histogram-check.js).
 */
export const FLUSH_OUTLIVES_TIMEOUTS = 3
