// The one harness of the lifecycle properties (test/property/*lifecycle*):
// any interleaving of ingest and the jobs (retention passes, `check --repair`,
// whatever else a property adds: the preallocation sweep, a pass cut short)
// with the clock moving across days and months, through the real app on the
// suite's database, each generated sequence a run of its own (its
// collections emptied, its metrics forgotten, its clock three days on). A
// small adapter per kind of metric (KINDS) says how an event is written —
// POST /v1/events, StatsD timers, a flush cut half-way — and what the model
// keeps of an acknowledged one; each property says, through its hooks, what
// must never go down after every job and what every answer must be at the
// end of a sequence.
import fc from 'fast-check'
import { afterAll, beforeAll, expect } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { createMapping } from '../../src/bucket/distribution-sketch.js'
import { writeDistributions } from './distribution-writes.js'
import { writeGauges } from './gauge-writes.js'
import { checkApp, freshRun, getJson } from './job-runs.js'
import { testApp } from './test-app.js'

export const MINUTE = 60_000
export const QUARTER = 900_000
export const HOUR = 3_600_000
export const DAY = 86_400_000

/** a and b equal up to float rounding, relative to the larger of them and to scale (Σ|v| of what was added) */
export const close = (a, b, scale = 0) => a === b || Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b), scale)

/** The time of an event `back` minutes before now (a millisecond before the minute: never on a boundary) */
export const before = (now, back) => now - back * MINUTE - 1

/** A series' canonical name (docs/tags.md#series-names), written out again: the name, then `;key=value`, keys sorted */
export const seriesName = (metric, tags) => [metric, ...Object.keys(tags).sort().map(k => `${k}=${tags[k]}`)].join(';')
/** An event's own tags, when it has some; the model's entry names its series (null: none) */
const withTags = (e, event) => (e.tags ? { ...event, tags: e.tags } : event)
const seriesOf = (e) => (e.tags ? seriesName(e.metric, e.tags) : null)

/**
 * How each kind of metric is written and what its model keeps. collections:
 * what a run empties; event(generated, now): the event POST /v1/events sends
 * for a generated { metric, value, back }; acknowledged(event): the model's
 * entry for it once answered 200; cut(db, entry, harness): the flush of one
 * model entry cut half-way (its daily document written, its monthly one not:
 * answered 504, never acknowledged); statsd: the text of StatsD timers
 * ({ metric, value, rate }) and the model's entry of each.
 */
