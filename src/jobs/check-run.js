// The I/O of `npm run check [-- --repair]`: walks monthly documents and the
// daily documents of each month, verifies them (kinds/consistency/), and with
// `repair` applies each fix conditioned on the values it was computed from.
//
// Within a document, one `$inc` from ingest moves every tier at once, so a
// fix that misses its condition was raced by an increment: re-read, recompute,
// retry. Across documents a flush writes `daily` and `monthly` in separate
// writes, so a day that disagrees may be a flush half-way: it is confirmed
// only once both values have held, unchanged, longer than 3 × WRITE_TIMEOUT_MS
// (the latest a flush's write may land, retries included: db/driver-options.js),
// then the difference is `$inc`ed into the monthly document conditioned on the
// value it was computed from.
//
// Every kind's day and month documents (kinds/*.js collections) are walked alike, each with its own verification
// (kinds/consistency/counter.js, distribution.js): a distribution's repair
// only adds what a coarser tier lacks, so what it cannot repair without
// lowering a count is reported and left. Gauges
// alike (kinds/consistency/gauge.js): a repair only raises a count, a sum, a
// bound or `last`. A distribution's minute histograms (its minute-hour documents)
// last (./minute-histogram-check.js): each minute against its daily
// document's minute count, never repaired.
import { setTimeout as sleepFor } from 'node:timers/promises'
import { monthlyDayUnset } from '../kinds/consistency/counter.js'
import { KINDS, KIND_COLLECTIONS } from '../kinds/index.js'
import { DAY_MS, addMonths, dayId, namePrefixIdRange, parseBucketId } from '../bucket/time.js'
import { QUARTER_HOUR_DETAIL } from '../bucket/increments.js'
import { checkMinuteHistograms } from './minute-histogram-check.js'
import { FLUSH_OUTLIVES_TIMEOUTS } from '../db/driver-options.js'

const MAX_RETRIES = 20
const BATCH = 500

// ids escape a series' / and % (bucket/time.js): the range of a name prefix is of its escaped form
const prefixRange = prefix => (prefix ? namePrefixIdRange(prefix) : null)

/**
 * collections: every kind's (db/collections.js); each kind's day and month
 *   documents verified by its descriptor's check rules (kinds/*.js), and a
 *   kind's minute documents (a distribution's histograms) against its day
 *   documents; a kind whose collections are not given is not checked
 * options: repair, prefix (metric name prefix), from / to (ms, days in [from, to)),
 *   rate (documents read per second, Infinity = unlimited), writeTimeoutMs,
 *   settleRounds (times a still-changing cross-document mismatch is watched again),
 *   dailyKeptFrom(metric) → first UTC day (ms) that still has daily documents, null = forever,
 *   minuteKeptFrom(metric) → first UTC day (ms) whose documents ingest writes minutes to, null = forever,
 *   minuteHistogramKeptFrom(metric) → likewise for a distribution's minute histograms (default: minuteKeptFrom)
 *     (an older day's minutes may lack events, so they never lower a total),
 *   clock { now() }, sleep(ms), onViolation(v, state), onProgress(summary)
 * → summary { monthly, daily, violations, repaired, unrepaired, unsettled, documents }
 *   (monthly and daily count every day and month document read, of every kind;
 *   documents: those read per collection, a kind's minute documents included)
 */
