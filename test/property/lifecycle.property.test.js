// Property: no lifecycle step lowers an acknowledged count. Any interleaving
// of ingest (events anywhere inside MAX_AGE_DAYS, values that may be
// negative corrections), probabilistic preallocation (every event), the
// sweep, retention passes (minute detail kept 2 days, daily documents 7),
// the clock moving across days and months, and `check --repair`, through
// the real app on the real database: every day, hour and minute point the
// retention still keeps, every total and the year to date equal what an
// independent model of the acknowledged events says, a day point is null
// exactly where the day has no daily document, and `check` reports no
// violation. A preallocation cut short between its two documents (tomorrow's
// daily document without its month's field) may be mixed in anywhere:
// `check --repair` completes it without moving any count. A tagged name
// (`lp.t`) gets events of three series (docs/tags.md): after every step each
// series' day points and the name's equal the model's acknowledged sums (no
// step loses a count), and the name's equal the sum of its series' (by=) and
// their sum as one read (tag=). A declared rollup of it by `host`
// (ROLLUP_RULES) answers the reads by host from its own series once it
// began, each host's days equal to the model's sums. Two SLOs declare their
// zones (Asia/Kathmandu, +05:45, over `lp.t`; America/St_Johns, −03:30, over
// `lp.a` and `lp.b`): after every retention pass and repair, and at the end,
// each local day begun since the zone's record holds in the month documents
// (`zoned.<zone>.<YYYYMMDD>`, summed over the UTC months it spans) the model's
// acknowledged sum of that local day, read from Intl: of each name, each of
// `lp.t`'s series and each host's rollup series (no job lowers or loses one).
import fc from 'fast-check'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { intlBoundaries, intlWall } from '../helpers/intl-local-time.js'
import { dayZeroIncrements } from '../../src/bucket/minute-fields.js'
import { dayId } from '../../src/bucket/time.js'
import { incrementUpdate } from '../../src/writer/write-operations.js'
import { DAY, HOUR, KINDS, lifecycleHarness, seriesName, steps } from '../helpers/lifecycle-harness.js'

const MAX_AGE_DAYS = 6
const START = Date.UTC(2026, 10, 28, 20) // four days before December
const TAGGED = 'lp.t'
const TAG_SETS = [{ host: 'h1' }, { host: 'h2' }, { host: 'h1', dc: 'x' }]
const SERIES = TAG_SETS.map(tags => seriesName(TAGGED, tags))
const HOSTS = ['h1', 'h2']
// the rollup's series (docs/tags.md#declared-rollups), written out again: `name;~keys;key=value`
const ROLLUP_SERIES = HOSTS.map(host => `${TAGGED};~host;host=${host}`)
// the rollup answers windows from the whole minute after the app first ran with its rule (at START); a day read, from the next day
const ROLLUP_FROM = START - (START % DAY) + DAY
const metrics = ['lp.a', 'lp.b', TAGGED]
const ZONED = { 'Asia/Kathmandu': [TAGGED, ...SERIES, ...ROLLUP_SERIES], 'America/St_Johns': ['lp.a', 'lp.b'] }
const sloFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'lifecycle-slos-')), 'slos.yaml')
const slo = (name, zone, good, total) => `apiVersion: openslo/v1\nkind: SLO\nmetadata: { name: ${name} }\nspec:\n  indicator:\n    spec:\n      ratioMetric:\n        good: { metricSource: { type: statbucket, spec: ${good} } }\n        total: { metricSource: { type: statbucket, spec: ${total} } }\n  timeWindow: [{ duration: 1M, isRolling: false, calendar: { timeZone: ${zone} } }]\n  budgetingMethod: Occurrences\n  objectives: [{ target: 0.99 }]\n`
fs.writeFileSync(sloFile, [slo('lp-kathmandu', 'Asia/Kathmandu', `{ metric: ${TAGGED}, tags: [host=h1] }`, `{ metric: ${TAGGED} }`), slo('lp-st-johns', 'America/St_Johns', '{ metric: lp.a }', '{ metric: lp.b }')].join('---\n'))
const env = {
  SLO_FILE: sloFile,
  PREALLOC_PROBABILITY: '1',
  MAX_AGE_DAYS: String(MAX_AGE_DAYS),
  MINUTE_RETENTION_DAYS: '2',
  DAILY_RETENTION_DAYS: String(MAX_AGE_DAYS + 1),
  RETENTION_RATE: '1000000',
  ROLLUP_RULES: JSON.stringify([{ match: TAGGED, by: [['host']] }])
}
const h = lifecycleHarness({ label: 'lifecycleprop', kind: KINDS.counter, start: START, metrics: [...metrics, ...SERIES, ...ROLLUP_SERIES], env })
const { clock } = h
let cutSteps = 0
let taggedSteps = 0
let rollupReads = 0

