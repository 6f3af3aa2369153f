// The retention job (docs/operations.md#commands, docs/adr/0002-retention-resumes-and-reaches-back.md): per metric
// of the registry, downsample the daily documents more than a day past the
// metric's minute horizon (drop `minute`, keep every coarser tier) and delete
// those older than its daily horizon (their day totals stay in `monthly`).
//
// Idempotent and resumable: every change is conditioned on the state it
// changes (`minute` still there; `daily` still equal to the day total the
// monthly document holds), so a pass killed half-way leaves documents either
// done or untouched and the next pass finds what is left. One pass at a time
// across instances: it holds the `retention` lease, renewed while it runs.
//
// A pass downsamples from where the last complete one stopped, and every
// FULL_SCAN_EVERY_MS (and after a change of settings or of this job's rules)
// it scans every metric from its first day, so documents that appeared
// behind its bound since (old data, a changed rule) are reached too
// (docs/adr/0002-retention-resumes-and-reaches-back.md).
//
// A distribution (registry `kind: 'distribution'`) has its own collections
// and the same rules, with what "holds" means for a histogram
// (docs/kinds/distribution.md#retention-and-the-check): its minutes
// are dropped only where the quarter-hours vouch for them
// (kinds/consistency/distribution.js, minutesVouched), its daily document deleted
// only where `monthly.daily.D` holds the whole day tier (holdsWholeDay), each
// conditioned on the day tier read (count, sum, min, max).
//
// A gauge (registry `kind: 'gauge'`) likewise, in its own collections
// (docs/kinds/gauge.md#retention-and-the-check): its minutes are
// dropped only where each quarter-hour holds what its minutes hold
// (kinds/consistency/gauge.js, gaugeMinutesVouched: count and sum, min, max and
// `last`), its daily document deleted only where `monthly.daily.D` holds the
// whole day tier (holdsWholeGaugeDay), each conditioned on the day tier read.
//
// A distribution's minute histograms (its minute-hour documents, one per
// metric-hour) go with their day's minutes (docs/kinds/distribution.md#retention-and-the-check): after
// the metric's downsampling and deletion, every minute-hour document of a day
// past the later of the two bounds whose daily document holds no minutes (any
// more) is deleted, a batch at a time. Never before its minutes went, so a
// pass cut short leaves orphans, which the next pass's sweep deletes.
import { setTimeout as sleepFor } from 'node:timers/promises'
import { QUARTER_HOUR_DETAIL } from '../bucket/increments.js'
import { dayIdRange, downsampleScanFrom, hourIdRangeBefore, minuteHoursBefore, retentionBounds } from '../bucket/retention-plan.js'
import { monthId, parseBucketId, parseHourId, startOfMonth, utcParts } from '../bucket/time.js'
import { counter } from '../kinds/counter.js'
import { kindNamed } from '../kinds/index.js'
import { stoppableJob } from './single-flight.js'

export const PROGRESS_ID = 'retention.progress'
const DEFAULT_BATCH = 200
export const FULL_SCAN_EVERY_MS = 7 * 86_400_000
// bumped when what a pass does changes: the next pass then scans everything
// (3: distributions are retained too; 4: gauges too; 5: distributions' minute-hour documents too)
const JOB_VERSION = 5
// times a distribution or gauge document that moved under ingest is read and vouched for again in one pass
const MAX_VOUCH_ATTEMPTS = 5
// what a batch reads of a daily document: its day total (a distribution's day tier), or what vouching needs
const DAY_PROJECTION = { _id: 1, daily: 1 }

/**
 * collections: every kind's (db/collections.js), metrics and jobs; each
 *   kind's documents judged by its descriptor's retention rules (kinds/*.js)
 * horizonsFor(metric, nowMs) → { minuteFrom, dailyFrom } (first UTC day kept, ms; null = forever)
 * rulesFingerprint: a string naming the retention settings in force (a
 *   change of settings makes the next pass scan every metric from its first day)
 * lease: createLease(...) for the 'retention' job
 * rate: documents changed per second at most
 * clock: { now() }; sleep(ms, signal): the wait between batches (injected in tests)
 * onProgress({ metrics, downsampled, deleted, kept, unvouched, minuteHoursDeleted, metric }): after each batch (awaited)
 * fullScanEveryMs: how often a pass scans every metric from its first day
 * bulkUpdates(operations): how the server takes a bulk of single-document updates (db/capabilities.js bulkUpdatesFor)
 */
