// Property: a gauge's `last` does not depend on the order its levels arrive
// in, nor on how they are cut into requests and flushes — in the documents
// as MongoDB's { $inc, $min, $max } leave them (in memory, with BSON's order
// of { t, v }, and on the suite's database itself) — and a gauge read over
// any range answers what the raw levels say: count, min, max and last exact,
// sum and mean within float rounding, with the counters' null and 0, over
// minutes, quarter-hours, whole days and whole months in UTC and local hours
// and days in Asia/Kathmandu (+05:45).
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { seededRandom } from '../../scripts/shared/workload.js'
import { buildGaugeUnit } from '../../src/bucket/gauge-increments.js'
import { evaluateGaugePlan, gaugeStatValue } from '../../src/bucket/gauge-stats.js'
import { parseStat } from '../../src/bucket/distribution-stats.js'
import { localSeriesValues, planLocalSeries } from '../../src/bucket/local-plans.js'
import { evaluatePlan, planRanges } from '../../src/bucket/range-plan.js'
import { timeZone } from '../../src/bucket/time-zone.js'
import { addMonths, startOfMonth } from '../../src/bucket/time.js'
import { gaugeUpdate } from '../../src/writer/write-operations.js'
import { directDb, uniqueDbName } from '../helpers/test-app.js'
import { gaugeDocumentsOf } from '../helpers/gauge-documents.js'
import { documentsOf } from '../helpers/documents.js'

const MIN = 60_000
const QUARTER = 15 * MIN
const DAY = 86_400_000
const START = Date.UTC(2026, 0, 28)
const STATS = Object.fromEntries(['last', 'min', 'max', 'mean', 'count', 'sum'].map(s => [s, parseStat(s).stat]))

// levels at few distinct times around a month's end: equal times are common, so ties decide last often
const level = fc.oneof(fc.integer({ min: -50, max: 50 }), fc.constantFrom(0, -0, 1e15, -1e15, 7, 7))
const timeOf = fc.oneof(
  fc.integer({ min: 0, max: 5 }).map(i => START + 3 * DAY + 59_000 + i * 500), // six instants in one minute of Jan 31st
  fc.integer({ min: 0, max: 5 * DAY - 1 }).map(ms => START + ms)
)
const event = fc.record({ metric: fc.constantFrom('g', 'h'), value: level, time: timeOf })

/** A permutation of `list` and cuts of it into batches, from a seed */
function shuffledBatches (list, seed, batches) {
  let s = seed >>> 0
  const next = () => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return s }
  const out = [...list]
  for (let i = out.length - 1; i > 0; i--) {
    const j = next() % (i + 1);
    [out[i], out[j]] = [out[j], out[i]]
  }
  const cuts = Array.from({ length: batches }, () => next() % (out.length + 1)).sort((a, b) => a - b)
  const edges = [0, ...cuts, out.length]
  return edges.slice(1).map((end, i) => out.slice(edges[i], end))
}

const byId = (docs) => Object.fromEntries([...docs.daily, ...docs.monthly].sort((a, b) => (a._id < b._id ? -1 : 1)).map(d => [d._id, d]))

/** Documents with every tier's sum set to 0, and those sums in document order: { docs, sums } */
function withoutSums (docs) {
  const sums = []
  const walk = (node) => {
    if (node === null || typeof node !== 'object' || node instanceof Date) return node
    const out = {}
    for (const [k, v] of Object.entries(node)) {
      if (k === 'sum' && typeof v === 'number') { sums.push(v); out[k] = 0 } else out[k] = walk(v)
    }
    return out
  }
  return { docs: walk(docs), sums }
}

describe('last is order-independent', () => {
  it('in memory: documents written in any order and any batches equal those written in time order', () => {
    fc.assert(fc.property(fc.array(event, { minLength: 1, maxLength: 150 }), fc.integer(), fc.integer({ min: 0, max: 6 }), (events, seed, cuts) => {
      const inOrder = [...events].sort((a, b) => a.time - b.time || a.value - b.value)
      const expected = withoutSums(byId(gaugeDocumentsOf(inOrder, { batch: 1 })))
      const written = withoutSums(byId(gaugeDocumentsOf(events, { batches: shuffledBatches(events, seed, cuts) })))
      expect(written.docs).toEqual(expected.docs)
      // sums added in another order differ by rounding only (levels up to 1e15: past 2^53 they round)
      const magnitude = events.reduce((m, e) => m + Math.abs(e.value), 0)
      written.sums.forEach((sum, i) => expect(Math.abs(sum - expected.sums[i])).toBeLessThanOrEqual(Number.EPSILON * magnitude * events.length))
    }), { numRuns: 300 })
  })

  describe('on the suite\'s database (mongo-java-server or mongod): $max on { t, v } keeps the latest (t, v) whatever the order of the updates', () => {
    let client, db
    beforeAll(async () => { ({ client, db } = await directDb(uniqueDbName('gaugeprop'))) })
    afterAll(async () => { await db?.dropDatabase().catch(() => {}); await client?.close() })

    it('the same levels in two orders and batchings leave equal documents', async () => {
      let run = 0
      await fc.assert(fc.asyncProperty(fc.array(event, { minLength: 1, maxLength: 60 }), fc.integer(), fc.integer({ min: 1, max: 5 }), async (events, seed, cuts) => {
        run++
        const write = async (name, batches) => {
          const collection = db.collection(`${name}${run}`)
          for (const batch of batches) {
            if (batch.length === 0) continue
            const unit = buildGaugeUnit(batch)
            await collection.bulkWrite([...unit.daily].map(([id, doc]) => gaugeUpdate(id, doc)), { ordered: false })
          }
          return collection.find({}).sort({ _id: 1 }).toArray()
        }
        // integer levels and one ±1e15 at most per tier keep sums exact in any order
        const exactEvents = events.filter(e => Math.abs(e.value) < 1e15)
        if (exactEvents.length === 0) return
        const a = await write('a', [[...exactEvents].sort((x, y) => x.time - y.time)])
        const b = await write('b', shuffledBatches(exactEvents, seed, cuts))
        expect(b).toEqual(a)
      }), { numRuns: 25 })
    })
  })
})

