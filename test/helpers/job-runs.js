// What the tests of the jobs share: a retention job and a `check` run over a
// test database's collections, as the tests drive them — the clock injected,
// every sleep advancing it — and a property run's `check` and fresh start
// over the real app.
import { expect } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { dailyKeptFromFor, minuteKeptFromFor } from '../../src/bucket/retention-horizons.js'
import { runCheck } from '../../src/jobs/check-run.js'
import { LEASE_COLLECTION, createLease } from '../../src/jobs/lease.js'
import { createRetentionJob } from '../../src/jobs/retention-job.js'

const DAY = 86_400_000
const silent = { info () {}, warn () {} }

/** db's collections of these names, by name (the lease's as `jobs`, as the jobs take it) */
export const collectionsOf = (db, names) => Object.fromEntries(names.map(name => [name === LEASE_COLLECTION ? 'jobs' : name, db.collection(name)]))

// horizons as counts of days kept, by a metric's first name part ('*': any other): minute detail from
// today − minuteDays, daily documents from today − dailyDays (null: kept forever)
export const horizons = rules => (metric, now) => {
  const rule = rules[metric.split('.')[0]] ?? rules['*']
  const today = now - (now % DAY)
  return {
    minuteFrom: rule.minuteDays == null ? null : today - rule.minuteDays * DAY,
    dailyFrom: rule.dailyDays == null ? null : today - rule.dailyDays * DAY
  }
}

/**
 * A retention job over db's collections `names` (collections: some replaced,
 * without: some left out), with horizons by days kept (rules), the lease
 * 'retention' held by owner, `rate` documents a second, batches of 5, a
 * silent logger and a sleep that advances the clock; any other option is
 * the job's own. → the job, with its clock, lease and sleeps (ms, in order)
 */
export function retentionJob (db, names, {
  rules = { '*': { minuteDays: 10, dailyDays: null } }, clock, collections = {}, without = [], owner = 'test', rate = 10_000,
  fingerprint = 'v1', horizonsFor = horizons(rules), ...rest
} = {}) {
  const all = { ...collectionsOf(db, names), ...collections }
  for (const name of without) delete all[name]
  const lease = createLease({ collection: all.jobs, name: 'retention', clock, ttlMs: 60_000, owner })
  const sleeps = []
  const sleep = async ms => { sleeps.push(ms); clock.advance(ms) }
  const job = createRetentionJob({ collections: all, horizonsFor, rulesFingerprint: fingerprint, lease, rate, clock, sleep, logger: silent, batchSize: 5, ...rest })
  return Object.assign(job, { sleeps, clock, lease })
}

/**
 * `check` over `collections` with the clock at `now`, WRITE_TIMEOUT_MS 1 s,
 * every violation collected with its state, and a sleep that advances the
 * clock, then awaits options.onSleep(how many sleeps so far).
 * → { summary, found, sleeps }
 */
export function checkRun (collections, now, options = {}) {
  const clock = manualClock(now)
  const found = []
  const sleeps = []
  return runCheck(collections, {
    writeTimeoutMs: 1000,
    clock,
    onViolation: (v, state) => found.push({ ...v, state }),
    ...options,
    sleep: async ms => { sleeps.push(ms); clock.advance(ms); await options.onSleep?.(sleeps.length) }
  }).then(summary => ({ summary, found, sleeps }))
}

/**
 * `check` of the app's collections within the horizons its configuration
 * sets at the clock's now, a confirmed mismatch after 1 ms (real timers);
 * options (repair, …) are the check's. → its summary
 */
export function checkApp (app, clock, options = {}) {
  const now = clock.now()
  return runCheck(app.collections, {
    writeTimeoutMs: 1,
    sleep: ms => new Promise(resolve => setTimeout(resolve, ms)),
    dailyKeptFrom: dailyKeptFromFor(app.config, now),
    minuteKeptFrom: minuteKeptFromFor(app.config, now),
    ...options
  })
}

/** A property run's own start: the collections emptied, the metrics forgotten by the registry and the writer, the clock at `at` */
export async function freshRun (app, clock, { collections, metrics, at }) {
  for (const name of collections) await app.mongo.db.collection(name).deleteMany({})
  for (const metric of metrics) { app.registry.forget(metric); app.writer.forgetRegistryEntry(metric) }
  clock.set(at)
}

/** GET `url` of the app: 200 (else the body says why), its JSON */
export async function getJson (app, url) {
  const res = await app.inject(url)
  expect(res.statusCode, `${url}: ${res.body}`).toBe(200)
  return res.json()
}
