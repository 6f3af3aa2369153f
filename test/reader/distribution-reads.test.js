// A distribution's reads alone (src/reader/distribution-reads.js) over
// documents a hostile sender can write (tiers full of buckets), from
// collections that answer at once, so that every turn of the event loop
// during a read is one the read gave: the work of a read is paced by the
// buckets it merges and ranks, not by the ranges it plans.
import { describe, expect, it } from 'vitest'
import { createDistributionReads } from '../../src/reader/distribution-reads.js'
import { createMapping, mergeHistograms, quantiles } from '../../src/bucket/distribution-sketch.js'
import { dayId, hourId, monthId } from '../../src/bucket/time.js'

const mapping = createMapping(0.01)
const kind = { kind: 'distribution', accuracy: 0.01, mapping }
const HOUR = 3_600_000
const DAY_START = Date.UTC(2026, 2, 1)
const METRIC = 'lat.hostile'

/** A tier of `buckets` distinct buckets on the positive side, one value in each, from index `first` */
function wideTier (first, buckets) {
  const tier = { count: 0, sum: 0, positive: {} }
  for (let i = first; i < first + buckets; i++) {
    tier.positive[String(i)] = 1
    tier.count += 1
    tier.sum += Math.exp(i * mapping.lnGamma)
  }
  tier.min = Math.exp((first - 1) * mapping.lnGamma) * 1.0001
  tier.max = Math.exp((first + buckets - 1) * mapping.lnGamma)
  return tier
}

/** A collection that answers find({ _id: { $in } }) at once, without a turn of the event loop */
function instantCollection (docs) {
  return {
    find: (filter) => ({ toArray: async () => docs.filter(d => filter._id.$in.includes(d._id)) })
  }
}

/** Turns of the event loop while `run` runs (setImmediate ticks) and its answer */
async function turnsDuring (run) {
  let turns = 0
  let running = true
  const tick = () => { if (running) { turns++; setImmediate(tick) } }
  setImmediate(tick)
  try {
    return { answer: await run(), turns }
  } finally {
    running = false
  }
}

// a day whose 24 hours each hold 2,000 buckets (a few requests an hour): 48,000 buckets a day's read merges
const hours = Array.from({ length: 24 }, (_, h) => wideTier(-500 + h * 40, 2000))
const day = { _id: dayId(METRIC, DAY_START), metric: METRIC, date: new Date(DAY_START), hourly: Object.fromEntries(hours.map((t, h) => [h, t])) }
const month = { _id: monthId(METRIC, DAY_START), metric: METRIC, date: new Date(DAY_START), daily: {} }

function reads (options) {
  return createDistributionReads({
    collections: { distributionDaily: instantCollection([day]), distributionMonthly: instantCollection([month]), distributionMinutes: instantCollection([]) },
    horizonsOf: () => ({ minuteFrom: null, dailyFrom: null }),
    maxPoints: 1440,
    ...options
  })
}

describe('the work of a read is paced by buckets, not by ranges', () => {
  it('lets the event loop turn within one range of many wide pieces (a quantiles read is one range)', async () => {
    // [01:00, 24:00): 23 hour pieces of 2,000 buckets each, one range
    const { answer, turns } = await turnsDuring(() => reads({ turnBuckets: 5000 }).quantiles(METRIC, kind, { from: DAY_START + HOUR, to: DAY_START + 24 * HOUR, qs: [0, 0.5, 0.99, 1] }))
    // a turn once 5,000 buckets were merged since the last: every third piece of 2,000, so 7 (none before: one range was merged in one turn)
    expect(turns).toBeGreaterThanOrEqual(7)
    const truth = hours.slice(1).reduce((a, b) => mergeHistograms(a, b))
    expect(answer.count).toBe(truth.count)
    expect(answer.quantiles).toEqual([0, 0.5, 0.99, 1].map((q, i) => ({ q, value: quantiles(truth, mapping, [0, 0.5, 0.99, 1])[i] })))
    expect(answer.documents).toBe(1)
  })

  it('lets the event loop turn while it ranks a percentile series\' points too', async () => {
    const { answer, turns } = await turnsDuring(() => reads({ turnBuckets: 5000 }).series(METRIC, kind, { from: DAY_START, to: DAY_START + 24 * HOUR, step: 'hour', zone: undefined, stat: { name: 'p99', kind: 'percentile', q: 0.99 } }))
    // 24 pieces of 2,000 buckets merged, then 24 points of 2,000 ranked: a turn every third of each, 16
    expect(turns).toBeGreaterThanOrEqual(16)
    expect(answer.values).toEqual(hours.map(t => quantiles(t, mapping, [0.99])[0]))
  })

  it('paces the reads of one request as one: a turn of the event loop merges one slice, however many reads share the budget', async () => {
    // six metrics whose days hold the same 24 wide hours (the same tier objects: a read must change none of them)
    const metrics = Array.from({ length: 6 }, (_, m) => `${METRIC}${m}`)
    const shared = createDistributionReads({
      collections: {
        distributionDaily: instantCollection(metrics.map(metric => ({ ...day, _id: dayId(metric, DAY_START), metric }))),
        distributionMonthly: instantCollection(metrics.map(metric => ({ ...month, _id: monthId(metric, DAY_START), metric }))),
        distributionMinutes: instantCollection([])
      },
      horizonsOf: () => ({ minuteFrom: null, dailyFrom: null }),
      maxPoints: 1440,
      turnBuckets: 5000
    })
    const budget = { buckets: 0 }
    // the buckets merged between two turns of the event loop (a tick per turn)
    const perTurn = []
    let seen = 0
    let running = true
    const tick = () => { perTurn.push(budget.buckets - seen); seen = budget.buckets; if (running) setImmediate(tick) }
    setImmediate(tick)
    let answers
    try {
      answers = await Promise.all(metrics.map(async metric => {
        const read = await shared.mergedSeries(metric, kind, { from: DAY_START, to: DAY_START + 24 * HOUR, step: 'hour', zone: undefined, percentile: true, budget })
        return read.values({ name: 'p99', kind: 'percentile', q: 0.99 })
      }))
    } finally {
      running = false
    }
    perTurn.push(budget.buckets - seen)
    expect(budget.buckets).toBe(6 * 24 * 2000)
    // one slice a turn (5,000 buckets and the piece that passes it), not one a read: paced read by read, six reads in
    // step merged six slices in every turn
    expect(Math.max(...perTurn)).toBeLessThanOrEqual(5000 + 2000)
    for (const values of answers) expect(values).toEqual(hours.map(t => quantiles(t, mapping, [0.99])[0]))
  })

  it('counts the merges of a request\'s reads together, past 4 × MAX_READ_BUCKETS refused with the 400 naming it', async () => {
    // each read merges a day of 24 × 2,000 = 48,000 ≤ 50,000; five of them 240,000 > 4 × 50,000
    const shared = reads({ maxReadBuckets: 50_000 })
    const budget = { buckets: 0 }
    const read = () => shared.mergedSeries(METRIC, kind, { from: DAY_START, to: DAY_START + 24 * HOUR, step: 'hour', zone: undefined, percentile: true, budget })
    await expect(Promise.all([read(), read(), read(), read()])).resolves.toHaveLength(4)
    await expect(read()).rejects.toMatchObject({ statusCode: 400, message: expect.stringContaining('this request merges more than 4 × MAX_READ_BUCKETS = 200000 histogram buckets across its series') })
  })

  it('still refuses past MAX_READ_BUCKETS with the 400 naming it', async () => {
    await expect(reads({ maxReadBuckets: 45_000 }).quantiles(METRIC, kind, { from: DAY_START + HOUR, to: DAY_START + 24 * HOUR, qs: [0.5] }))
      .rejects.toMatchObject({ statusCode: 400, message: expect.stringContaining('MAX_READ_BUCKETS = 45000') })
  })
})