const value = fc.integer({ min: -3, max: 9 })
const action = fc.oneof(
  { weight: 4, arbitrary: steps.ingest(metrics.filter(m => m !== TAGGED), value, steps.back(MAX_AGE_DAYS), 6) },
  { weight: 3, arbitrary: steps.taggedIngest(TAGGED, TAG_SETS, value, steps.back(MAX_AGE_DAYS), 6) },
  { weight: 2, arbitrary: steps.advance },
  { weight: 1, arbitrary: fc.constant({ kind: 'sweep' }) },
  { weight: 1, arbitrary: steps.retention },
  { weight: 1, arbitrary: steps.repair },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cut'), metric: fc.constantFrom(...metrics) }) }
)

/** A preallocation cut short between its two documents: tomorrow zero-filled, its month's field not written */
async function cutPreallocation (metric) {
  const tomorrow = clock.now() - (clock.now() % DAY) + DAY
  const { filter, update } = incrementUpdate(dayId(metric, tomorrow), { metric, date: tomorrow, inc: dayZeroIncrements() }).updateOne
  await h.app.collections.daily.updateOne(filter, update, { upsert: true })
}

// the counter's own steps; ingest, advance and retention ({ status: 'done' }) are the harness's, a repair too
const property = {
  steps: {
    async sweep () {
      expect(await h.app.sweep.runOnce()).not.toHaveProperty('error')
    },
    async cut (step, model) {
      await cutPreallocation(step.metric)
      model.cut = true
      cutSteps++
    }
  },
  afterRepair (model) { model.cut = false },
  async afterStep (step, model) {
    await expectSeriesHold(model)
    if (step.kind === 'retention' || step.kind === 'repair') await expectZonedDaysHold(model)
  }
}

const pad = (n, w = 2) => String(n).padStart(w, '0')
/** A zone's local days over the whole property (25 runs, three days on each), read from Intl → [{ from, to, key }] */
function localDaysOf (zone) {
  const b = intlBoundaries(zone, START - (MAX_AGE_DAYS + 2) * DAY, START + 100 * DAY).day
  return b.slice(0, -1).map((from, i) => { const w = intlWall(zone, from); return { from, to: b[i + 1], key: `${w.y}${pad(w.mo)}${pad(w.d)}` } })
}
// read once on import, before the app runs: a second of Intl would hold up its event loop (a 503 of MAX_EVENT_LOOP_DELAY_MS)
const LOCAL_DAYS = Object.fromEntries(Object.keys(ZONED).map(zone => [zone, localDaysOf(zone)]))
let zonedDaysChecked = 0

/** What the model says a metric (a name, a series or a rollup series) counts of the entries */
const countsIn = (metric) => {
  const host = ROLLUP_SERIES.indexOf(metric)
  if (host !== -1) return e => e.metric === TAGGED && e.tags?.host === HOSTS[host]
  if (SERIES.includes(metric)) return e => e.series === metric
  return e => e.metric === metric
}

/** Every local day of each declared zone begun since its record: its fields in the month documents equal the model's sums */
async function expectZonedDaysHold (model) {
  for (const [zone, targets] of Object.entries(ZONED)) {
    const docs = await h.app.collections.monthly.find({ metric: { $in: targets } }, { projection: { metric: 1, [`zoned.${zone}`]: 1 } }).toArray()
    for (const metric of targets) {
      const record = await h.app.collections.zones.findOne({ _id: `${zone} ${metric.split(';')[0]}` })
      expect(record, `${zone} ${metric} declared`).not.toBeNull()
      const since = record.since.getTime()
      const mine = docs.filter(d => d.metric === metric)
      const counted = model.filter(countsIn(metric))
      for (const { from, to, key } of LOCAL_DAYS[zone]) {
        if (from < since || from > clock.now()) continue
        const stored = mine.reduce((n, d) => n + (d.zoned?.[zone]?.[key] ?? 0), 0)
        const expected = counted.filter(e => e.ts >= from && e.ts < to).reduce((n, e) => n + e.value, 0)
        expect(stored, `${metric} ${zone} local day ${key}`).toBe(expected)
        if (expected !== 0) zonedDaysChecked++
      }
    }
  }
}

const sumWhere = (model, metric, from, to) => model.filter(e => e.metric === metric && e.ts >= from && e.ts < to).reduce((s, e) => s + e.value, 0)
const sumOfSeries = (model, series, from, to) => model.filter(e => e.series === series && e.ts >= from && e.ts < to).reduce((s, e) => s + e.value, 0)
const sumOfHost = (model, host, from, to) => model.filter(e => e.metric === TAGGED && e.tags?.host === host && e.ts >= from && e.ts < to).reduce((s, e) => s + e.value, 0)

/**
 * After every step: every day since the run's first of the tagged name and of
 * each of its series equals the model's sum of what was acknowledged (null a
 * day without a document, or 0 a day only preallocated), and the name's
 * equals the sum of its series', read apart (by=) and as one (tag=)
 */