export async function runCheck (collections, options) {
  const {
    repair = false, prefix = '', from = null, to = null, rate = Infinity, writeTimeoutMs,
    settleRounds = 3, dailyKeptFrom = () => null, minuteKeptFrom = () => null, minuteHistogramKeptFrom = minuteKeptFrom, clock = { now: () => Date.now() },
    sleep = ms => sleepFor(ms), onViolation = () => {}, onProgress = () => {}
  } = options
  const summary = { monthly: 0, daily: 0, violations: 0, repaired: 0, unrepaired: 0, unsettled: 0, documents: Object.fromEntries(KIND_COLLECTIONS.map(name => [name, 0])) }
  const pending = [] // cross-document mismatches waiting to be confirmed
  const started = clock.now()
  let read = 0

  const report = (violation, state) => {
    summary.violations++
    if (state === 'repaired') summary.repaired++
    else if (state === 'unsettled') summary.unsettled++
    else if (repair) summary.unrepaired++
    onViolation(violation, state)
  }

  async function pace (documents) {
    read += documents
    if (Number.isFinite(rate)) {
      const wait = started + (read * 1000) / rate - clock.now()
      if (wait > 0) await sleep(wait)
    }
  }

  /** Verifies one document and, repairing, fixes it; retries when a concurrent write moved it. */
  async function checkOne (collection, doc, verify) {
    let current = doc
    for (let attempt = 0; ; attempt++) {
      const { violations, repair: fix } = verify(current)
      if (violations.length === 0) return
      if (!repair || !fix) { for (const v of violations) report(v, repair ? 'not repairable' : 'found'); return }
      const { matchedCount } = await collection.updateOne(fix.filter, fix.update)
      // a violation the repair does not clear says so (repairable: false; a distribution's repair never lowers a count)
      if (matchedCount === 1) { for (const v of violations) report(v, v.repairable === false ? 'not repairable' : 'repaired'); return }
      current = await collection.findOne({ _id: doc._id })
      if (!current) return // deleted meanwhile (retention)
      if (attempt >= MAX_RETRIES) { for (const v of verify(current).violations) report(v, 'still changing'); return }
    }
  }

  function dailyFilter (metricPrefixRange, monthStartMs) {
    const filter = {}
    if (metricPrefixRange) filter._id = metricPrefixRange
    const date = {}
    if (from !== null) date.$gte = new Date(Math.max(from, monthStartMs ?? from))
    if (to !== null) date.$lt = new Date(to)
    if (Object.keys(date).length) filter.date = date
    return filter
  }

  // 1. Every monthly document in range, with its month's daily documents. 2. Daily documents whose monthly
  // document does not exist. Kind by kind, each in its own collections by its own rules.
  for (const kind of KINDS) {
    const daily = collections[kind.collections.daily]
    const monthly = collections[kind.collections.monthly]
    // a kind whose collections are not given is not checked (a check of some kinds only)
    if (daily && monthly) await walk({ checks: kind.check, daily, monthly, names: kind.collections })
  }

  // 3. Cross-document mismatches: confirmed once unchanged for longer than a flush may take.
  await settle(pending, { repair, writeTimeoutMs, settleRounds, clock, sleep, report })

  // 4. A kind's minute documents (a distribution's minute histograms) against its daily documents' minutes
  // (after their repairs, which never move a minute): confirmed alike, never repaired
  for (const kind of KINDS) {
    if (!collections[kind.collections.minutes] || !collections[kind.collections.daily]) continue
    await checkMinuteHistograms({ minutes: collections[kind.collections.minutes], daily: collections[kind.collections.daily] }, {
      repair,
      prefix,
      from,
      to,
      writeTimeoutMs,
      settleRounds,
      // the days no read takes a minute histogram from (past MINUTE_HISTOGRAM_DAYS, or past the daily horizon): their totals are not judged
      unreadBefore: metric => {
        const histograms = minuteHistogramKeptFrom(metric)
        const daily = dailyKeptFrom(metric)
        return histograms === null ? daily : daily === null ? histograms : Math.max(histograms, daily)
      },
      clock,
      sleep,
      pace,
      report,
      counted: n => { summary.documents[kind.collections.minutes] += n }
    })
  }
  onProgress(summary)
  return summary

  async function walk (kind) {
    const { checks, daily, monthly } = kind
    const verifyDay = doc => checks.verifyDaily(doc, minutesComplete(doc, minuteKeptFrom))
    const counted = (monthlyDocs, dailyDocs) => {
      summary.monthly += monthlyDocs
      summary.daily += dailyDocs
      summary.documents[kind.names.monthly] += monthlyDocs
      summary.documents[kind.names.daily] += dailyDocs
    }
    const observe = (day) => {
      const mismatch = checks.compareDay(day)
      if (mismatch) pending.push({ ...day, ...mismatch, kind: { ...kind, verifyDay }, since: clock.now() })
    }

    const monthFilter = {}
    if (prefix) monthFilter._id = prefixRange(prefix)
    if (from !== null || to !== null) {
      monthFilter.date = {}
      if (from !== null) monthFilter.date.$gte = new Date(Date.UTC(new Date(from).getUTCFullYear(), new Date(from).getUTCMonth(), 1))
      if (to !== null) monthFilter.date.$lt = new Date(to)
    }
    const months = monthly.find(monthFilter).sort({ _id: 1 }).batchSize(BATCH)
    try {
      for await (const month of months) {
        const parsed = parseBucketId(month._id)
        if (!parsed) continue // not a monthly document's id
        const { metric, date: monthStart } = parsed
        const days = await daily.find({ ...dailyFilter(null, monthStart), _id: { $gte: dayId(metric, monthStart), $lt: dayId(metric, addMonths(monthStart, 1)) } }).toArray()
        counted(1, days.length)
        for (const doc of days) await checkOne(daily, doc, verifyDay)
        await checkOne(monthly, month, checks.verifyMonthly)
        const byDay = new Map(days.map(d => [Number(d._id.slice(-2)), d]))
        const keptFrom = dailyKeptFrom(metric)
        const daysInMonth = (addMonths(monthStart, 1) - monthStart) / DAY_MS
        for (let day = 1; day <= daysInMonth; day++) {
          const dayStart = monthStart + (day - 1) * DAY_MS
          if ((from !== null && dayStart < from) || (to !== null && dayStart >= to)) continue
          const doc = byDay.get(day)
          // past the daily horizon the monthly day is the truth: retention deleted the daily document, and
          // one there now was recreated by a backfilled event and holds only that (docs/adr/0003-retention-deletes-only-days-the-month-holds.md)
          if (keptFrom !== null && dayStart < keptFrom) continue
          observe({ metric, monthStart, monthlyId: month._id, day, dailyId: dayId(metric, monthStart + (day - 1) * DAY_MS), dailyTotal: doc ? checks.dayTotal(doc, verifyDay) : null, monthlyValue: month.daily?.[day] })
        }
        await pace(1 + days.length)
        onProgress(summary)
      }
    } finally {
      await months.close().catch(() => {})
    }

    const orphans = daily.find(dailyFilter(prefix ? prefixRange(prefix) : null), { projection: { _id: 1, metric: 1, date: 1 } }).sort({ _id: 1 }).batchSize(BATCH)
    try {
      let batch = []
      const flush = async () => {
        const ids = [...new Set(batch.map(d => d._id.slice(0, -2)))]
        const found = new Set((await monthly.find({ _id: { $in: ids } }, { projection: { _id: 1 } }).toArray()).map(m => m._id))
        for (const doc of batch) {
          const monthlyId = doc._id.slice(0, -2)
          if (found.has(monthlyId)) continue
          const full = await daily.findOne({ _id: doc._id })
          if (!full) continue
          counted(0, 1)
          await checkOne(daily, full, verifyDay)
          observe({ metric: doc.metric, monthStart: Date.UTC(doc.date.getUTCFullYear(), doc.date.getUTCMonth(), 1), monthlyId, day: doc.date.getUTCDate(), dailyId: doc._id, dailyTotal: checks.dayTotal(full, verifyDay), monthlyValue: undefined })
        }
        await pace(batch.length)
        batch = []
      }
      for await (const doc of orphans) {
        batch.push(doc)
        if (batch.length >= BATCH) await flush()
      }
      if (batch.length) await flush()
    } finally {
      await orphans.close().catch(() => {})
    }
  }
}

