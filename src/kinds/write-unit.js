// The unit the writer queues for a request, and merges per flush: each
// kind's document maps (./index.js DOCUMENT_PARTS, a Map<id, update> per
// collection, as the kind builds them) and the registry entries it touches.
// Pure.
//   { <collection of a kind>: Map<id, update>     e.g. daily, monthly: { metric, date, inc, detail? }
//                                                 (a held kind's: a Set of ids; its documents built at the flush)
//     held: null | Map<kind name, what its part holds>   e.g. a distribution's values
//     metrics: Map<name, { firstSeen, lastSeen, kind? }>   kind: a new distribution's or gauge's, for $setOnInsert
//     events: n }
import { mergeUnitsWith, widenSeen } from '../bucket/increments.js'
import { DOCUMENT_PARTS, KINDS, descriptorOfEvent } from './index.js'
import { counter } from './counter.js'

// the part of a unit without values of that kind: shared, never written to (merges build new Maps)
const NO_DOCUMENTS = new Map()

// the kinds whose units hold values and their documents' ids, built into documents once per flush (a descriptor's `held`)
const HELD_KINDS = KINDS.filter(k => k.held !== undefined)
const HELD_COLLECTIONS = new Set(HELD_KINDS.flatMap(k => Object.values(k.collections)))
// the others' documents, built per request and merged per flush (a part's `add`)
const MERGED_PARTS = Object.freeze(DOCUMENT_PARTS.filter(p => !HELD_COLLECTIONS.has(p.collection)).map(p => [p.collection, p.add]))

/** The documents a unit updates, of every kind */
export const documentsOf = (unit) => DOCUMENT_PARTS.reduce((n, { collection }) => n + unit[collection].size, 0)

/** Adds a part's registry entries, with their kind, into the unit's */
function addSeen (unit, metrics) {
  for (const [name, seen] of metrics) {
    widenSeen(unit.metrics, name, seen.firstSeen, seen.lastSeen)
    if (seen.kind !== undefined) unit.metrics.get(name).kind = seen.kind
  }
}

/** A unit of one kind's part: its maps, every other collection's empty */
function unitOf (descriptor, { docs, metrics }, events) {
  const unit = {}
  for (const { collection } of DOCUMENT_PARTS) unit[collection] = docs[collection] ?? NO_DOCUMENTS
  unit.metrics = metrics
  unit.events = events
  unit.held = null // kind name → what a held kind's part holds (its buildPart's `held`)
  return unit
}

/**
 * Each event, and a copy of it for each other metric it counts in
 * (writtenTo: ../tags/rollups.js; none: the events as they are)
 */
export function eventsWrittenTo (events, writtenTo) {
  if (writtenTo === undefined) return events
  const written = []
  for (const e of events) {
    written.push(e)
    const targets = writtenTo(e.metric)
    for (let i = 1; i < targets.length; i++) written.push({ ...e, metric: targets[i] })
  }
  return written
}

/**
 * events: [{ metric, value, time, kind?, weight?, summary? }] (no kind: a
 * counter's increment; otherwise the kind's event, ./index.js).
 * options.keepsMinutes (and for distributions keepsMinuteHistograms,
 * bucket/distribution-increments.js) as in bucket/increments.js;
 * options.kindOf(metric) → the registry's kind of a metric
 * (bucket/metric-kinds.js: a distribution's accuracy and mapping);
 * options.zonedOf(metric) → null or the fields of the local days of its
 * declared zones a counter's event adds to in its month document
 * (bucket/zoned-days.js; docs/adr/0073-local-days-in-the-month.md);
 * options.writtenTo(metric) → the metrics an event of it counts in, itself
 * first (../tags/rollups.js): the unit is that of every event sent to each
 * (eventsWrittenTo), built without the copies for counters.
 */
export function buildWriteUnit (events, options = {}) {
  let others = 0
  for (let i = 0; i < events.length; i++) if (events[i].kind !== undefined) others++
  // the common request: counters only, no copy of its events
  if (others === 0) {
    const part = counter.buildPart(events, options)
    return unitOf(counter, part, part.events)
  }
  const byKind = new Map(KINDS.map(k => [k, []]))
  for (const e of events) byKind.get(descriptorOfEvent(e)).push(e)
  const counted = counter.buildPart(byKind.get(counter), options)
  const unit = unitOf(counter, counted, counted.events)
  for (const [descriptor, list] of byKind) {
    if (descriptor === counter || list.length === 0) continue
    const written = eventsWrittenTo(list, options.writtenTo)
    const { docs, metrics, held } = descriptor.buildPart(written, options)
    Object.assign(unit, docs)
    if (held !== undefined) (unit.held ??= new Map()).set(descriptor.name, held)
    addSeen(unit, metrics)
    unit.events += written.length
  }
  return unit
}

/**
 * Merges units into one (a flush): $inc fields added, $min/$max narrowed, the
 * later last kept; a held kind's documents built from every unit's values, in
 * queue order. The inputs are not changed.
 */
export function mergeWriteUnits (units) {
  const merged = units.length === 1 ? { ...units[0] } : mergeUnitsWith(units, MERGED_PARTS)
  for (const kind of HELD_KINDS) {
    const helds = []
    for (const unit of units) {
      const held = unit.held?.get(kind.name)
      if (held !== undefined) helds.push(held)
    }
    if (helds.length > 0) Object.assign(merged, kind.held.documents(helds))
    else for (const collection of Object.values(kind.collections)) merged[collection] = NO_DOCUMENTS
  }
  merged.held = null
  return merged
}
