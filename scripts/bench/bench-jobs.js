// The data-lifecycle jobs' speed: `npm run check` over daily
// documents with minute detail, then one retention pass that downsamples
// half of them and deletes a quarter, in documents per second, on seeded
// data in collections of their own (bench_jobs_*).
import { DAY_MS, dayId, monthId, startOfDay, utcParts } from '../../src/bucket/time.js'
import { createRetentionJob } from '../../src/jobs/retention-job.js'
import { createLease } from '../../src/jobs/lease.js'
import { runCheck } from '../../src/jobs/check-run.js'

const noop = () => {}
const quiet = { info: noop, warn: noop }
const PREFIX = 'bench_jobs_'

/** A daily document with 96 events (one per quarter-hour, at minute 15q + 7) and its tiers */
function dailyDocument (metric, day, seed) {
  const doc = { _id: dayId(metric, day), metric, date: new Date(day), daily: 0, hourly: {}, quarterHourly: {}, minute: {} }
  for (let h = 0; h < 24; h++) {
    doc.hourly[h] = 0; doc.quarterHourly[h] = {}; doc.minute[h] = {}
    for (let q = 0; q < 4; q++) {
      const v = 1 + ((seed + h * 4 + q) % 9)
      doc.minute[h][q * 15 + 7] = v
      doc.quarterHourly[h][q] = v
      doc.hourly[h] += v
      doc.daily += v
    }
  }
  return doc
}

export async function seedJobs (db, { metrics, days, now = Date.now() }) {
  const daily = db.collection(`${PREFIX}daily`)
  const monthly = db.collection(`${PREFIX}monthly`)
  const registry = db.collection(`${PREFIX}metrics`)
  const today = startOfDay(now)
  const names = Array.from({ length: metrics }, (_, i) => `bench.jobs.m${String(i).padStart(4, '0')}`)
  const months = new Map()
  for (const [i, metric] of names.entries()) {
    const docs = []
    for (let back = days; back >= 1; back--) {
      const day = today - back * DAY_MS
      const doc = dailyDocument(metric, day, i + back)
      docs.push(doc)
      const id = monthId(metric, day)
      const m = months.get(id) ?? { _id: id, metric, date: new Date(Date.UTC(utcParts(day).year, utcParts(day).month - 1, 1)), monthly: 0, daily: {} }
      m.monthly += doc.daily
      m.daily[utcParts(day).day] = doc.daily
      months.set(id, m)
    }
    await daily.insertMany(docs, { ordered: false })
  }
  await monthly.insertMany([...months.values()], { ordered: false })
  await registry.insertMany(names.map(_id => ({ _id, firstSeen: new Date(today - days * DAY_MS), lastSeen: new Date(today) })))
  return { collections: { daily, monthly, metrics: registry, jobs: db.collection(`${PREFIX}jobs`) }, dailyDocs: metrics * days, monthlyDocs: months.size, today }
}

export async function benchJobs (db, { metrics, days, log = noop }) {
  const seeded = await seedJobs(db, { metrics, days })
  const { collections, today } = seeded
  log(`  seeded ${seeded.dailyDocs} daily + ${seeded.monthlyDocs} monthly documents`)

  let t0 = performance.now()
  const checked = await runCheck(collections, { writeTimeoutMs: 0 })
  const checkSeconds = (performance.now() - t0) / 1000
  const check = { documents: checked.daily + checked.monthly, violations: checked.violations, seconds: checkSeconds, documentsPerS: (checked.daily + checked.monthly) / checkSeconds }
  log(`  check: ${check.documents} documents in ${checkSeconds.toFixed(2)} s, ${check.violations} violations`)

  const clock = { now: () => today + 12 * 3_600_000 }
  const job = createRetentionJob({
    collections,
    // minute detail kept for the newer half of the days, daily documents for the newer three quarters
    horizonsFor: () => ({ minuteFrom: today - Math.floor(days / 2) * DAY_MS, dailyFrom: today - Math.floor(days * 3 / 4) * DAY_MS }),
    rulesFingerprint: 'bench',
    lease: createLease({ collection: collections.jobs, name: 'retention', clock, ttlMs: 3_600_000 }),
    rate: 1e9, // unthrottled: the figure is what the database allows
    clock,
    logger: quiet
  })
  t0 = performance.now()
  const pass = await job.runOnce()
  const seconds = (performance.now() - t0) / 1000
  const changed = pass.downsampled + pass.deleted
  const retention = { status: pass.status, downsampled: pass.downsampled, deleted: pass.deleted, seconds, documentsPerS: changed / seconds }
  log(`  retention: ${pass.downsampled} downsampled + ${pass.deleted} deleted in ${seconds.toFixed(2)} s`)

  for (const c of Object.values(collections)) await c.drop().catch(() => {})
  return { metrics, days, dailyDocs: seeded.dailyDocs, monthlyDocs: seeded.monthlyDocs, check, retention }
}