/** Whether a daily document's minutes hold every event of its day: no `detail`, and the day inside the minute horizon */
function minutesComplete (doc, minuteKeptFrom) {
  if (doc.detail === QUARTER_HOUR_DETAIL) return false
  const parsed = parseBucketId(doc._id)
  const keptFrom = parsed ? minuteKeptFrom(parsed.metric) : null
  return keptFrom === null || parsed.date >= keptFrom
}

/** pending: mismatches, each with its kind ({ checks, daily, monthly, verifyDay }) */
async function settle (pending, { repair, writeTimeoutMs, settleRounds, clock, sleep, report }) {
  for (let round = 0; pending.length > 0 && round <= settleRounds; round++) {
    const due = Math.max(...pending.map(p => p.since)) + FLUSH_OUTLIVES_TIMEOUTS * writeTimeoutMs + 1
    const wait = due - clock.now()
    if (wait > 0) await sleep(wait)
    const still = []
    for (const p of pending) {
      const { checks, daily, monthly, verifyDay } = p.kind
      const [doc, month] = await Promise.all([
        daily.findOne({ _id: p.dailyId }),
        monthly.findOne({ _id: p.monthlyId }, { projection: { [`daily.${p.day}`]: 1 } })
      ])
      const now = { ...p, dailyTotal: doc ? checks.dayTotal(doc, verifyDay) : null, monthlyValue: month?.daily?.[p.day] }
      const mismatch = checks.compareDay(now)
      if (!mismatch) continue // a flush completed meanwhile
      if (!checks.same(now.dailyTotal, p.dailyTotal) || !checks.same(now.monthlyValue, p.monthlyValue)) {
        still.push({ ...now, ...mismatch, since: clock.now() }) // moved: watch again
        continue
      }
      const fix = mismatch.unset ? null : checks.dayRepair(now, mismatch)
      const repairable = mismatch.unset ? mismatch.difference !== null : fix !== null
      if (!repair || !repairable) { report(mismatch.violation, repair ? 'not repairable' : 'found'); continue }
      if (mismatch.unset) {
        // a day field with no daily document (seen absent just now): unset, conditioned on its value; a daily
        // document that appeared meanwhile (a flush) gets its field back by $inc 0, which moves no count
        const unset = monthlyDayUnset(now)
        const { matchedCount } = await monthly.updateOne(unset.filter, unset.update)
        if (matchedCount === 1 && await daily.countDocuments({ _id: p.dailyId }, { limit: 1 }) > 0) {
          await monthly.updateOne({ _id: p.monthlyId }, { $inc: { [`daily.${p.day}`]: 0 } })
        }
        if (matchedCount === 1) report(mismatch.violation, 'repaired')
        else still.push({ ...now, since: clock.now() })
        continue
      }
      let matched = 0
      try {
        const result = await monthly.updateOne(fix.filter, fix.update, { upsert: now.monthlyValue === undefined })
        matched = result.matchedCount + (result.upsertedCount ?? 0)
      } catch (err) {
        if (err?.code !== 11000) throw err // 11000: the monthly document appeared with that day meanwhile
      }
      if (matched === 1) report(mismatch.violation, 'repaired')
      else still.push({ ...now, since: clock.now() })
    }
    pending.splice(0, pending.length, ...still)
  }
  for (const p of pending) report({ ...p.violation, note: 'still changing under writes: run again when quiet' }, 'unsettled')
}
