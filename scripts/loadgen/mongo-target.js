// Load generator target: MongoDB directly, through statbucket's store code.
// Naive: per event one $inc upsert of its daily and one of its monthly
// document (the talk's writer, with the monthly rollup). --coalesce: the
// group-commit writer. Both preallocate in simulated time (docs/kinds/counter.md#documents).
import { MongoClient } from 'mongodb'
import { eventIncrements, widenSeen } from '../../src/bucket/increments.js'
import { buildWriteUnit } from '../../src/kinds/write-unit.js'
import { dayId, monthId, startOfDay, startOfMonth } from '../../src/bucket/time.js'
import { detectBackend } from '../../src/db/capabilities.js'
import { driverOptions } from '../../src/db/driver-options.js'
import { createWriter } from '../../src/writer/writer.js'
import { incrementUpdate, registryUpdate } from '../../src/writer/write-operations.js'
import { createPreallocator } from '../../src/jobs/preallocator.js'
import { wasNeverSent } from '../../src/writer/write-outcomes.js'
import { LAYOUTS } from './layouts.js'

const WRITE_TIMEOUT_MS = 10_000
const noop = () => {}
const quiet = { debug: noop, info: noop, warn: noop, error: noop, child () { return this } }

/** One upsert per document of the event, in parallel: the naive path */
export async function naiveWrite (collections, event) {
  const { daily, monthly } = eventIncrements(event)
  const d = incrementUpdate(daily.id, { metric: event.metric, date: daily.date, inc: daily.inc }).updateOne
  const m = incrementUpdate(monthly.id, { metric: event.metric, date: monthly.date, inc: monthly.inc }).updateOne
  await Promise.all([
    collections.daily.updateOne(d.filter, d.update, { upsert: true }),
    collections.monthly.updateOne(m.filter, m.update, { upsert: true })
  ])
}

export async function connectMongo (uri) {
  const client = new MongoClient(uri, { ...driverOptions(WRITE_TIMEOUT_MS), appName: 'statbucket-loadgen' })
  await client.connect()
  return client
}

export async function createMongoTarget ({ uri, dbName, layout = LAYOUTS.hierarchical, coalesce, prealloc, random, logger = quiet }) {
  const client = await connectMongo(uri)
  const db = client.db(dbName)
  const backend = await detectBackend(db)
  const collections = { daily: layout.dailyCollection(db), monthly: db.collection('monthly'), metrics: db.collection('metrics') }
  const seen = new Map() // metric → { firstSeen, lastSeen }: the registry, written at the end
  let writer = null
  let preallocator = null
  let clock = null
  let statements = 0
  let writtenEvents = 0
  const errors = []

  function remember (events) {
    for (const { metric, time } of events) widenSeen(seen, metric, time, time)
  }

  return {
    description: `${uri.replace(/\/\/[^@/]*@/, '//…@')} database ${dbName} (${backend}), ${coalesce ? 'coalescing writer' : 'one upsert per document per event'}, layout ${layout.name}, collection ${layout.collection}`,
    layout: layout.name,
    backend,
    begin (simClock) {
      clock = simClock
      preallocator = createPreallocator(collections, { clock, random, probability: prealloc, logger })
      if (coalesce) {
        writer = createWriter(collections, {
          flushIntervalMs: 10,
          flushMaxDocs: 1000,
          maxPendingEvents: 1_000_000,
          writeTimeoutMs: WRITE_TIMEOUT_MS,
          clock,
          logger,
          telemetry: { publish: (name, { statements: n, events }) => { if (name === 'flushed') { statements += n; writtenEvents += events } } }
        })
      }
    },
    async send (batch) {
      const events = batch.map(({ metric, value, ts }) => ({ metric, value, time: ts }))
      let outcome
      if (writer) {
        const answer = await writer.submit(buildWriteUnit(events))
        outcome = answer.outcome === 'applied' ? 'acked' : answer.outcome
        if (outcome !== 'acked' && errors.length < 5) errors.push(answer.reason)
      } else {
        try {
          statements += 2
          await naiveWrite(collections, events[0])
          writtenEvents++
          outcome = 'acked'
        } catch (err) {
          outcome = wasNeverSent(err) ? 'not_applied' : 'unknown'
          if (errors.length < 5) errors.push(err.message)
        }
      }
      if (outcome === 'acked') {
        remember(events)
        preallocator.preallocateDrawn(preallocator.draw(events))
      }
      return { outcome, message: errors.at(-1) }
    },
    /** Ends a phase: flushes the writer, lets queued preallocations finish (bounded), writes the registry */
    async end () {
      await writer?.close()
      writer = null
      await Promise.race([preallocator.idle(), new Promise(resolve => setTimeout(resolve, 10_000).unref())])
      await preallocator.close()
      if (seen.size > 0) {
        const now = clock.now()
        await collections.metrics.bulkWrite([...seen].map(([name, s]) => registryUpdate(name, s, now)), { ordered: false })
        seen.clear()
      }
    },
    /** update statements sent per event written (registry excluded for the naive path) */
    statementsPerEvent: () => (writtenEvents > 0 ? statements / writtenEvents : null),
    errors,
    /** Sums of the metrics' day documents and month documents over [from, to) */
    async totals (metrics, from, to) {
      let daily = 0; let monthly = 0
      const lastDay = startOfDay(to - 1)
      const lastMonth = startOfMonth(to - 1)
      for (const m of metrics) {
        const days = await collections.daily.find({ _id: { $gte: dayId(m, startOfDay(from)), $lte: dayId(m, lastDay) } }, { projection: { daily: 1 } }).toArray()
        for (const d of days) daily += d.daily ?? 0
        const months = await collections.monthly.find({ _id: { $gte: monthId(m, startOfMonth(from)), $lte: monthId(m, lastMonth) } }, { projection: { monthly: 1 } }).toArray()
        for (const d of months) monthly += d.monthly ?? 0
      }
      return { daily, monthly }
    },
    async close () { await client.close() }
  }
}
