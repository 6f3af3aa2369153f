// Property: a distribution read over any range answers what the raw values
// say. Seeded values (latency-like log-normal, with zeros, values below the
// indexed magnitudes, negatives and repeats) at random times over ten weeks
// across three month ends and St John's spring change, written a batch at a
// time as the writer's updates leave them; ranges aligned to quarter-hours,
// whole days and whole months in UTC, and local hour, day and month points
// and a year to date in Asia/Kathmandu (+05:45) and America/St_Johns
// (−03:30/−02:30), planned by the range planner and merged by
// evaluateDistributionPlan. count is exact and null or 0 exactly where a
// counter of the same events is; sum within float rounding; min and max
// exact; p50, p90, p99 and p999 within α of the exact quantile at rank
// floor(q·(n−1)) (within 1e-9 where that value counted in the zero bucket).
// Ranges with minute edges merge the minutes' histograms (their hours'
// documents) with the coarser tiers, and answer within α too. The same holds
// where days were written without minutes or downsampled (detail
// 'quarterHour'), read from quarter-hours and coarser.
import { describe, expect, it } from 'vitest'
import { seededRandom } from '../../scripts/shared/workload.js'
import { MIN_INDEXED_VALUE, bucketedCount, createMapping, quantileRank } from '../../src/bucket/distribution-sketch.js'
import { evaluateDistributionPlan, parseStat, statValue } from '../../src/bucket/distribution-stats.js'
import { localSeriesValues, planLocalSeries, planLocalYtd } from '../../src/bucket/local-plans.js'
import { localYearStart } from '../../src/bucket/local-time.js'
import { evaluatePlan, planRanges } from '../../src/bucket/range-plan.js'
import { timeZone } from '../../src/bucket/time-zone.js'
import { addMonths, startOfMonth } from '../../src/bucket/time.js'
import { graftMinuteHistograms } from '../../src/reader/minute-histograms.js'
import { distributionDocumentsOf } from '../helpers/distribution-documents.js'
import { documentsOf } from '../helpers/documents.js'

// plans from the quarter-hours up: a percentile read without the minutes' histograms (the hours' documents)
const QUARTER_HOURS_UP = { minuteFrom: Infinity }
const MIN = 60_000
const QUARTER = 15 * MIN
const DAY = 86_400_000
const START = Date.UTC(2026, 0, 20)
const DAYS = 75 // to April 5th
const END = START + DAYS * DAY
// days before WRITTEN_WITHOUT written past the minute horizon; days before DOWNSAMPLED_BEFORE downsampled later
const WRITTEN_WITHOUT = Date.UTC(2026, 1, 10)
const DOWNSAMPLED_BEFORE = Date.UTC(2026, 2, 5)
// a week without values: days whose month holds no day field (null as a day, 0 as part of the month)
const QUIET_FROM = Date.UTC(2026, 1, 16)
const QUIET_TO = Date.UTC(2026, 1, 23)
const ZONES = ['Asia/Kathmandu', 'America/St_Johns']
// a year to date as of March 20th, 12:00 UTC: the local months' starts and the end of that local day, written out
const YTD_AS_OF = Date.UTC(2026, 2, 20, 12)
const YTD_EDGES = {
  // +05:45 all year
  'Asia/Kathmandu': [Date.UTC(2025, 11, 31, 18, 15), Date.UTC(2026, 0, 31, 18, 15), Date.UTC(2026, 1, 28, 18, 15), Date.UTC(2026, 2, 20, 18, 15)],
  // −03:30 to March 8th, then −02:30
  'America/St_Johns': [Date.UTC(2026, 0, 1, 3, 30), Date.UTC(2026, 1, 1, 3, 30), Date.UTC(2026, 2, 1, 3, 30), Date.UTC(2026, 2, 21, 2, 30)]
}
const PERCENTILES = ['p50', 'p90', 'p99', 'p999', 'p0', 'p100'].map(text => parseStat(text).stat)
const [COUNT, SUM, MEAN, MINIMUM, MAXIMUM] = ['count', 'sum', 'mean', 'min', 'max'].map(text => parseStat(text).stat)

