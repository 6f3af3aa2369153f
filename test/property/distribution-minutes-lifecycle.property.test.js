// Property: retention of a distribution's minute histograms (distributionMinutes)
// changes no answer at the quarter-hour or coarser, and leaves no minute-hour
// document of a day whose minutes it dropped. Any interleaving of
// distribution ingest (POST /v1/events anywhere inside MAX_AGE_DAYS; StatsD
// timers with sample rates), the clock moving across days and months, whole
// retention passes (minute detail kept 3 days, minute histograms 1 —
// MINUTE_HISTOGRAM_DAYS —, daily documents 7) and passes
// cut short after their first batch (as a kill between dropping the minutes
// and deleting their histograms leaves them), through the real app on the
// real database. Around every whole pass, every quarter-hour of the days the
// daily documents keep, every day point and a quantile range answer count,
// sum, min, max, p50 and p99 exactly as before it (day points whose daily
// document the pass deleted: from their month, count and sum within
// rounding), and so do the minutes of the days that keep their histograms;
// after it no minute-hour document is older than the day before the
// histograms' horizon, and every one of a later day is still there; at the
// end, after a whole pass, `check` finds nothing.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { minuteHistogramKeptFromFor } from '../../src/bucket/retention-horizons.js'
import { parseHourId, startOfDay } from '../../src/bucket/time.js'
import { createRetentionForDb } from '../../src/jobs/retention-service.js'
import { DAY, KINDS, QUARTER, close, lifecycleHarness, steps } from '../helpers/lifecycle-harness.js'

const MAX_AGE_DAYS = 6
const MINUTE_DAYS = 3
const HISTOGRAM_DAYS = 1
const DAILY_DAYS = MAX_AGE_DAYS + 1
const ALPHA = 0.01
const START = Date.UTC(2026, 10, 27, 20) // four days before December
const metrics = ['dm.a', 'dm.b']
const env = { PREALLOC_PROBABILITY: '0', MAX_AGE_DAYS: String(MAX_AGE_DAYS), MINUTE_RETENTION_DAYS: String(MINUTE_DAYS), MINUTE_HISTOGRAM_DAYS: String(HISTOGRAM_DAYS), DAILY_RETENTION_DAYS: String(DAILY_DAYS), RETENTION_RATE: '1000000', DISTRIBUTION_ACCURACY: String(ALPHA) }
const STATS = ['count', 'sum', 'min', 'max', 'p50', 'p99']
const h = lifecycleHarness({ label: 'distminprop', kind: KINDS.distribution, start: START, metrics, env })
const { clock, get, seen } = h
Object.assign(seen, { minuteHoursDeleted: 0, orphansLeft: 0 })

const value = fc.oneof(
  { weight: 5, arbitrary: fc.double({ min: 0.1, max: 20_000, noNaN: true }).map(v => Math.round(v * 1000) / 1000) },
  { weight: 1, arbitrary: fc.constantFrom(0, 87, 87, 1500) },
  { weight: 1, arbitrary: fc.double({ min: -300, max: -0.01, noNaN: true }).map(v => Math.round(v * 100) / 100) }
)
const action = fc.oneof(
  { weight: 5, arbitrary: steps.ingest(metrics, value, steps.back(MAX_AGE_DAYS), 8) },
  { weight: 1, arbitrary: steps.statsd(metrics, fc.integer({ min: 0, max: 5000 }), [1, 0.5, 0.3]) },
  { weight: 2, arbitrary: steps.advance },
  { weight: 2, arbitrary: steps.retention },
  // here a cut is a retention pass cut short, not a flush
  { weight: 1, arbitrary: fc.constant({ kind: 'cut' }) }
)

const today = () => clock.now() - (clock.now() % DAY)

/** Every answer at the quarter-hour or coarser a pass must not change: quarter-hours of the kept days, days, and a range across them */
async function answers (model) {
  const to = today() + DAY
  const keptFrom = today() - DAILY_DAYS * DAY
  const firstDay = model.firstDay
  const out = {}
  for (const metric of metrics.filter(m => model.written.has(m))) {
    for (const stat of STATS) {
      out[`${metric} quarter-hour ${stat}`] = (await get(`/v1/metrics/${metric}/series?from=${keptFrom}&to=${to}&step=quarter-hour&stat=${stat}`)).values
      out[`${metric} day ${stat}`] = (await get(`/v1/metrics/${metric}/series?from=${firstDay}&to=${to}&step=day&stat=${stat}`)).values
    }
    const q = await get(`/v1/metrics/${metric}/quantiles?from=${keptFrom + 5 * QUARTER}&to=${clock.now() - (clock.now() % QUARTER)}&q=0,0.5,0.9,0.99,1`)
    out[`${metric} quantiles`] = q
    // the minutes whose histograms are kept: a minute's percentiles, and a range with minute edges
    const histogramsFrom = today() - HISTOGRAM_DAYS * DAY
    for (const stat of ['p50', 'p99', 'count']) out[`${metric} minute ${stat}`] = (await get(`/v1/metrics/${metric}/series?from=${histogramsFrom}&to=${to}&step=minute&stat=${stat}`)).values
    out[`${metric} minute-edged quantiles`] = await get(`/v1/metrics/${metric}/quantiles?from=${histogramsFrom + 7 * 60_000}&to=${clock.now() - (clock.now() % 60_000)}&q=0.5,0.99`)
  }
  return out
}