export function createRetentionJob ({ collections, horizonsFor, rulesFingerprint, lease, rate, clock, sleep = defaultSleep, logger, batchSize = DEFAULT_BATCH, onProgress, fullScanEveryMs = FULL_SCAN_EVERY_MS, bulkUpdates = (operations) => operations }) {
  if (!(rate > 0)) throw new TypeError('createRetentionJob: rate must be a positive number')
  const { metrics, jobs } = collections
  // a counter's documents hold numbers in every tier: one update per metric (metricPass)
  const daily = collections[counter.collections.daily]
  const monthly = collections[counter.collections.monthly]
  const batch = Math.max(1, Math.min(batchSize, Math.floor(rate)))

  async function pass () {
    if (!await lease.acquire()) {
      const holder = await lease.holder()
      return { status: 'lease_held', holder: holder && { owner: holder.owner, expiresAt: holder.expiresAt } }
    }
    const now = clock.now()
    // unvouched: distribution and gauge documents whose quarter-hours do not hold what their minutes hold: minutes kept
    // minuteHoursDeleted: a distribution's minute-hour documents deleted with (or after) their day's minutes
    const counts = { metrics: 0, downsampled: 0, deleted: 0, kept: 0, unvouched: 0, minuteHoursDeleted: 0 }
    const pacing = { started: clock.now(), changed: 0, renewedAt: clock.now() }
    let status = 'done'
    let full = false
    try {
      const progress = await jobs.findOne({ _id: PROGRESS_ID })
      const sameRules = progress?.rules === rulesFingerprint && progress?.version === JOB_VERSION
      full = !sameRules || !(progress?.fullScanAt instanceof Date) || now - progress.fullScanAt.getTime() >= fullScanEveryMs
      const previousAt = full ? null : progress.completedAt?.getTime() ?? null
      const cursor = metrics.find({}, { projection: { _id: 1, kind: 1 } }).sort({ _id: 1 })
      try {
        for await (const { _id: metric, kind } of cursor) {
          const descriptor = kindNamed(kind ?? counter.name)
          // a kind this version cannot read: its documents are left alone
          if (descriptor === undefined) continue
          const { daily: day, monthly: month, minutes } = descriptor.collections
          status = descriptor.retention === null
            ? await metricPass(metric, now, previousAt, counts, pacing)
            : await wholeTierPass(collections[day], collections[month], descriptor.retention, metric, now, previousAt, counts, pacing, minutes && collections[minutes])
          if (status !== 'done') break
          counts.metrics++
        }
      } finally {
        await cursor.close().catch(() => {})
      }
      // unvouched documents wait for a person, not for the next pass: the weekly full scan reaches them again
      if (status === 'done') {
        const done = { completedAt: new Date(now), rules: rulesFingerprint, version: JOB_VERSION }
        if (full) done.fullScanAt = new Date(now)
        await jobs.updateOne({ _id: PROGRESS_ID }, { $set: done }, { upsert: true })
      }
    } finally {
      if (status !== 'lease_lost') await lease.release().catch(err => logger.warn({ err }, 'retention lease not released: it expires by itself'))
    }
    return { status, full, ...counts, ms: clock.now() - pacing.started }
  }

  async function metricPass (metric, now, previousAt, counts, pacing) {
    const bounds = retentionBounds(horizonsFor(metric, now))
    if (bounds.downsampleBefore != null) {
      const previousBefore = previousAt == null ? null : retentionBounds(horizonsFor(metric, previousAt)).downsampleBefore
      const from = downsampleScanFrom(bounds.downsampleBefore, previousBefore)
      const range = dayIdRange(metric, from, bounds.downsampleBefore)
      // a document without quarterHourly (a shape no release writes, which the check reports) is left alone:
      // its minutes are the only quarter-hours it has (docs/adr/0048-no-upgrade-paths-before-the-first-release.md)
      const downsampleable = { minute: { $exists: true }, quarterHourly: { $exists: true } }
      const status = await eachBatch(daily, metric, range, downsampleable, DAY_PROJECTION, async ids => {
        const { modifiedCount } = await daily.updateMany(
          { _id: { $in: ids }, ...downsampleable },
          { $unset: { minute: '' }, $set: { detail: 'quarterHour' } }
        )
        counts.downsampled += modifiedCount
        return modifiedCount
      }, counts, pacing)
      if (status !== 'done') return status
    }
    if (bounds.deleteBefore != null) {
      return eachBatch(daily, metric, dayIdRange(metric, null, bounds.deleteBefore), {}, DAY_PROJECTION, async (ids, docs) => {
        const { deletable, unrecorded, kept } = await confirmedInMonthly(docs)
        if (kept.length > 0) {
          counts.kept += kept.length
          logger.warn({ ids: kept }, 'retention keeps daily documents whose day total the monthly document does not hold: run `npm run check -- --repair`')
        }
        // a day of 0 its month never recorded (a preallocation or a flush cut short between the day and the
        // month): record it ($inc by 0 changes no count), so the month still says the day had a document once it is deleted
        if (unrecorded.length > 0) await recordDays(metric, unrecorded)
        deletable.push(...unrecorded.map(({ doc }) => doc))
        if (deletable.length === 0) return 0
        const { deletedCount } = await daily.bulkWrite(
          deletable.map(doc => ({ deleteOne: { filter: { _id: doc._id, daily: doc.daily } } })),
          { ordered: false }
        )
        counts.deleted += deletedCount
        return deletedCount + new Set(unrecorded.map(u => u.month.id)).size // RETENTION_RATE counts the months written too
      }, counts, pacing)
    }
    return 'done'
  }

  /**
   * One distribution's or gauge's documents (docs/kinds/distribution.md#retention-and-the-check, docs/kinds/gauge.md#retention-and-the-check): minutes
   * dropped where the quarter-hours vouch for them, daily documents past the
   * daily horizon deleted where the month holds their whole day tier. Each
   * change is conditioned on the day tier read (rules.guard: count, sum, min,
   * max, and a gauge's last: an ingest into the document moves its count), so
   * a document an ingest moved meanwhile is read and judged again instead.
   */
  async function wholeTierPass (kindDaily, kindMonthly, rules, metric, now, previousAt, counts, pacing, minuteHours = null) {
    if (!kindDaily || !kindMonthly) return 'done'
    const bounds = retentionBounds(horizonsFor(metric, now))
    if (bounds.downsampleBefore != null) {
      const previousBefore = previousAt == null ? null : retentionBounds(horizonsFor(metric, previousAt)).downsampleBefore
      const range = dayIdRange(metric, downsampleScanFrom(bounds.downsampleBefore, previousBefore), bounds.downsampleBefore)
      const withMinutes = { minute: { $exists: true } }
      const status = await eachBatch(kindDaily, metric, range, withMinutes, rules.projection, async (ids, docs) => {
        let changed = 0
        let todo = docs
        for (let attempt = 1; todo.length > 0; attempt++) {
          const vouched = []
          for (const doc of todo) {
            const { vouched: ok, problems } = rules.vouched(doc)
            if (ok) vouched.push(doc)
            else {
              counts.unvouched++
              logger.warn({ id: doc._id, problems: problems.slice(0, 3) }, `retention keeps the minutes of a ${rules.name} document whose quarter-hours do not hold what they hold: run \`npm run check\``)
            }
          }
          if (vouched.length === 0) break
          const { modifiedCount } = await kindDaily.bulkWrite(bulkUpdates(vouched.map(doc => ({
            updateOne: { filter: { ...rules.guard(doc), ...withMinutes }, update: { $unset: { minute: '' }, $set: { detail: QUARTER_HOUR_DETAIL } } }
          }))), { ordered: false })
          changed += modifiedCount
          counts.downsampled += modifiedCount
          if (modifiedCount === vouched.length) break
          // some moved under an ingest since they were read: read them again and judge again
          todo = await kindDaily.find({ _id: { $in: vouched.map(d => d._id) }, ...withMinutes }, { projection: rules.projection }).toArray()
          if (attempt >= MAX_VOUCH_ATTEMPTS && todo.length > 0) {
            counts.unvouched += todo.length
            logger.warn({ ids: todo.map(d => d._id) }, `retention keeps the minutes of ${rules.name} documents still changing under ingest: the next full pass looks again`)
            break
          }
        }
        return changed
      }, counts, pacing)
      if (status !== 'done') return status
    }
    if (bounds.deleteBefore != null) {
      const status = await eachBatch(kindDaily, metric, dayIdRange(metric, null, bounds.deleteBefore), {}, DAY_PROJECTION, async (ids, docs) => {
        const held = await monthDays(kindMonthly, docs)
        const deletable = []
        const kept = []
        for (const doc of docs) (rules.holdsWholeDay(held.get(doc._id), doc.daily) ? deletable : kept).push(doc)
        if (kept.length > 0) {
          counts.kept += kept.length
          logger.warn({ ids: kept.map(d => d._id) }, `retention keeps ${rules.name} daily documents whose whole day tier the monthly document does not hold: run \`npm run check -- --repair\``)
        }
        if (deletable.length === 0) return 0
        const { deletedCount } = await kindDaily.bulkWrite(deletable.map(doc => ({ deleteOne: { filter: rules.guard(doc) } })), { ordered: false })
        counts.deleted += deletedCount
        return deletedCount
      }, counts, pacing)
      if (status !== 'done') return status
    }
    const sweepBefore = minuteHours ? minuteHoursBefore(bounds) : null
    if (sweepBefore != null) return sweepMinuteHours(minuteHours, metric, sweepBefore, counts, pacing)
    return 'done'
  }

  /**
   * Deletes a distribution's minute-hour documents of days before `before`
   * (minuteHoursBefore: past MINUTE_HISTOGRAM_DAYS, never before the minutes'
   * own horizon, or past the daily horizon): no read uses a minute histogram
   * there (a percentile is planned with the histograms' horizon) and ingest
   * writes none, so they go whatever their day document holds. After the
   * downsampling and deletion above, from the metric's first hour each pass,
   * so a pass cut short leaves what the next one finds. An id that is not a
   * minute-hour id is left alone (the check names it).
   */
  function sweepMinuteHours (minuteHours, metric, before, counts, pacing) {
    return eachBatch(minuteHours, metric, hourIdRangeBefore(metric, before), {}, { _id: 1 }, async (ids) => {
      const gone = ids.filter(id => typeof id === 'string' && parseHourId(id)?.metric === metric)
      if (gone.length === 0) return 0
      const { deletedCount } = await minuteHours.deleteMany({ _id: { $in: gone } })
      counts.minuteHoursDeleted += deletedCount
      return deletedCount
    }, counts, pacing)
  }

  /** The `daily.D` of each daily document's month (a Map id → the stored value, absent where the month lacks it), one read per month */
  async function monthDays (collection, docs) {
    const byMonth = new Map()
    for (const doc of docs) {
      const { metric, date } = parseBucketId(doc._id)
      const id = monthId(metric, date)
      const entry = byMonth.get(id) ?? []
      entry.push({ docId: doc._id, day: utcParts(date).day })
      byMonth.set(id, entry)
    }
    const held = new Map()
    for (const [id, days] of byMonth) {
      const projection = Object.fromEntries(days.map(({ day }) => [`daily.${day}`, 1]))
      const month = await collection.findOne({ _id: id }, { projection })
      for (const { docId, day } of days) if (month?.daily?.[day] !== undefined) held.set(docId, month.daily[day])
    }
    return held
  }

  /** Walks the ids of a range of `collection` in batches (by id, so a batch that changed nothing cannot repeat). */
  async function eachBatch (collection, metric, idRange, extraFilter, projection, apply, counts, pacing) {
    let after = null
    for (;;) {
      if (control.stopped()) return 'stopped'
      const range = after == null ? idRange : { ...idRange, $gt: after }
      const docs = await collection.find({ _id: range, ...extraFilter }, { projection })
        .sort({ _id: 1 }).limit(batch).toArray()
      if (docs.length === 0) return 'done'
      after = docs[docs.length - 1]._id
      pacing.changed += await apply(docs.map(d => d._id), docs)
      await onProgress?.({ ...counts, metric })
      const status = await pace(pacing)
      if (status !== 'done') return status
    }
  }

  /** Holds the rate (documents changed per second since the pass began) and keeps the lease. */
  async function pace (pacing) {
    const due = pacing.started + (pacing.changed * 1000) / rate
    const wait = due - clock.now()
    if (wait > 0 && !control.stopped()) await sleep(wait, control.signal)
    if (clock.now() - pacing.renewedAt >= lease.ttlMs / 3) {
      if (!await lease.renew()) {
        logger.warn({ owner: lease.owner }, 'retention lease lost (expired and taken elsewhere): this pass stops')
        return 'lease_lost'
      }
      pacing.renewedAt = clock.now()
    }
    return control.stopped() ? 'stopped' : 'done'
  }

  /**
   * Splits daily documents into those whose total `monthly.daily.D` holds
   * (present and equal: the field exists exactly when the day has a daily
   * document), days of 0 whose month lacks the field (unrecorded: their
   * field is written before the delete), and the rest (kept).
   */
  async function confirmedInMonthly (docs) {
    const monthOf = new Map(docs.map(doc => {
      const { metric, date } = parseBucketId(doc._id)
      return [doc._id, { id: monthId(metric, date), day: utcParts(date).day, start: startOfMonth(date) }]
    }))
    const ids = [...new Set([...monthOf.values()].map(m => m.id))]
    const months = new Map((await monthly.find({ _id: { $in: ids } }, { projection: { daily: 1 } }).toArray()).map(m => [m._id, m]))
    const deletable = []
    const unrecorded = []
    const kept = []
    for (const doc of docs) {
      const month = monthOf.get(doc._id)
      const held = months.get(month.id)?.daily?.[month.day]
      if (held !== undefined && held === (doc.daily ?? 0)) deletable.push(doc)
      else if (held === undefined && (doc.daily ?? 0) === 0) unrecorded.push({ doc, month })
      else kept.push(doc._id)
    }
    return { deletable, unrecorded, kept }
  }

  /** Writes `daily.D` by 0 into each month of `unrecorded` ({ month: { id, day, start } }): one upsert per month */
  async function recordDays (metric, unrecorded) {
    const byMonth = new Map()
    for (const { month } of unrecorded) {
      const entry = byMonth.get(month.id) ?? { start: month.start, inc: { monthly: 0 } }
      entry.inc[`daily.${month.day}`] = 0
      byMonth.set(month.id, entry)
    }
    for (const [id, { start, inc }] of byMonth) {
      const update = { $inc: inc, $setOnInsert: { metric, date: new Date(start) } }
      for (let attempt = 0; ; attempt++) {
        try {
          await monthly.updateOne({ _id: id }, update, { upsert: true })
          break
        } catch (err) {
          // a concurrent upsert of the same new month: it exists now, $inc into it
          if (err?.code !== 11000 || attempt >= 2) throw err
        }
      }
    }
  }

  /** One pass; a call while one runs here waits for it instead of starting another. */
  let control = null // the job's { signal, stopped() }: one AbortController for its lifetime
  return stoppableJob({
    body: (c) => { control = c; return pass() },
    logger,
    done: 'retention pass ended',
    failed: 'retention pass failed',
    failure: err => ({ status: 'failed', error: err.message })
  })
}

function defaultSleep (ms, signal) {
  return sleepFor(ms, undefined, { signal }).catch(() => {})
}
