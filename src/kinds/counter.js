// The counter (docs/kinds/counter.md): a value added per minute; its day
// and month documents hold sums in every tier (day, hour, quarter-hour,
// minute; month, day of month). The default kind: an event without `kind`,
// a registry entry without `kind`, StatsD `c`. Pure.
import { addCounterIncrements, buildCounterUnit } from '../bucket/increments.js'
import { COUNTER, COUNTER_KIND } from '../bucket/metric-kinds.js'
import { incrementUpdate } from './document-updates.js'
import { compareDay, monthlyDayRepair, verifyDaily, verifyMonthlyTotal } from './consistency/counter.js'

const toOperation = (id, doc) => incrementUpdate(id, doc)

export const counter = Object.freeze({
  name: COUNTER_KIND,
  statsdTypes: Object.freeze(['c']),
  /** JSON (POST /v1/events): the value an event without one adds */
  json: Object.freeze({ defaultValue: 1, valueMissing: null }),
  /** The registry kind an event of this kind asks for its name (bucket/metric-kinds.js) */
  askedKind: () => COUNTER,
  /** Whether ingest preallocates its next day (jobs/preallocator.js: a counter's tiers only) */
  preallocated: true,
  /** events → the first event breaking this kind's own rules { index, field, message }, or null */
  findInvalidEvents: () => null,
  /** A built write unit → the problem that refuses some of its metrics { metrics, message }, or null */
  unitProblem: () => null,
  /** Its collections by role: the day documents, the month documents */
  collections: Object.freeze({ daily: 'daily', monthly: 'monthly' }),
  /**
   * Its document maps in a write unit (./write-unit.js): the unit's field
   * (its collection's name), the key prefix a document's outcome is filed
   * under, how one document's update is added into a map, and how an entry
   * becomes an operation (writer/write-operations.js)
   */
  parts: Object.freeze([
    Object.freeze({ collection: 'daily', prefix: 'd:', add: addCounterIncrements, toOperation }),
    Object.freeze({ collection: 'monthly', prefix: 'm:', add: addCounterIncrements, toOperation })
  ]),
  /** events → { docs: { daily, monthly (with the local days of declared zones, bucket/zoned-days.js) }, metrics, events: counted in each metric written to } (metrics' entries carry no kind: a counter writes no registry field) */
  buildPart (events, { keepsMinutes, writtenTo, zonedOf, ids }) {
    const unit = buildCounterUnit(events, { keepsMinutes, writtenTo, zonedOf, ids })
    return { docs: { daily: unit.daily, monthly: unit.monthly }, metrics: unit.metrics, events: unit.events }
  },
  /** Stats a read may name (none: a counter's value is its sum) and how its points consolidate over a span */
  stats: Object.freeze({ names: Object.freeze([]), default: null }),
  consolidation: 'sum',
  /** What reads it answers, and what a refusal says (reader/reader.js: `metric "m" is a counter: …`) */
  reads: Object.freeze({ series: true, total: true, ytd: true, quantiles: false }),
  refusals: Object.freeze({
    stat: (name) => `its points are sums, and stat=${name} is for distributions and gauges`,
    quantiles: 'quantiles are kept for distributions only (values sent with "kind": "distribution", or StatsD ms, h and d)'
  }),
  /** The dashboard: what a point of its default series is (`step`: the series' step; GET /v1/kinds) */
  dashboard: Object.freeze({ point: 'count per step' }),
  /** Graphite: the name is a leaf of its sums; no stat leaves */
  graphite: Object.freeze({ nameIsLeaf: true, statLeaves: null }),
  /** How the check walks its documents (jobs/check-run.js) */
  check: Object.freeze({
    verifyDaily: (doc, minutesComplete) => verifyDaily(doc, { minutesComplete }),
    verifyMonthly: verifyMonthlyTotal,
    /**
     * A day's total as the document vouches for it: its own `daily`, or what the
     * check restores it to from a finer tier it trusts (a daily field that
     * disagrees is its own violation). A total the check could not restore
     * (left alone) counts as found.
     */
    dayTotal (doc, verifyDay) {
      const { violations, repair } = verifyDay(doc)
      const wrong = violations.find(v => v.field === 'daily')
      return wrong && repair?.update.$inc?.daily !== undefined ? wrong.expected : doc.daily
    },
    compareDay,
    dayRepair: (now, mismatch) => (mismatch.difference === null ? null : monthlyDayRepair({ ...now, difference: mismatch.difference })),
    same: (a, b) => a === b
  }),
  /** Retention: numbers in every tier, downsampled by one update per metric (jobs/retention-job.js metricPass) */
  retention: null
})