describe('gauge reads answer what the raw levels say', () => {
  const random = seededRandom(2026)
  const events = Array.from({ length: 4000 }, () => ({ metric: 'g', value: Math.round((random() * 300 - 100) * 2) / 2 + 0, time: START + Math.floor(random() * 20 * DAY / 1000) * 1000 }))
  // a quiet week: no level (null as a day, 0 as part of the month)
  const quietFrom = START + 8 * DAY
  const kept = events.filter(e => e.time < quietFrom || e.time >= quietFrom + 7 * DAY)
  const docs = gaugeDocumentsOf(kept, { batch: 130 })
  const counted = documentsOf(kept.map(e => ({ ...e, value: 1 })))

  function modelOf (from, to) {
    const inRange = kept.filter(e => e.time >= from && e.time < to)
    if (inRange.length === 0) return null
    const latest = inRange.reduce((x, e) => (e.time > x.time || (e.time === x.time && e.value > x.value) ? e : x))
    const sum = inRange.reduce((a, e) => a + e.value, 0)
    return { count: inRange.length, sum, mean: sum / inRange.length, min: Math.min(...inRange.map(e => e.value)), max: Math.max(...inRange.map(e => e.value)), last: latest.value }
  }

  function expectStats (tier, from, to, what) {
    const truth = modelOf(from, to)
    if (truth === null) {
      for (const s of ['last', 'min', 'max', 'mean']) expect(gaugeStatValue(tier, STATS[s]), `${what} ${s}`).toBe(null)
      if (tier !== null) expect(tier.count, what).toBe(0)
      return
    }
    for (const s of ['count', 'min', 'max', 'last']) expect(gaugeStatValue(tier, STATS[s]), `${what} ${s}`).toBe(truth[s])
    expect(gaugeStatValue(tier, STATS.sum), `${what} sum`).toBeCloseTo(truth.sum, 6)
    expect(gaugeStatValue(tier, STATS.mean), `${what} mean`).toBeCloseTo(truth.mean, 9)
  }

  it('in UTC, over minutes, quarter-hours, whole days and whole months', () => {
    const r = seededRandom(7)
    const pick = (from, to, size) => from + Math.floor(r() * ((to - from) / size)) * size
    const ranges = Array.from({ length: 400 }, () => {
      const kind = r()
      if (kind < 0.1) { const from = startOfMonth(pick(START - 30 * DAY, START + 25 * DAY, DAY)); return { from, to: addMonths(from, 1) } }
      if (kind < 0.3) { const from = pick(START - 2 * DAY, START + 22 * DAY, DAY); return { from, to: from + (1 + Math.floor(r() * 10)) * DAY } }
      const size = kind < 0.6 ? MIN : QUARTER
      const from = pick(START - DAY, START + 21 * DAY, size)
      return { from, to: from + (1 + Math.floor(r() * (2 * DAY / size))) * size }
    })
    ranges.push({ from: quietFrom + DAY, to: quietFrom + 2 * DAY })
    const plan = planRanges('g', ranges, {})
    const values = evaluateGaugePlan(plan, docs)
    const counters = evaluatePlan(plan, counted)
    let held = 0
    ranges.forEach(({ from, to }, i) => {
      const what = `[${new Date(from).toISOString()}, ${new Date(to).toISOString()})`
      expect(values[i].value?.count ?? null, what).toBe(counters[i].value)
      expect(values[i].documents, what).toBe(counters[i].documents)
      expectStats(values[i].value, from, to, what)
      if (values[i].value?.count > 0) held++
    })
    expect(held).toBeGreaterThan(250)
    expect(values.at(-1).value).toEqual({ count: 0, sum: 0 }) // a quiet day of a month that has documents
  })

  for (const [step, span] of [['hour', 3 * DAY], ['day', 20 * DAY], ['month', 60 * DAY]]) {
    it(`local ${step} points in Asia/Kathmandu, with the counters' null and 0`, () => {
      const zone = timeZone('Asia/Kathmandu')
      const from = START - 2 * DAY + 7 * QUARTER
      const planned = planLocalSeries('g', zone, from, from + span, step, { maxPoints: 5000, horizons: {} })
      const values = evaluateGaugePlan(planned.plan, docs, { strictDays: step === 'day' })
      const counters = localSeriesValues(planned, counted)
      const edges = [...planned.timestamps, planned.end]
      let held = 0
      values.forEach(({ value }, i) => {
        const what = `${step} [${new Date(edges[i]).toISOString()}, ${new Date(edges[i + 1]).toISOString()})`
        expect(value?.count ?? null, what).toBe(counters[i])
        expectStats(value, edges[i], edges[i + 1], what)
        if (value?.count > 0) held++
      })
      expect(held).toBeGreaterThan(0)
    })
  }
})