/** before and after a pass agree: exactly, except the sums and counts of day points now read from their month (rounding) */
function expectSameAnswers (before, after) {
  for (const key of Object.keys(before)) {
    if (/ day (count|sum)$/.test(key)) {
      before[key].forEach((v, i) => expect(v === null ? after[key][i] === null : close(v, after[key][i]), `${key}[${i}]: ${v} → ${after[key][i]}`).toBe(true))
    } else {
      expect(after[key], key).toEqual(before[key])
    }
  }
}

/** The minute-hour documents of days before the one before the histograms' horizon (what a whole pass leaves none of), and the rest */
async function minuteHours () {
  const bound = today() - HISTOGRAM_DAYS * DAY - DAY
  const ids = (await h.app.collections.distributionMinutes.find({}, { projection: { _id: 1 } }).sort({ _id: 1 }).toArray()).map(d => d._id)
  return { past: ids.filter(id => startOfDay(parseHourId(id).date) < bound), kept: ids.filter(id => startOfDay(parseHourId(id).date) >= bound) }
}
const pastHorizon = async () => (await minuteHours()).past

// the minute histograms' hooks; ingest (JSON and StatsD: the model is which metrics were written),
// advance and a whole retention pass are the harness's
const property = {
  ingested (entries, model) { for (const e of entries) model.written.add(e.metric) },
  steps: {
    async cut () {
      // a pass cut after its first batch: what it did is done, the rest (histograms of minutes it dropped among them) left
      const app = h.app
      const job = createRetentionForDb({ db: app.mongo.db, collections: app.collections, config: app.config, clock, logger: { info () {}, warn () {} }, onProgress: () => { job.stop() } })
      const pass = await job.runOnce()
      expect(['done', 'stopped']).toContain(pass.status)
      seen.cut++
      seen.orphansLeft += (await pastHorizon()).length
    }
  },
  async beforeRetention (model) {
    return { answers: await answers(model), hours: await minuteHours() }
  },
  retentionPass: { status: 'done', unvouched: 0, kept: 0 },
  async afterRetention (pass, model, before) {
    expectSameAnswers(before.answers, await answers(model))
    // none left past the bound, every one of a day whose minutes are kept still there
    const hoursAfter = await minuteHours()
    expect(hoursAfter.past).toEqual([])
    expect(hoursAfter.kept).toEqual(before.hours.kept)
    expect(pass.minuteHoursDeleted).toBe(before.hours.past.length)
    seen.minuteHoursDeleted += pass.minuteHoursDeleted
  }
}

describe('retention of minute histograms changes no answer at the quarter-hour or coarser', () => {
  it('ingest, whole and cut retention passes in any order, across days and months: answers unchanged by every whole pass, no minute-hour document past the minute horizon after one, check finds nothing', async () => {
    await h.run({
      ...property,
      action,
      maxLength: 12,
      model: () => ({ firstDay: today() - MAX_AGE_DAYS * DAY, written: new Set() }),
      async end (model) {
        await h.perform({ kind: 'retention' }, model, property)
        const found = await h.check(false, { minuteHistogramKeptFrom: minuteHistogramKeptFromFor(h.app.config, clock.now()) })
        expect(found.violations, JSON.stringify(found)).toBe(0)
      },
      numRuns: 30,
      examples: [
        // found here: a minute written with its histogram, then again (a backfill) once its day passed
        // MINUTE_HISTOGRAM_DAYS, which writes none; the check judged its total, which no read uses there
        [[
          { kind: 'ingest', events: [{ metric: 'dm.a', value: 0.1, back: 1216 }] },
          { kind: 'advance', hours: 22 },
          { kind: 'ingest', events: [{ metric: 'dm.a', value: 0.1, back: 2536 }, { metric: 'dm.a', value: 0.1, back: 0 }] },
          { kind: 'ingest', events: [{ metric: 'dm.a', value: -0.01, back: 0 }] },
          { kind: 'retention' },
          { kind: 'advance', hours: 1 }
        ]],
        // one sequence that surely reaches every step: minutes written, a cut pass after their days passed the horizon, a whole one
        [[
          { kind: 'ingest', events: [{ metric: 'dm.a', value: 12.5, back: 2000 }, { metric: 'dm.a', value: -3, back: 2000 }, { metric: 'dm.b', value: 870, back: 100 }, { metric: 'dm.a', value: 7, back: 6000 }] },
          { kind: 'statsd', lines: [{ metric: 'dm.a', value: 40, rate: 0.3 }, { metric: 'dm.b', value: 41, rate: 1 }] },
          { kind: 'advance', hours: 40 },
          { kind: 'ingest', events: [{ metric: 'dm.b', value: 3, back: 10 }] },
          { kind: 'advance', hours: 40 },
          { kind: 'cut' },
          { kind: 'retention' },
          { kind: 'advance', hours: 40 },
          { kind: 'retention' }
        ]]
      ]
    })
    // the interleavings reached what they are about
    expect(seen.retention).toBeGreaterThan(0)
    expect(seen.downsampled).toBeGreaterThan(0)
    expect(seen.deleted).toBeGreaterThan(0)
    expect(seen.minuteHoursDeleted).toBeGreaterThan(0)
    expect(seen.cut).toBeGreaterThan(0)
    expect(seen.orphansLeft).toBeGreaterThan(0)
  }, 300_000)
})