async function expectSeriesHold (model) {
  if (!model.some(e => e.metric === TAGGED)) return
  taggedSteps++
  const days = await h.taggedDays(TAGGED, { from: model.firstDay, to: h.span().to, keys: ['host', 'dc'] })
  for (const series of days.series.keys()) expect(SERIES, 'a series no event named').toContain(series)
  days.timestamps.forEach((t, i) => {
    const what = `${new Date(t).toISOString()}`
    const name = days.name[null][i] ?? 0
    expect(name, `${TAGGED} ${what}`).toBe(sumWhere(model, TAGGED, t, t + DAY))
    let sum = 0
    for (const series of SERIES) {
      const value = days.series.get(series)?.[null][i] ?? 0
      expect(value, `${series} ${what}`).toBe(sumOfSeries(model, series, t, t + DAY))
      sum += value
    }
    expect(name, `${TAGGED} ${what}: the sum of its series`).toBe(sum)
    expect(days.merged[null][i] ?? 0, `${TAGGED} ${what}: its series as one read`).toBe(name)
  })
  // by host: the declared rollup's series, one a host, each day the model's sum of that host's events
  const from = Math.max(model.firstDay, ROLLUP_FROM)
  const byHost = await h.get(`/v1/metrics/${TAGGED}/series?from=${from}&to=${h.span().to}&step=day&by=host`)
  expect(byHost.rollup, 'the read by host reads the rollup').toEqual(['host'])
  rollupReads++
  for (const host of HOSTS) {
    const group = byHost.groups.find(g => g.tags.host === host)
    byHost.timestamps.forEach((t, i) => expect(group?.values[i] ?? 0, `${TAGGED} host=${host} ${new Date(t).toISOString()} (the rollup)`).toBe(sumOfHost(model, host, t, t + DAY)))
  }
  for (const group of byHost.groups) expect(HOSTS, 'a host no event named').toContain(group.tags.host)
}

async function expectAnswersEqualModel (model, { nulls = true } = {}) {
  const app = h.app
  const now = clock.now()
  const today = now - (now % DAY)
  const { minuteFrom, dailyFrom } = { minuteFrom: today - 2 * DAY, dailyFrom: today - (MAX_AGE_DAYS + 1) * DAY }
  for (const metric of metrics) {
    if (!model.some(e => e.metric === metric)) continue
    const from = today - MAX_AGE_DAYS * DAY
    const to = today + DAY
    const days = (await app.inject({ url: `/v1/metrics/${metric}/series?from=${from}&to=${to}&step=day` })).json()
    days.timestamps.forEach((t, i) => expect(days.values[i] ?? 0, `${metric} day ${new Date(t).toISOString()}`).toBe(sumWhere(model, metric, t, t + DAY)))
    // null exactly where the day has no daily document (every day here is inside the daily retention)
    const written = new Set((await app.collections.daily.find({ metric }, { projection: { _id: 1 } }).toArray()).map(d => d._id))
    if (nulls) days.timestamps.forEach((t, i) => expect(days.values[i] === null, `${metric} day ${new Date(t).toISOString()} null`).toBe(!written.has(dayId(metric, t))))
    const hoursFrom = Math.max(from, dailyFrom)
    const hours = (await app.inject({ url: `/v1/metrics/${metric}/series?from=${hoursFrom}&to=${to}&step=hour` })).json()
    hours.timestamps.forEach((t, i) => expect(hours.values[i] ?? 0, `${metric} hour ${new Date(t).toISOString()}`).toBe(sumWhere(model, metric, t, t + HOUR)))
    const minutes = (await app.inject({ url: `/v1/metrics/${metric}/series?from=${minuteFrom}&to=${minuteFrom + DAY}&step=minute` })).json()
    minutes.timestamps.forEach((t, i) => expect(minutes.values[i] ?? 0, `${metric} minute ${new Date(t).toISOString()}`).toBe(sumWhere(model, metric, t, t + 60_000)))
    const total = (await app.inject({ url: `/v1/metrics/${metric}/total?from=${from}&to=${to}` })).json()
    expect(total.total, `${metric} total`).toBe(sumWhere(model, metric, from, to))
    const ytd = (await app.inject({ url: `/v1/metrics/${metric}/ytd?asOf=${now}` })).json()
    expect(ytd.total, `${metric} ytd`).toBe(sumWhere(model, metric, Date.UTC(new Date(now).getUTCFullYear(), 0, 1), now + 1))
  }
}

describe('the lifecycle never lowers an acknowledged count', () => {
  it('ingest, preallocation, sweep, retention and repair in any order: every answer equals the model, check finds nothing', async () => {
    await h.run({
      ...property,
      action,
      numRuns: 25,
      model: () => Object.assign([], { firstDay: h.span().today - MAX_AGE_DAYS * DAY }),
      async end (model) {
        if (model.cut) {
          // a preallocation cut short: its repair changes no answer's count
          await expectAnswersEqualModel(model, { nulls: false })
          expect(await h.check(true)).toMatchObject({ unrepaired: 0, unsettled: 0 })
        }
        await expectAnswersEqualModel(model)
        await expectZonedDaysHold(model)
        const found = await h.check(false)
        expect(found.violations, JSON.stringify(found)).toBe(0)
      }
    })
    expect(cutSteps).toBeGreaterThan(0)
    expect(taggedSteps).toBeGreaterThan(0)
    expect(rollupReads).toBeGreaterThan(0)
    expect(zonedDaysChecked).toBeGreaterThan(0)
  }, 180_000)
})
