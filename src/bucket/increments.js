// What one event adds, and what a request adds: pure maps of $inc fields.
import { daysInMonth, dayId, monthId, startOfDay, startOfMonth, utcParts } from './time.js'

/**
 * The increments of one event: its daily document (day total, hour, minute)
 * and its monthly document (month total, day of month).
 */
export function eventIncrements ({ metric, value, time }, layout) {
  const { day, hour, minute } = utcParts(time)
  return {
    daily: {
      id: dayId(metric, time),
      date: startOfDay(time),
      inc: { daily: value, [`hourly.${hour}`]: value, [layout.minuteField(hour, minute)]: value }
    },
    monthly: {
      id: monthId(metric, time),
      date: startOfMonth(time),
      inc: { monthly: value, [`daily.${day}`]: value }
    }
  }
}

/** $inc map of a zero-filled monthly document for the month starting at monthStart */
export function monthlyZeroIncrements (monthStart) {
  const { year, month } = utcParts(monthStart)
  const inc = { monthly: 0 }
  for (let d = 1; d <= daysInMonth(year, month); d++) inc[`daily.${d}`] = 0
  return inc
}

function addTo (docs, metric, { id, date, inc }) {
  let doc = docs.get(id)
  if (!doc) {
    doc = { metric, date, inc: {} }
    docs.set(id, doc)
  }
  for (const field in inc) doc.inc[field] = (doc.inc[field] ?? 0) + inc[field]
}

/**
 * A request's increments merged per document: the unit the writer queues.
 * events: [{ metric, value, time }] with time in epoch ms.
 * → { daily: Map<id, {metric, date, inc}>, monthly: Map<…>,
 *     metrics: Map<name, {firstSeen, lastSeen}>, events: n }
 */
export function buildWriteUnit (events, layout) {
  const unit = { daily: new Map(), monthly: new Map(), metrics: new Map(), events: events.length }
  for (const event of events) {
    const { daily, monthly } = eventIncrements(event, layout)
    addTo(unit.daily, event.metric, daily)
    addTo(unit.monthly, event.metric, monthly)
    const seen = unit.metrics.get(event.metric)
    if (!seen) unit.metrics.set(event.metric, { firstSeen: event.time, lastSeen: event.time })
    else {
      if (event.time < seen.firstSeen) seen.firstSeen = event.time
      if (event.time > seen.lastSeen) seen.lastSeen = event.time
    }
  }
  return unit
}

/** Merges units into one (a flush); the inputs are not changed. */
export function mergeWriteUnits (units) {
  const merged = { daily: new Map(), monthly: new Map(), metrics: new Map(), events: 0 }
  for (const unit of units) {
    merged.events += unit.events
    for (const [id, doc] of unit.daily) addTo(merged.daily, doc.metric, { id, ...doc })
    for (const [id, doc] of unit.monthly) addTo(merged.monthly, doc.metric, { id, ...doc })
    for (const [name, s] of unit.metrics) {
      const seen = merged.metrics.get(name)
      if (!seen) merged.metrics.set(name, { ...s })
      else {
        seen.firstSeen = Math.min(seen.firstSeen, s.firstSeen)
        seen.lastSeen = Math.max(seen.lastSeen, s.lastSeen)
      }
    }
  }
  return merged
}
