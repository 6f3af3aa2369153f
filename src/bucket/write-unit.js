// The unit the writer queues for a request, and merges per flush: its
// counters' increments (increments.js) and its distributions' updates
// (distribution-increments.js), one per document, with the registry entries
// it touches. Pure.
//   { daily, monthly: Map<id, { metric, date, inc, detail? }>                 counters
//     distributionDaily, distributionMonthly: Map<id, { metric, date, inc, min, max, detail? }>
//     metrics: Map<name, { firstSeen, lastSeen, kind? }>   kind: a new distribution's, for $setOnInsert
//     events: n }
import { addCounterIncrements, buildCounterUnit, mergeUnitsWith, widenSeen } from './increments.js'
import { addDistributionUpdate, buildDistributionUnit } from './distribution-increments.js'
import { hierarchicalLayout } from './layouts.js'
import { DISTRIBUTION_KIND } from './metric-kinds.js'

// the distribution part of a unit without distributions: shared, never written to (merges build new Maps)
const NO_DOCUMENTS = new Map()

const PARTS = [
  ['daily', addCounterIncrements],
  ['monthly', addCounterIncrements],
  ['distributionDaily', addDistributionUpdate],
  ['distributionMonthly', addDistributionUpdate]
]

/** Whether an event is a distribution's value (no kind: a counter's increment) */
export const isDistributionEvent = (e) => e.kind === DISTRIBUTION_KIND

/**
 * events: [{ metric, value, time, kind?, weight? }] (kind 'distribution':
 * one observed value, weight observations of it; otherwise a counter's
 * increment). options.keepsMinutes as in increments.js; options.kindOf(metric)
 * → the distribution's kind (metric-kinds.js: its accuracy and mapping).
 * Distribution documents always have the hierarchical minute layout (the flat
 * one is the counters' experiment only).
 */
export function buildWriteUnit (events, layout, { keepsMinutes, kindOf } = {}) {
  let distributions = 0
  for (let i = 0; i < events.length; i++) if (isDistributionEvent(events[i])) distributions++
  if (distributions === 0) {
    // the common request: counters only, no copy of its events
    const unit = buildCounterUnit(events, layout, { keepsMinutes })
    unit.distributionDaily = NO_DOCUMENTS
    unit.distributionMonthly = NO_DOCUMENTS
    return unit
  }
  const counters = []
  const byKind = new Map() // kind → its events (one per accuracy)
  for (const e of events) {
    if (!isDistributionEvent(e)) { counters.push(e); continue }
    const kind = kindOf(e.metric)
    let list = byKind.get(kind)
    if (!list) byKind.set(kind, (list = []))
    list.push(e)
  }
  const unit = buildCounterUnit(counters, layout, { keepsMinutes })
  const parts = [...byKind].map(([kind, list]) => {
    const part = buildDistributionUnit(list, kind.mapping, hierarchicalLayout, { keepsMinutes })
    for (const seen of part.metrics.values()) seen.kind = kind
    return part
  })
  const merged = mergeUnitsWith(parts, [['daily', addDistributionUpdate], ['monthly', addDistributionUpdate]])
  unit.distributionDaily = merged.daily
  unit.distributionMonthly = merged.monthly
  for (const [name, seen] of merged.metrics) {
    widenSeen(unit.metrics, name, seen.firstSeen, seen.lastSeen)
    unit.metrics.get(name).kind = seen.kind
  }
  unit.events = events.length
  return unit
}

/** Merges units into one (a flush): $inc fields added, $min/$max narrowed; the inputs are not changed */
export const mergeWriteUnits = (units) => mergeUnitsWith(units, PARTS)
