// The ingest service (docs/architecture.md#how-a-request-becomes-a-bulkwrite): the one owner of the rules of accepting events. A door
// (JSON over HTTP, StatsD lines over HTTP, the StatsD listeners) parses its
// format into events { metric, value, time, kind?, weight?, summary? } and calls
// submit(); it gets one outcome back and only translates it
// (src/routes/ingest-reply.js for HTTP). A metric has one kind, fixed by its
// first write (docs/adr/0042-a-metric-has-one-kind.md).
//
// Outcomes:
//   { outcome: APPLIED, accepted }                     every increment acknowledged
//     (admitPerName: also refusedMetrics, the new names a full registry turned away with their events,
//      and kindConflicts: [{ metric, stored, asked, reason? }], each name's events of the kind `asked`
//      turned away: of the kind the name is not, or (reason 'too_many_buckets') too many buckets in a day)
//   { outcome: REJECTED, reason, message, details }    bad events, a kind that is not the metric's, or a full registry; nothing changed
//   { outcome: KEY_UNSUPPORTED, message }              an Idempotency-Key where there are no transactions
//   { outcome: KEY_IN_FLIGHT } / { outcome: KEY_REUSED } / { outcome: REPLAYED, body }
//   { outcome: NOT_APPLIED, reason }                   nothing was written
//   { outcome: UNKNOWN, reason }                       sent, not acknowledged: maybe partly applied
import { buildWriteUnit } from '../kinds/write-unit.js'
import { eventKindName, isCounterEvent } from '../bucket/metric-kinds.js'
import { KINDS, KIND_NAMES, descriptorOfEvent } from '../kinds/index.js'
import { horizonsFor } from '../bucket/retention-horizons.js'
import { isDatabaseError } from '../errors.js'
import { APPLIED, KEY_UNSUPPORTED, NOT_APPLIED, REJECTED, REPLAYED, UNKNOWN } from '../writer/write-outcomes.js'
import { bodyHash, keyId } from '../idempotency/idempotency-store.js'
import { findInvalidEvent } from '../bucket/event-rules.js'
import { isTagged, nameOfSeries } from '../tags/series-name.js'
import { createSeriesNameCache } from '../tags/series-name-cache.js'
import { createRollups } from '../tags/rollups.js'
import { createThresholds } from '../bucket/distribution-thresholds.js'
import { createDocumentIds } from './document-ids.js'

const defaultWhere = (index, field) => `events[${index}].${field}`
const NOTHING_RESERVED = Object.freeze({ reserved: Object.freeze([]), refused: Object.freeze([]) })

/** The distinct metrics `events` are written to (./rollups.js writtenTo: a tagged event's series, name and rollups), in order of first appearance */
function metricNames (events, tagged, writtenTo) {
  if (!tagged) return events.length === 1 ? [events[0].metric] : [...new Set(events.map(e => e.metric))]
  const sent = new Set()
  const names = new Set()
  for (const { metric } of events) {
    if (sent.has(metric)) continue
    sent.add(metric)
    for (const m of writtenTo(metric)) names.add(m)
  }
  return [...names]
}

/** Events without those written to any metric in `names` (a Set): a series goes with its name and its rollups */
const without = (events, names, writtenTo) => events.filter(e => !writtenTo(e.metric).some(m => names.has(m)))

/** `names` (turned away) and the series of `events` written to one of them, in order */
function withSeriesOf (names, events, writtenTo) {
  if (names.length === 0) return names
  const away = new Set(names)
  const more = new Set()
  for (const e of events) if (!away.has(e.metric) && writtenTo(e.metric).some(m => away.has(m))) more.add(e.metric)
  return more.size === 0 ? names : [...names, ...more]
}

/** Whether an event's kind is preallocated (a counter's: kinds/*.js preallocated) */
const preallocatedKind = (e) => descriptorOfEvent(e).preallocated
/** The kind an event asks for its name, as its kind says (a known distribution keeps its own α, a new one takes `accuracy`) */
const askedKind = (e, registry, accuracy) => descriptorOfEvent(e).askedKind(registry.kindOf(e.metric), { accuracy })

/** The first event of `events` breaking its kind's own rules { index, field, message }, or null */
function findInvalidKindEvent (events) {
  for (const kind of KINDS) {
    const invalid = kind.findInvalidEvents(events)
    if (invalid) return invalid
  }
  return null
}

/** The first problem a kind finds in a built unit ({ kind, metrics, message }), or null */
function unitProblem (unit) {
  for (const kind of KINDS) {
    const problem = kind.unitProblem(unit)
    if (problem) return { kind: kind.name, ...problem }
  }
  return null
}

