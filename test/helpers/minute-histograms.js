// A distribution's minute histograms (distributionMinutes: one document per
// metric per UTC hour, `minute.M` → { zero?, positive?, negative? }) for the
// lifecycle's tests: written alone, by the writer's own update, as a flush
// whose other writes were lost (or a retention pass cut short) leaves them.
import { HOUR_MS, hourId } from '../../src/bucket/time.js'
import { writeDistributions } from './distribution-writes.js'

/** Writes only the minute histograms of `events` (the writer's $inc upserts); keepsMinutes as for buildDistributionUnit */
export const writeMinuteHistograms = (db, events, mapping, options = {}) => writeDistributions(db, events, mapping, { ...options, parts: ['minutes'] })

/** The ids of the 24 minute-hour documents a UTC day may have */
export const hourIdsOfDay = (metric, dayStart) => Array.from({ length: 24 }, (_, h) => hourId(metric, dayStart + h * HOUR_MS))
