// The unit the writer queues for a request, and merges per flush: its
// counters' increments (increments.js), its distributions' updates
// (distribution-increments.js) and its gauges' updates (gauge-increments.js),
// one per document, with the registry entries it touches. Pure.
//   { daily, monthly: Map<id, { metric, date, inc, detail? }>                 counters
//     distributionDaily, distributionMonthly: Map<id, TieredDocument>         tiered-document.js: { inc, min, max, detail? } by updateOfTiers
//     distributionMinutes: Map<hourId, { metric, date, inc }>                 a distribution's minute histograms
//     gaugeDaily, gaugeMonthly: Map<id, { metric, date, inc, min, max, last, detail? }>
//     metrics: Map<name, { firstSeen, lastSeen, kind? }>   kind: a new distribution's or gauge's, for $setOnInsert
//     events: n }
import { addCounterIncrements, buildCounterUnit, mergeUnitsWith, widenSeen } from './increments.js'
import { addMinuteHistogramUpdate, buildDistributionTiers } from './distribution-increments.js'
import { addGaugeUpdate, buildGaugeUnit } from './gauge-increments.js'
import { DISTRIBUTION_KIND, GAUGE, GAUGE_KIND } from './metric-kinds.js'
import { addTieredDocument } from './tiered-document.js'

// the part of a unit without values of that kind: shared, never written to (merges build new Maps)
const NO_DOCUMENTS = new Map()

/** The unit's document maps of every kind, each with how one document's update is added into a Map */
export const DOCUMENT_PARTS = Object.freeze([
  ['daily', addCounterIncrements],
  ['monthly', addCounterIncrements],
  ['distributionDaily', addTieredDocument],
  ['distributionMonthly', addTieredDocument],
  ['distributionMinutes', addMinuteHistogramUpdate],
  ['gaugeDaily', addGaugeUpdate],
  ['gaugeMonthly', addGaugeUpdate]
])

/** The documents a unit updates, of every kind */
export const documentsOf = (unit) => DOCUMENT_PARTS.reduce((n, [field]) => n + unit[field].size, 0)

/** Whether an event is a distribution's value (no kind: a counter's increment) */
export const isDistributionEvent = (e) => e.kind === DISTRIBUTION_KIND

/** Whether an event is a gauge's value */
export const isGaugeEvent = (e) => e.kind === GAUGE_KIND

/** Adds a part's registry entries, with their kind, into the unit's */
function addSeen (unit, metrics) {
  for (const [name, seen] of metrics) {
    widenSeen(unit.metrics, name, seen.firstSeen, seen.lastSeen)
    unit.metrics.get(name).kind = seen.kind
  }
}

/**
 * events: [{ metric, value, time, kind?, weight?, summary? }] (kind
 * 'distribution': one observed value, weight observations of it; kind
 * 'gauge': a level at time, or with summary the door's merge of several;
 * otherwise a counter's increment). options.keepsMinutes (and for
 * distributions keepsMinuteHistograms, distribution-increments.js) as in
 * increments.js; options.kindOf(metric) → the distribution's kind
 * (metric-kinds.js: its accuracy and mapping).
 */
export function buildWriteUnit (events, { keepsMinutes, keepsMinuteHistograms, kindOf } = {}) {
  let others = 0
  for (let i = 0; i < events.length; i++) if (events[i].kind !== undefined) others++
  if (others === 0) {
    // the common request: counters only, no copy of its events
    const unit = buildCounterUnit(events, { keepsMinutes })
    unit.distributionDaily = NO_DOCUMENTS
    unit.distributionMonthly = NO_DOCUMENTS
    unit.distributionMinutes = NO_DOCUMENTS
    unit.gaugeDaily = NO_DOCUMENTS
    unit.gaugeMonthly = NO_DOCUMENTS
    return unit
  }
  const counters = []
  const gauges = []
  const byKind = new Map() // distribution kind → its events (one per accuracy)
  for (const e of events) {
    if (isGaugeEvent(e)) { gauges.push(e); continue }
    if (!isDistributionEvent(e)) { counters.push(e); continue }
    const kind = kindOf(e.metric)
    let list = byKind.get(kind)
    if (!list) byKind.set(kind, (list = []))
    list.push(e)
  }
  const unit = buildCounterUnit(counters, { keepsMinutes })
  unit.distributionDaily = NO_DOCUMENTS
  unit.distributionMonthly = NO_DOCUMENTS
  unit.distributionMinutes = NO_DOCUMENTS
  if (byKind.size > 0) {
    const parts = [...byKind].map(([kind, list]) => {
      const part = buildDistributionTiers(list, kind.mapping, { keepsMinutes, keepsMinuteHistograms })
      for (const seen of part.metrics.values()) seen.kind = kind
      return part
    })
    const merged = mergeUnitsWith(parts, [['daily', addTieredDocument], ['monthly', addTieredDocument], ['minutes', addMinuteHistogramUpdate]])
    unit.distributionDaily = merged.daily
    unit.distributionMonthly = merged.monthly
    unit.distributionMinutes = merged.minutes
    addSeen(unit, merged.metrics)
  }
  unit.gaugeDaily = NO_DOCUMENTS
  unit.gaugeMonthly = NO_DOCUMENTS
  if (gauges.length > 0) {
    const part = buildGaugeUnit(gauges, { keepsMinutes })
    for (const seen of part.metrics.values()) seen.kind = GAUGE
    unit.gaugeDaily = part.daily
    unit.gaugeMonthly = part.monthly
    addSeen(unit, part.metrics)
  }
  unit.events = events.length
  return unit
}

/** Merges units into one (a flush): $inc fields added, $min/$max narrowed, the later last kept; the inputs are not changed */
export const mergeWriteUnits = (units) => mergeUnitsWith(units, DOCUMENT_PARTS)