/**
 * The kind each name of a request asks for: null when every event is a
 * counter's (the common request, no Map), else Map name → kind (a new
 * distribution: of accuracy α; a known one keeps its own), or { conflict:
 * index, kinds: [two kind names] } where one request sends a name as two kinds.
 */
function requestKinds (events, registry, accuracy, writtenTo) {
  let i = 0
  while (i < events.length && isCounterEvent(events[i])) i++
  if (i === events.length) return null
  const kinds = new Map()
  // name → the kind it was last asked as: asked again, it changes nothing (kinds are set once), so is skipped
  const asked = new Map()
  for (let j = 0; j < events.length; j++) {
    const { metric } = events[j]
    const kind = eventKindName(events[j])
    if (asked.get(metric) === kind) continue
    asked.set(metric, kind)
    // a series has its name's kind: the name's (and its rollups') events of the request are asked as one kind too
    for (const name of writtenTo(metric)) {
      const nameKind = askedKind({ ...events[j], metric: name }, registry, accuracy)
      const earlier = kinds.get(name)
      if (earlier === undefined) kinds.set(name, nameKind)
      else if (earlier.kind !== nameKind.kind) return { conflict: j, kinds: [earlier.kind, nameKind.kind] }
    }
  }
  return kinds
}

/** Two kind names in the order KINDS lists them (a message reads the same whichever came first) */
const inKindOrder = (names) => [...names].sort((a, b) => KIND_NAMES.indexOf(a) - KIND_NAMES.indexOf(b))

/**
 * Per name (the StatsD doors): the events whose kind is not their name's —
 * the kind known here, else the kind of the name's first event in the
 * request — taken out and named, so that they alone are lost.
 * → { events, conflicts: [{ metric, stored, asked }] } (conflicts: one per name and kind turned away)
 */
function keepEachNamesKind (events, registry) {
  const kindOf = new Map()
  const conflicts = new Map()
  const kept = []
  for (const e of events) {
    const asked = eventKindName(e)
    // a series has its name's kind: judged by the name's (or, new name, the series')
    const name = nameOfSeries(e.metric)
    let kind = kindOf.get(name)
    if (kind === undefined) kindOf.set(name, (kind = registry.kindOf(name)?.kind ?? registry.kindOf(e.metric)?.kind ?? asked))
    if (kind === asked) kept.push(e)
    else conflicts.set(`${name}\n${asked}`, { metric: name, stored: kind, asked })
  }
  return conflicts.size === 0 ? { events, conflicts: [] } : { events: kept, conflicts: [...conflicts.values()] }
}

const kindMessage = ({ metric, stored, asked }) => `metric "${metric}" is a ${stored}, so it cannot take a ${asked}'s values: a metric keeps the kind of its first write; use another name for the ${asked}`

/** Whether the increments of an answer may be in the database (its new metrics then count toward MAX_METRICS) */
const maybeWritten = (answer) => answer !== null && (answer.outcome === APPLIED || answer.outcome === UNKNOWN || answer.outcome === REPLAYED)