/** Seeded events: log-normal around 50 (ms), some zeros, tiny values, negatives and repeats; busy days at month ends */
function eventsOf (random, n) {
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random())
  const value = () => {
    const r = random()
    if (r < 0.03) return random() < 0.5 ? 0 : -0
    if (r < 0.05) return [1e-12, -5e-10, Number.MIN_VALUE][Math.floor(random() * 3)]
    if (r < 0.1) return -Math.exp(Math.log(5) + normal())
    if (r < 0.13) return 87
    return Math.exp(Math.log(50) + 1.2 * normal())
  }
  const busy = [Date.UTC(2026, 0, 31), Date.UTC(2026, 1, 28), Date.UTC(2026, 2, 7)] // two days from each
  const time = () => {
    if (random() >= 0.6) return busy[Math.floor(random() * 3)] + random() * 2 * DAY
    const t = START + random() * (END - START)
    return t >= QUIET_FROM && t < QUIET_TO ? t - 7 * DAY : t
  }
  return Array.from({ length: n }, () => ({ metric: 'm', value: value(), time: Math.floor(time()) }))
}

/** The exact stats of the values in [from, to) */
function exactOf (events, from, to) {
  const values = events.filter(e => e.time >= from && e.time < to).map(e => (e.value === 0 ? 0 : e.value)) // −0 is stored as 0
  const sorted = Float64Array.from(values).sort()
  let sum = 0
  let magnitude = 0
  for (const v of values) { sum += v; magnitude += Math.abs(v) }
  return { n: values.length, sum, magnitude, sorted }
}

/** Every stat of a merged tier against the exact ones */
function expectStats (tier, exact, mapping, what) {
  const { n, sum, magnitude, sorted } = exact
  if (n === 0) {
    if (tier !== null) expect(tier.count, what).toBe(0)
    for (const stat of [MEAN, MINIMUM, MAXIMUM, ...PERCENTILES]) expect(statValue(tier, stat, mapping), `${what} ${stat.name}`).toBeNull()
    return
  }
  expect(statValue(tier, COUNT, mapping), what).toBe(n)
  const tolerance = 1e-12 * n * magnitude
  expect(Math.abs(statValue(tier, SUM, mapping) - sum), `${what} sum`).toBeLessThanOrEqual(tolerance)
  expect(Math.abs(statValue(tier, MEAN, mapping) - sum / n), `${what} mean`).toBeLessThanOrEqual(tolerance / n)
  expect(statValue(tier, MINIMUM, mapping), `${what} min`).toBe(sorted[0])
  expect(statValue(tier, MAXIMUM, mapping), `${what} max`).toBe(sorted[n - 1])
}

/** The percentiles of a merged tier against the exact ones at rank floor(q·(n−1)) */
function expectPercentiles (tier, exact, mapping, what) {
  const { n, sorted } = exact
  for (const stat of PERCENTILES) {
    const estimate = statValue(tier, stat, mapping)
    if (n === 0) { expect(estimate, what).toBeNull(); continue }
    const value = sorted[quantileRank(stat.q, n)]
    // within α (plus rounding at a bucket's edge); within 1e-9 absolute where the value counted in the zero bucket
    const bound = Math.abs(value) < MIN_INDEXED_VALUE ? MIN_INDEXED_VALUE : mapping.accuracy * Math.abs(value) * (1 + 1e-9)
    const error = Math.abs(estimate - value)
    if (!(error <= bound)) expect.fail(`${what} ${stat.name} of ${n}: ${estimate} for ${value}, off by ${error} > ${bound}`)
  }
}

/** A random range: quarter-hour edges (or minute edges from `minutesFrom` on), whole days, or whole months */
function rangeOf (random, { minutesFrom = null } = {}) {
  const kind = random()
  const pick = (from, to, size) => from + Math.floor(random() * ((to - from) / size)) * size
  if (kind < 0.15) { // whole months, one or two
    const from = startOfMonth(pick(START - 20 * DAY, END, DAY))
    return { from, to: addMonths(from, 1 + Math.floor(random() * 2)) }
  }
  if (kind < 0.3) { // whole days, up to 40
    const from = pick(START - 5 * DAY, END, DAY)
    return { from, to: from + (1 + Math.floor(random() * 40)) * DAY }
  }
  const size = minutesFrom !== null && kind < 0.5 ? MIN : QUARTER
  const from = pick(size === MIN ? minutesFrom : START - DAY, END, size)
  // short (a few quarter-hours), a day or so, or weeks
  const span = [4 * QUARTER, 2 * DAY, 30 * DAY][Math.floor(random() * 3)]
  return { from, to: from + (1 + Math.floor(random() * (span / size))) * size }
}