export const KINDS = {
  counter: {
    collections: ['daily', 'monthly', 'metrics', 'jobs'],
    event: (e, now) => withTags(e, { metric: e.metric, value: e.value, ts: before(now, e.back) }),
    acknowledged: e => ({ ...e, series: seriesOf(e) })
  },
  gauge: {
    collections: ['gaugeDaily', 'gaugeMonthly', 'metrics', 'jobs'],
    event: (e, now) => withTags(e, { metric: e.metric, kind: 'gauge', value: e.value, ts: before(now, e.back) }),
    acknowledged: e => ({ metric: e.metric, series: seriesOf(e), value: e.value, time: e.ts }),
    cut: (db, entry, h) => writeGauges(db, [entry], { parts: ['daily'], keepsMinutes: (metric, dayStart) => dayStart >= h.span().minuteFrom })
  },
  distribution: {
    collections: ['distributionDaily', 'distributionMonthly', 'distributionMinutes', 'metrics', 'jobs'],
    event: (e, now) => withTags(e, { metric: e.metric, kind: 'distribution', value: e.value, ts: before(now, e.back) }),
    acknowledged: e => ({ metric: e.metric, series: seriesOf(e), value: e.value === 0 ? 0 : e.value, time: e.ts, weight: 1 }),
    cut: (db, entry, h) => writeDistributions(db, [entry], h.mapping, { parts: ['daily'], keepsMinutes: (metric, dayStart) => dayStart >= h.span().minuteFrom }),
    statsd: {
      // a line's tags as DogStatsD's `|#k:v,k2:v2`
      text: lines => lines.map(l => `${l.metric}:${l.value}|ms${l.rate === 1 ? '' : `|@${l.rate}`}${l.tags ? `|#${Object.entries(l.tags).map(([k, v]) => `${k}:${v}`).join(',')}` : ''}`).join('\n'),
      // a StatsD value at rate r weighs 1/r, at the minute it arrived in
      acknowledged: (l, now) => ({ metric: l.metric, series: seriesOf(l), value: l.value, time: now - (now % MINUTE), weight: 1 / l.rate })
    }
  }
}

/** The steps' arbitraries every property shares (weights are the property's) */
export const steps = {
  /** minutes back from now inside MAX_AGE_DAYS (less a day) */
  back: maxAgeDays => fc.integer({ min: 0, max: (maxAgeDays - 1) * 24 * 60 - 1 }),
  /** 1..maxLength events of the metrics, `value` each, `back` minutes before now */
  ingest: (metrics, value, back, maxLength) => fc.record({ kind: fc.constant('ingest'), events: fc.array(fc.record({ metric: fc.constantFrom(...metrics), value, back }), { minLength: 1, maxLength }) }),
  /** 1..maxLength events of the tagged name `metric`, each with one of `tagSets` (so the name is the sum of its series) */
  taggedIngest: (metric, tagSets, value, back, maxLength) => fc.record({ kind: fc.constant('ingest'), events: fc.array(fc.record({ metric: fc.constant(metric), tags: fc.constantFrom(...tagSets), value, back }), { minLength: 1, maxLength }) }),
  /** StatsD timers: 1..4 lines of the metrics at one of `rates` (tagSets: each line with one, as DogStatsD tags) */
  statsd: (metrics, value, rates, tagSets = null) => fc.record({
    kind: fc.constant('statsd'),
    lines: fc.array(fc.record({ metric: fc.constantFrom(...metrics), value, rate: fc.constantFrom(...rates), ...(tagSets ? { tags: fc.constantFrom(...tagSets) } : {}) }), { minLength: 1, maxLength: 4 })
  }),
  /** a flush of one event cut half-way */
  cut: (metrics, value, back) => fc.record({ kind: fc.constant('cut'), metric: fc.constantFrom(...metrics), value, back }),
  advance: fc.record({ kind: fc.constant('advance'), hours: fc.integer({ min: 1, max: 40 }) }),
  retention: fc.constant({ kind: 'retention' }),
  repair: fc.constant({ kind: 'repair' })
}

/**
 * A lifecycle property of one kind (KINDS) over `metrics`: the app built in
 * beforeAll on the suite's database with `env` (MAX_AGE_DAYS,
 * MINUTE_RETENTION_DAYS and DAILY_RETENTION_DAYS set the horizons the
 * checks read) and a manual clock at `start`, closed in afterAll. → h:
 * { clock, app, mapping (a distribution's), seen (what the runs reached),
 * span(), get(url), check(repair, options), run(property) }
 */
export function lifecycleHarness ({ label, kind, start, metrics, env }) {
  const clock = manualClock(start)
  const maxAgeDays = Number(env.MAX_AGE_DAYS)
  const minuteDays = Number(env.MINUTE_RETENTION_DAYS)
  const dailyDays = Number(env.DAILY_RETENTION_DAYS)
  let app
  beforeAll(async () => { app = await testApp(label, { clock, env }) })
  afterAll(async () => { await app?.close() })

  const h = {
    clock,
    get app () { return app },
    mapping: env.DISTRIBUTION_ACCURACY ? createMapping(Number(env.DISTRIBUTION_ACCURACY)) : null,
    /** counts of what the runs reached: retention, repair, downsampled, deleted, cut, statsd, and whatever a property adds */
    seen: { retention: 0, repair: 0, downsampled: 0, deleted: 0, cut: 0, statsd: 0 },
    /** today's start and end; the first day whose minutes, and whose daily documents, retention keeps */
    span () {
      const today = clock.now() - (clock.now() % DAY)
      return { today, to: today + DAY, minuteFrom: today - minuteDays * DAY, dailyFrom: today - dailyDays * DAY }
    },
    /** GET url: 200 (else the body says why), its JSON */
    get: url => getJson(app, url),
    /** `check` within the horizons the configuration sets at the clock's now (options: the check's) → its summary */
    check: (repair, options = {}) => checkApp(app, clock, { repair, ...options }),
    /** Performs one step with the property's hooks (a property's last step, say) */
    perform: (step, model, hooks) => perform(step, model, hooks),
    /**
     * Runs the property: fc.assert over sequences of `action` (minLength..maxLength
     * steps), numRuns and examples as fast-check's. Each sequence starts a run of its
     * own with model() (default: [] whose firstDay is MAX_AGE_DAYS before today),
     * performs its steps, then end(model). Hooks: steps[kind](step, model) (a step of
     * the property's own, or its own meaning of a shared one); ingested(entries, model):
     * the model's entries of what ingest or StatsD had answered 200 (default: pushed); retentionPass (what every pass
     * answers, default { status: 'done' }); beforeRetention(model) → what
     * afterRetention(pass, model, before) compares; repairSummary (what every repair
     * answers, default: anything); afterRepair(model); afterStep(step, model): after every step
     */
    async run ({ action, minLength = 3, maxLength = 14, numRuns, examples, model: newModel, end, ...hooks }) {
      let run = 0
      await fc.assert(fc.asyncProperty(fc.array(action, { minLength, maxLength }), async (sequence) => {
        run++
        await freshRun(app, clock, { collections: kind.collections, metrics, at: start + run * 3 * DAY })
        const model = newModel ? newModel() : Object.assign([], { firstDay: h.span().today - maxAgeDays * DAY })
        for (const step of sequence) {
          await perform(step, model, hooks)
          await hooks.afterStep?.(step, model)
        }
        await end(model)
      }), { numRuns, examples })
    }
  }

  /**
   * The day points of the tagged name `metric` over [from, to), for each of
   * `stats` (null: a counter's, no stat=) read three ways: the name's own
   * read, each series' (by= every key of `keys`: a group is one series, named
   * by its tags) and every series merged (a tag= filter all of them match) →
   * { timestamps, name: { stat: values }, series: Map(series → { stat: values }), merged: { stat: values } }
   */
  h.taggedDays = async (metric, { from, to, keys, stats = [null] }) => {
    const out = { timestamps: null, name: {}, series: new Map(), merged: {} }
    for (const stat of stats) {
      const url = `/v1/metrics/${encodeURIComponent(metric)}/series?from=${from}&to=${to}&step=day${stat ? `&stat=${stat}` : ''}`
      const name = await h.get(url)
      out.timestamps = name.timestamps
      out.name[stat] = name.values
      out.merged[stat] = (await h.get(`${url}&tag=${encodeURIComponent(`${keys[0]}!=none`)}`)).values
      for (const group of (await h.get(`${url}&by=${keys.join(',')}`)).groups) {
        expect(group.series, JSON.stringify(group.tags)).toBe(1)
        const tags = Object.fromEntries(Object.entries(group.tags).filter(([, v]) => v !== null))
        const series = seriesName(metric, tags)
        if (!out.series.has(series)) out.series.set(series, {})
        out.series.get(series)[stat] = group.values
      }
    }
    return out
  }

  const post = async (url, payload, headers) => {
    const res = await app.inject({ method: 'POST', url, payload, headers })
    expect(res.statusCode, res.body).toBe(200)
  }

  /** What was answered 200 into the model: the property's ingested(entries, model), else pushed */
  function acknowledge (entries, model, hooks) {
    if (hooks.ingested) hooks.ingested(entries, model)
    else model.push(...entries)
  }

  async function perform (step, model, hooks) {
    const now = clock.now()
    if (hooks.steps?.[step.kind]) return hooks.steps[step.kind](step, model)
    if (step.kind === 'ingest') {
      const events = step.events.map(e => kind.event(e, now))
      await post('/v1/events', events)
      await app.preallocator.idle() // what the events preallocated is written too
      acknowledge(events.map(kind.acknowledged), model, hooks)
    } else if (step.kind === 'statsd') {
      await post('/v1/statsd', kind.statsd.text(step.lines), { 'content-type': 'text/plain' })
      acknowledge(step.lines.map(l => kind.statsd.acknowledged(l, now)), model, hooks)
      h.seen.statsd++
    } else if (step.kind === 'cut') {
      const entry = kind.acknowledged(kind.event(step, now))
      await kind.cut(app.mongo.db, entry, h)
      model.push({ ...entry, cut: true })
      h.seen.cut++
    } else if (step.kind === 'advance') {
      clock.advance(step.hours * HOUR)
    } else if (step.kind === 'retention') {
      const was = await hooks.beforeRetention?.(model)
      const pass = await app.retention.runOnce()
      expect(pass).toMatchObject(hooks.retentionPass ?? { status: 'done' })
      h.seen.retention++
      h.seen.downsampled += pass.downsampled
      h.seen.deleted += pass.deleted
      await hooks.afterRetention?.(pass, model, was)
    } else if (step.kind === 'repair') {
      const summary = await h.check(true)
      if (hooks.repairSummary) expect(summary).toMatchObject(hooks.repairSummary)
      h.seen.repair++
      await hooks.afterRepair?.(model)
    } else {
      throw new Error(`no step ${JSON.stringify(step.kind)} in this property`)
    }
  }

  return h
}