export function createIngestService ({ config, clock, registry, writer, idempotency, preallocator, backend, rollups = createRollups(), thresholds = createThresholds(), zonedOf }) {
  const { writtenTo } = rollups
  // a distribution's declared thresholds (docs/kinds/distribution.md#thresholds); none declared: none looked up
  const thresholdsOf = thresholds.declared ? thresholds.of : undefined
  // the tag rules' answers for the series names the doors send, remembered: the doors' and this service's check
  const seriesNames = createSeriesNameCache()
  // the day and month ids of the metrics written, built once a day each (docs/adr/0075-tagged-flush-per-document-work.md)
  const ids = createDocumentIds()
  const horizons = horizonsFor(config)
  const perMetricRules = (config.retentionRules ?? []).length > 0
  /**
   * Minute detail is written only for days inside the metric's minute
   * retention (docs/kinds/counter.md#retention-and-the-check). Without rules every
   * metric has the same horizon: one comparison, no lookup per metric.
   */
  const keeperOf = (horizon) => (now) => {
    if (!perMetricRules) {
      const from = horizons('', now)[horizon]
      return from === null ? undefined : (metric, dayStart) => dayStart >= from
    }
    return (metric, dayStart) => {
      const from = horizons(metric, now)[horizon]
      return from === null || dayStart >= from
    }
  }
  const minuteKeeper = keeperOf('minuteFrom')
  // a distribution's minute histograms: MINUTE_HISTOGRAM_DAYS, never past its minutes
  const minuteHistogramKeeper = keeperOf('minuteHistogramFrom')

  /**
   * The new names of `reserved` that `events` (what is left of a request)
   * still write; the others give their places back at once: nothing of them
   * is written (a new name beside a refused series does not keep a place)
   */
  function releaseUnwritten (reserved, events) {
    if (reserved.length === 0) return reserved
    const written = new Set(metricNames(events, events.some(e => isTagged(e.metric)), writtenTo))
    const unwritten = reserved.filter(n => !written.has(n))
    if (unwritten.length === 0) return reserved
    registry.settle(unwritten, false)
    return reserved.filter(n => written.has(n))
  }

  function write (unit, accepted, key) {
    if (!key) return writer.submit(unit)
    return idempotency.submitOnce({
      id: keyId(key.identity, key.key),
      hash: bodyHash(key.body),
      unit,
      answer: { accepted }
    })
  }

  return {
    /**
     * events: [{ metric, value, time }] (time: epoch ms, resolved by the door).
     * options.idempotency: { key, identity, body } (body: what the door hashes to tell a reused key)
     * options.where(index, field): how the door names an event's field in a message
     * Resolves to one outcome (above); never rejects for a database failure.
     */
    async submit (events, { idempotency: key, where = defaultWhere, admitPerName = false, statsd = false } = {}) {
      if (key && !idempotency) {
        return { outcome: KEY_UNSUPPORTED, message: `Idempotency-Key needs a MongoDB deployment with transactions (a replica set or a sharded cluster); this one (${backend}) has none (GET /readyz: transactions false), so the key cannot be honoured: send the request without it` }
      }
      const now = clock.now()
      const invalid = findInvalidEvent(events, now, config) ?? seriesNames.findInvalidSeries(events) ?? findInvalidKindEvent(events)
      if (invalid) {
        const path = where(invalid.index, invalid.field)
        return { outcome: REJECTED, reason: 'invalid_event', message: `${path}: ${invalid.message}`, details: [{ path, message: invalid.message }] }
      }
      let answer = null
      let reserved = []
      let refused = []
      let conflicts = []
      let kinds = null
      let tagged = false
      let rateLimited = []
      let accepted = 0
      let drawn = null
      try {
        if (admitPerName) {
          ({ events, conflicts } = keepEachNamesKind(events, registry))
          if (events.length === 0) return { outcome: REJECTED, reason: 'kind_mismatch', refusedMetrics: [], kindConflicts: conflicts, message: kindMessage(conflicts[0]) }
        }
        tagged = events.some(e => isTagged(e.metric))
        const names = metricNames(events, tagged, writtenTo)
        kinds = requestKinds(events, registry, config.distributionAccuracy, writtenTo)
        if (kinds?.conflict !== undefined) {
          const path = where(kinds.conflict, 'kind')
          const [one, other] = inKindOrder(kinds.kinds)
          const message = `metric "${events[kinds.conflict].metric}" is sent both as a ${one} and as a ${other}; a metric has one kind`
          return { outcome: REJECTED, reason: 'kind_mismatch', message: `${path}: ${message}`, details: [{ path, message }] }
        }
        // names known here (with the kind asked) reserve nothing: no await (the common request)
        const admission = registry.knowsAll(names, kinds) ? NOTHING_RESERVED : await registry.admit(names, { partial: admitPerName, kinds, statsd, now })
        if (admission.conflicts?.length && !admitPerName) {
          const conflict = admission.conflicts[0]
          const indexOf = (metric) => events.findIndex(e => writtenTo(e.metric).includes(metric))
          const path = where(indexOf(conflict.metric), 'kind')
          return { outcome: REJECTED, reason: 'kind_mismatch', message: `${path}: ${kindMessage(conflict)}`, details: admission.conflicts.map(c => ({ path: where(indexOf(c.metric), 'kind'), message: kindMessage(c) })) }
        }
        if (admission.refusal?.name !== undefined) {
          const { limit, name, over } = admission.refusal
          return { outcome: REJECTED, reason: 'too_many_series', message: `metric "${name}" would have ${over} series past MAX_SERIES_PER_NAME = ${limit}: send fewer distinct tag values (docs/tags.md#cardinality)`, details: [admission.refusal] }
        }
        if (admission.refusal?.perMinute !== undefined) {
          const { perMinute, newMetrics } = admission.refusal
          return { outcome: REJECTED, reason: 'new_metrics_rate', message: `StatsD doors admit at most STATSD_NEW_METRICS_PER_MINUTE = ${perMinute} new metrics and series a minute; this request would add ${newMetrics}: send them in a later minute, or over POST /v1/events`, details: [admission.refusal] }
        }
        if (admission.refusal?.share !== undefined) {
          const { limit, newMetrics } = admission.refusal
          return { outcome: REJECTED, reason: 'registry_full', message: `the StatsD doors' share of the registry is full: ${limit} of MAX_METRICS (STATSD_REGISTRY_SHARE); this request would add ${newMetrics} new metric(s); the rest is kept for POST /v1/events`, details: [admission.refusal] }
        }
        if (admission.refusal) {
          const { limit, newMetrics } = admission.refusal
          return { outcome: REJECTED, reason: 'registry_full', message: `the registry is full: MAX_METRICS = ${limit}; this request would add ${newMetrics} new metric(s)`, details: [admission.refusal] }
        }
        reserved = admission.reserved
        // a series turned away because its name or a rollup of it was is named too: a door counts its losses by the series it sent
        refused = withSeriesOf(admission.refused ?? [], events, writtenTo)
        rateLimited = withSeriesOf(admission.rateLimited ?? [], events, writtenTo)
        const wrongKind = admission.conflicts ?? []
        conflicts = conflicts.concat(wrongKind)
        if (refused.length > 0 || wrongKind.length > 0 || rateLimited.length > 0) {
          // per name (the StatsD doors): the new names the registry has no room for, and the names of
          // another kind (each sent as one kind here), lose their events, no other
          const turnedAway = new Set([...refused, ...rateLimited, ...wrongKind.map(c => c.metric)])
          events = without(events, turnedAway, writtenTo)
          reserved = releaseUnwritten(reserved, events)
          if (events.length === 0) {
            return refused.length || rateLimited.length
              ? { outcome: REJECTED, reason: 'registry_full', refusedMetrics: refused, rateLimited, kindConflicts: conflicts, message: `the registry is full: MAX_METRICS = ${config.maxMetrics}` }
              : { outcome: REJECTED, reason: 'kind_mismatch', refusedMetrics: refused, kindConflicts: conflicts, message: kindMessage(conflicts[0]) }
          }
        }
        // a tagged event counts toward its series, its name and its name's declared rollups in one unit, so one flush
        // writes them all and the name and each rollup are always the sum of the series (docs/tags.md#tags)
        const unitOptions = { keepsMinutes: minuteKeeper(now), keepsMinuteHistograms: minuteHistogramKeeper(now), kindOf: registry.kindOf, thresholdsOf, zonedOf, writtenTo: tagged ? writtenTo : undefined, ids }
        let unit = buildWriteUnit(events, unitOptions)
        const buckets = kinds === null ? null : unitProblem(unit)
        if (buckets && !admitPerName) return { outcome: REJECTED, reason: 'too_many_buckets', message: `events: ${buckets.message}`, details: [{ path: 'events', message: buckets.message, metrics: buckets.metrics }] }
        if (buckets) {
          // per name (the StatsD doors): those distributions' values are lost, no other
          const wide = new Set(buckets.metrics)
          for (const metric of wide) conflicts.push({ metric, stored: buckets.kind, asked: buckets.kind, reason: 'too_many_buckets' })
          events = without(events, wide, writtenTo)
          reserved = releaseUnwritten(reserved, events)
          if (events.length === 0) return { outcome: REJECTED, reason: 'too_many_buckets', refusedMetrics: refused, kindConflicts: conflicts, message: buckets.message }
          unit = buildWriteUnit(events, unitOptions)
        }
        // what is read of the events once the write answers, taken now: a batch's events die young instead of outliving the flush
        accepted = events.length
        // the kinds preallocated (a counter's; kinds/*.js preallocated): drawn now, preallocated once applied
        drawn = preallocator.draw(events, kinds === null ? null : preallocatedKind)
        events = null
        answer = await write(unit, accepted, key)
      } catch (err) {
        // the registry lookup or the key lookup failed: nothing of this request was sent
        if (!isDatabaseError(err)) throw err
        return { outcome: NOT_APPLIED, reason: 'the database could not be reached' }
      } finally {
        registry.settle(reserved, maybeWritten(answer))
      }
      const turnedAway = refused.length || conflicts.length || rateLimited.length
      if (answer.outcome !== APPLIED) return turnedAway ? { ...answer, refusedMetrics: refused, rateLimited, kindConflicts: conflicts } : answer
      preallocator.preallocateDrawn(drawn)
      return turnedAway ? { outcome: APPLIED, accepted, refusedMetrics: refused, rateLimited, kindConflicts: conflicts } : { outcome: APPLIED, accepted }
    },

    /** The series names' answers (../tags/series-name-cache.js): POST /v1/events judges its events' tags with them */
    seriesNames,

    /** Whether `events` more events would be queued now (the StatsD TCP listener reads on only then) */
    hasRoom: (events = 1) => writer.hasRoom(events),
    /** Resolves once `events` more events would be queued */
    waitForRoom: (events = 1) => writer.waitForRoom(events)
  }
}