describe('a percentile read\'s minute histograms are checked paced and bounded, before any merge', () => {
  // an hour of 60 minutes whose stored histograms hold 2,000 buckets each, whose count and sum match the day's minute
  // but whose buckets hold one value fewer: judging each walks all its buckets, and grafts none (120,000 walked, 0 merged)
  const MINUTE = 60_000
  const hour = 3
  const stored = Array.from({ length: 60 }, (_, m) => {
    const tier = wideTier(-1000 + m * 10, 2000)
    return { ...tier, count: tier.count + 1 }
  })
  const dayMinutes = Object.fromEntries(stored.map((t, m) => [m, { count: t.count, sum: t.sum, min: t.min, max: t.max }]))
  const minuteDay = { _id: dayId(METRIC, DAY_START), metric: METRIC, date: new Date(DAY_START), minute: { [hour]: dayMinutes } }
  const hourDoc = { _id: hourId(METRIC, DAY_START + hour * HOUR), minute: Object.fromEntries(stored.map((t, m) => [m, { count: t.count, sum: t.sum, positive: t.positive }])) }
  const minuteReads = (options) => createDistributionReads({
    collections: { distributionDaily: instantCollection([minuteDay]), distributionMonthly: instantCollection([month]), distributionMinutes: instantCollection([hourDoc]) },
    horizonsOf: () => ({ minuteFrom: null, dailyFrom: null, minuteHistogramFrom: null }),
    maxPoints: 1440,
    ...options
  })
  const p99 = { name: 'p99', kind: 'percentile', q: 0.99 }
  const window = { from: DAY_START + hour * HOUR, to: DAY_START + hour * HOUR + 60 * MINUTE, step: 'minute', zone: undefined, stat: p99 }

  it('lets the event loop turn while it walks them, though it merges nothing', async () => {
    const { answer, turns } = await turnsDuring(() => minuteReads({ turnBuckets: 5000 }).series(METRIC, kind, window))
    // a turn every 5,000 buckets walked: 120,000 ÷ 5,000, less the first slice (none before: they were walked in one turn)
    expect(turns).toBeGreaterThanOrEqual(20)
    expect(answer.values).toEqual(new Array(60).fill(null)) // no minute holds its values: no percentile, not a guess
  })

  it('counts the walks of a request\'s reads together, past 4 × MAX_READ_BUCKETS refused with the 400 naming it', async () => {
    // each read walks 120,000 ≤ 130,000; five of them 600,000 > 4 × 130,000
    const shared = minuteReads({ maxReadBuckets: 130_000 })
    const budget = { buckets: 0 }
    const read = () => shared.mergedSeries(METRIC, kind, { ...window, percentile: true, budget })
    await expect(Promise.all([read(), read(), read(), read()])).resolves.toHaveLength(4)
    await expect(read()).rejects.toMatchObject({ statusCode: 400, message: expect.stringContaining('this request checks more than 4 × MAX_READ_BUCKETS = 520000 minute-histogram buckets') })
    expect(budget.walked).toBeGreaterThan(520_000)
  })

  it('refuses past MAX_READ_BUCKETS walked, with the 400 naming it, before it merges', async () => {
    await expect(minuteReads({ maxReadBuckets: 50_000 }).series(METRIC, kind, window))
      .rejects.toMatchObject({ statusCode: 400, message: expect.stringContaining('checks more than MAX_READ_BUCKETS = 50000 minute-histogram buckets') })
  })
})