for (const accuracy of [0.01, 0.05]) {
  describe(`distribution reads at α = ${accuracy} answer what the raw values say`, () => {
    const mapping = createMapping(accuracy)
    // one seeded random per test, so that each draws the same ranges alone and in any order
    const seed = Math.round(20_261_125 / accuracy)
    const events = eventsOf(seededRandom(seed), 5000)
    const docs = distributionDocumentsOf(events, mapping, { batch: 150 })
    const dropped = distributionDocumentsOf(events, mapping, { batch: 70, keepsMinutes: (metric, dayStart) => dayStart >= WRITTEN_WITHOUT, minuteFrom: DOWNSAMPLED_BEFORE })
    // the same events as a counter of 1 each: its sum is the count, with the counters' null and 0
    const counted = documentsOf(events.map(e => ({ ...e, value: 1 })))
    const percentilePlan = (ranges) => planRanges('m', ranges, QUARTER_HOURS_UP)

    it('in UTC, over quarter-hours, minutes where kept, whole days and whole months', () => {
      const random = seededRandom(seed + 1)
      // and three fixed: a day of a month without documents, the quiet week, a quiet day
      const fixed = [{ from: Date.UTC(2025, 11, 20), to: Date.UTC(2025, 11, 21) }, { from: QUIET_FROM, to: QUIET_TO }, { from: QUIET_FROM + DAY, to: QUIET_FROM + 2 * DAY }]
      const ranges = [...Array.from({ length: 300 }, () => rangeOf(random, { minutesFrom: START - DAY })), ...fixed]
      const plan = planRanges('m', ranges, {})
      const values = evaluateDistributionPlan(plan, docs)
      const counters = evaluatePlan(plan, counted)
      // a day series' rule: a month's day counts only where it had a daily document
      const strict = evaluateDistributionPlan(plan, docs, { strictDays: true })
      const strictCounters = evaluatePlan(plan, counted, { strictDays: true })
      ranges.forEach(({ from, to }, i) => {
        const what = `[${new Date(from).toISOString()}, ${new Date(to).toISOString()})`
        expect(values[i].value?.count ?? null, what).toBe(counters[i].value)
        expect(values[i].documents, what).toBe(counters[i].documents)
        expect(strict[i].value?.count ?? null, what).toBe(strictCounters[i].value)
        expect(strict[i].documents, what).toBe(strictCounters[i].documents)
        expectStats(values[i].value, exactOf(events, from, to), mapping, what)
      })
      // before the first document: null; the quiet week's days: an empty tier in a month that exists, null with strictDays
      expect(values.slice(-3).map(v => v.value?.count ?? null)).toEqual([null, 0, 0])
      expect(strict.slice(-3).map(v => v.value?.count ?? null)).toEqual([null, null, null])
      expect(values.filter(v => v.value?.count > 100).length).toBeGreaterThan(100)
    })

    it('percentiles in UTC over ranges with minute edges: the minutes\' histograms (their hours\' documents) merged with the coarser tiers', async () => {
      const random = seededRandom(seed + 4)
      const ranges = Array.from({ length: 300 }, () => rangeOf(random, { minutesFrom: START - DAY }))
      const plan = planRanges('m', ranges, {})
      const grafted = structuredClone(docs)
      const read = await graftMinuteHistograms(new Map(grafted.minutes.map(d => [d._id, d])), 'm', plan, grafted.daily)
      expect(read).toBeGreaterThan(50)
      const values = evaluateDistributionPlan(plan, grafted)
      let minuteEdged = 0
      ranges.forEach(({ from, to }, i) => {
        const what = `[${new Date(from).toISOString()}, ${new Date(to).toISOString()})`
        const exact = exactOf(events, from, to)
        expectStats(values[i].value, exact, mapping, what)
        expectPercentiles(values[i].value, exact, mapping, what)
        if (from % QUARTER !== 0 || to % QUARTER !== 0) minuteEdged++
      })
      expect(minuteEdged).toBeGreaterThan(50)
      // without the hours' documents the same ranges have no percentile where a minute holds a value
      const bare = evaluateDistributionPlan(plan, docs)
      const p50 = parseStat('p50').stat
      const minutesWithValues = plan.ranges.map(pieces => pieces.some(p => p.path[0] === 'minute'))
      let unranked = 0
      bare.forEach(({ value }, i) => {
        if (minutesWithValues[i] && value !== null && value.count > 0 && value.count !== bucketedCount(value)) {
          expect(statValue(value, p50, mapping)).toBe(null)
          unranked++
        }
      })
      expect(unranked).toBeGreaterThan(20)
    })

    it('percentiles in UTC, over quarter-hours, whole days and whole months', () => {
      const random = seededRandom(seed + 2)
      const ranges = Array.from({ length: 300 }, () => rangeOf(random))
      const plan = percentilePlan(ranges)
      const values = evaluateDistributionPlan(plan, docs)
      ranges.forEach(({ from, to }, i) => {
        const what = `[${new Date(from).toISOString()}, ${new Date(to).toISOString()})`
        const exact = exactOf(events, from, to)
        expectStats(values[i].value, exact, mapping, what)
        expectPercentiles(values[i].value, exact, mapping, what)
      })
    })

    it('where days were written without minutes or downsampled: the same percentiles, and counts where minutes remain', () => {
      const random = seededRandom(seed + 3)
      expect(dropped.daily.filter(d => d.detail === 'quarterHour').length).toBeGreaterThan(30)
      expect(dropped.daily.filter(d => d.detail === 'quarterHour').every(d => d.minute === undefined)).toBe(true)
      const ranges = Array.from({ length: 200 }, () => rangeOf(random))
      const plan = percentilePlan(ranges)
      const values = evaluateDistributionPlan(plan, dropped)
      // quarter-hours and coarser are the same documents' tiers, written in other batches
      expect(values.map(v => v.value?.count ?? null)).toEqual(evaluateDistributionPlan(plan, docs).map(v => v.value?.count ?? null))
      ranges.forEach(({ from, to }, i) => {
        const what = `[${new Date(from).toISOString()}, ${new Date(to).toISOString()})`
        const exact = exactOf(events, from, to)
        expectStats(values[i].value, exact, mapping, what)
        expectPercentiles(values[i].value, exact, mapping, what)
      })
      // minute edges where minutes are kept: count, sum, min, max from them
      const minuteRanges = Array.from({ length: 100 }, () => rangeOf(random, { minutesFrom: DOWNSAMPLED_BEFORE }))
      const minuteValues = evaluateDistributionPlan(planRanges('m', minuteRanges, { minuteFrom: DOWNSAMPLED_BEFORE }), dropped)
      minuteRanges.forEach(({ from, to }, i) => expectStats(minuteValues[i].value, exactOf(events, from, to), mapping, `[${new Date(from).toISOString()}, ${new Date(to).toISOString()})`))
    })

    for (const tz of ZONES) {
      for (const [step, spanDays] of [['hour', 3], ['day', 25], ['month', DAYS]]) {
        it(`local ${step} points in ${tz}, with the counters' null and 0`, () => {
          const random = seededRandom(seed + 10 * ZONES.indexOf(tz) + spanDays)
          const zone = timeZone(tz)
          let points = 0
          let held = 0
          for (let run = 0; run < 8; run++) {
            // the first run over St John's spring change (March 8th: a 23-hour day)
            const from = run === 0 ? Date.UTC(2026, 2, 7) : START - 2 * DAY + Math.floor(random() * (DAYS - spanDays + 4) * 96) * QUARTER
            const planned = planLocalSeries('m', zone, from, Math.min(from + spanDays * DAY, END + 2 * DAY), step, { maxPoints: 5000, horizons: QUARTER_HOURS_UP })
            expect(planned.plan.ranges.flat().every(p => p.path[0] !== 'minute')).toBe(true)
            const values = evaluateDistributionPlan(planned.plan, docs, { strictDays: step === 'day' })
            const counters = localSeriesValues(planned, counted)
            const edges = [...planned.timestamps, planned.end]
            values.forEach(({ value }, i) => {
              const what = `${tz} ${step} [${new Date(edges[i]).toISOString()}, ${new Date(edges[i + 1]).toISOString()})`
              expect(value?.count ?? null, what).toBe(counters[i])
              const exact = exactOf(events, edges[i], edges[i + 1])
              expectStats(value, exact, mapping, what)
              expectPercentiles(value, exact, mapping, what)
              points++
              if (exact.n > 0) held++
            })
          }
          expect(held).toBeGreaterThan(points / 2)
        })
      }

      it(`a local year to date in ${tz}: each local month, the last to the end of asOf's local day`, () => {
        const zone = timeZone(tz)
        const { months, plan } = planLocalYtd('m', zone, localYearStart(zone, 2026), YTD_AS_OF, { horizons: QUARTER_HOURS_UP })
        expect(months).toEqual(['2026-01', '2026-02', '2026-03'])
        const edges = YTD_EDGES[tz]
        evaluateDistributionPlan(plan, docs).forEach(({ value }, i) => {
          const what = `${tz} ${months[i]}`
          const exact = exactOf(events, edges[i], edges[i + 1])
          expectStats(value, exact, mapping, what)
          expectPercentiles(value, exact, mapping, what)
        })
      })
    }
  })
}
