// The range planner (docs/architecture.md#reads): covers any
// [from, to) exactly with the coarsest pieces the documents hold — whole UTC
// months from `monthly.monthly`, whole UTC days from `monthly.daily.D` (one
// document for up to 31 days), then hours, quarter-hours and minutes of the
// edge days from their daily documents — and says which documents and
// fields it needs, so that many ranges are read with one projected request
// per collection. Pure.
import { DAY_MS, HOUR_MS, MINUTE_MS, QUARTER_HOUR_MS, describeDay, metricIdPrefix, startOfDay } from './time.js'
import { minuteField } from './minute-fields.js'
import { zonedPieces } from './zoned-days.js'

/** An edge that falls inside the finest slot kept there */
export class RangeRefusal extends Error {
  constructor ({ edge, param, slot, before, after, horizon }) {
    super(`${param}: ${new Date(edge).toISOString()} falls inside a ${slot} slot, the finest detail kept there${horizon ? ` (${horizon})` : ''}; the nearest usable edges are ${new Date(before).toISOString()} and ${new Date(after).toISOString()}`)
    Object.assign(this, { edge, param, slot, before, after, horizon })
  }
}

const SLOT_MS = { minute: MINUTE_MS, 'quarter-hour': QUARTER_HOUR_MS, day: DAY_MS }

/** The finest slot kept at time t: minute, quarter-hour, or day (past the daily horizon only monthly documents remain) */
export function finestSlotAt (t, { minuteFrom = null, dailyFrom = null } = {}) {
  const day = startOfDay(t)
  if (dailyFrom !== null && day < dailyFrom) return 'day'
  if (minuteFrom !== null && day < minuteFrom) return 'quarter-hour'
  return 'minute'
}

/** Why `slot` is the finest there: the horizon that makes it so (null for minutes) */
function horizonOf (slot, { minuteFrom, dailyFrom, minutesNote }) {
  if (slot === 'day') return `daily documents are kept from ${new Date(dailyFrom).toISOString().slice(0, 10)} on`
  if (slot !== 'quarter-hour') return null
  // minutesNote: the read's own reason (a percentile's minute histograms); minuteFrom Infinity: no minute is read on any day
  if (minutesNote) return minutesNote
  return minuteFrom === Infinity ? 'no minute is read here' : `minute detail is kept from ${new Date(minuteFrom).toISOString().slice(0, 10)} on`
}

function checkEdge (t, param, horizons) {
  // an edge belongs to the slot that starts at it: `to` is checked against the slot it ends
  const at = param === 'to' ? t - 1 : t
  const slot = finestSlotAt(at, horizons)
  const size = SLOT_MS[slot]
  const offset = ((t % size) + size) % size
  if (offset === 0) return
  throw new RangeRefusal({ edge: t, param, slot, before: t - offset, after: t - offset + size, horizon: horizonOf(slot, horizons) })
}

// the paths of hours and quarter-hours, built once (a month of local days holds ~800 pieces)
const HOUR_PATHS = Array.from({ length: 24 }, (_, h) => Object.freeze(['hourly', String(h)]))
const QUARTER_PATHS = Array.from({ length: 96 }, (_, i) => Object.freeze(['quarterHourly', String(Math.floor(i / 4)), String(i % 4)]))
const MONTH_PATH = Object.freeze(['monthly'])
const DAY_PATHS = Array.from({ length: 32 }, (_, d) => Object.freeze(['daily', String(d)]))
const MINUTE_PATHS = Array.from({ length: 1440 }, (_, i) => Object.freeze(minuteField(Math.floor(i / 60), i % 60).split('.')))

/**
 * The pieces of [from, to) whatever the metric: [{ collection, key (the
 * document's day or month key), date, path: [field, …] }]; each UTC day
 * described once. idPrefix (metricIdPrefix's): a metric's pieces instead, { collection, id, date, path }
 */
function shapeOf (from, to, idPrefix = null) {
  const piece = idPrefix === null
    ? (collection, key, date, path) => ({ collection, key, date, path })
    : (collection, key, date, path) => ({ collection, id: idPrefix + key, date, path })
  const pieces = []
  let c = from
  while (c < to) {
    const dayStart = startOfDay(c)
    const dayEnd = dayStart + DAY_MS
    const day = describeDay(dayStart)
    if (c === dayStart && dayEnd <= to) {
      const nextMonth = day.nextMonthStart
      if (c === day.monthStart && nextMonth <= to) {
        pieces.push(piece('monthly', day.monthKey, day.monthStart, MONTH_PATH))
        c = nextMonth
      } else {
        pieces.push(piece('monthly', day.monthKey, day.monthStart, DAY_PATHS[day.dayOfMonth]))
        c = dayEnd
      }
      continue
    }
    // part of a day: its hours, quarter-hours and minutes from its daily document
    const end = Math.min(to, dayEnd)
    while (c < end) {
      const inDay = c - dayStart
      const hour = Math.floor(inDay / HOUR_MS)
      let path
      if (inDay % HOUR_MS === 0 && c + HOUR_MS <= end) {
        path = HOUR_PATHS[hour]
        c += HOUR_MS
      } else if (inDay % QUARTER_HOUR_MS === 0 && c + QUARTER_HOUR_MS <= end) {
        path = QUARTER_PATHS[inDay / QUARTER_HOUR_MS]
        c += QUARTER_HOUR_MS
      } else {
        path = MINUTE_PATHS[hour * 60 + Math.floor((inDay % HOUR_MS) / MINUTE_MS)]
        c += MINUTE_MS
      }
      pieces.push(piece('daily', day.dayKey, dayStart, path))
    }
  }
  return pieces
}

/**
 * What a piece's path projects: its field and, below it, the hour or day
 * (`hourly.5`, `minute.5`, `daily.12`), so a read of a few minutes or of
 * each local day's hours does not bring every minute of its documents; one
 * depth for every path, so that projections never collide (`minute` beside `minute.5`)
 */
const fieldOf = (path) => (path.length > 1 ? `${path[0]}.${path[1]}` : path[0])
// each path's, built once: a plan of many ranges projects thousands of pieces
const PROJECTED = new Map([MONTH_PATH, ...HOUR_PATHS, ...QUARTER_PATHS, ...DAY_PATHS, ...MINUTE_PATHS].map(path => [path, fieldOf(path)]))
// any other path's (a zoned local day's: `zoned.<zone>`) by its first two keys, made once each
const projectedOthers = new Map()
function projectedPath (path) {
  const known = PROJECTED.get(path)
  if (known !== undefined || path.length < 2) return known ?? path[0]
  let below = projectedOthers.get(path[0])
  if (below === undefined) projectedOthers.set(path[0], (below = new Map()))
  let field = below.get(path[1])
  if (field === undefined) below.set(path[1], (field = fieldOf(path)))
  return field
}

/**
 * ranges: [{ from, to }] (epoch ms, from < to); horizons: { minuteFrom,
 * dailyFrom } (the first UTC day with minute detail / with a daily document;
 * null = forever; minuteFrom Infinity: no minute is read on any day, with
 * minutesNote saying why in a refusal).
 * Whole days come from `monthly.daily.D`, which exists exactly when the day
 * has (or had) a daily document, so a range of whole days reads one monthly
 * document per month. Throws RangeRefusal (param 'from' or 'to') for an edge
 * finer than the detail kept there.
 * → { reads: { daily: { ids, projection, fields }, monthly: … }, ranges: [pieces] }, fields: Map id → Set of
 * the fields its pieces project (projection is their union)
 */
export function planRanges (metric, ranges, horizons = {}) {
  checkRangeEdges(ranges, horizons)
  // a zoned local day's pieces name their zone (zoned-days.js), and a long list (a series' points) is rarely asked
  // for again: such plans are made piece by piece, not kept as templates
  if (ranges.length > MAX_TEMPLATE_RANGES || ranges.some(range => range.zone !== undefined)) return planEachPiece(metric, ranges)
  const template = templateOf(ranges)
  const prefix = metricIdPrefix(metric) // bucketId(metric, key) is prefix + key
  const idOf = new Map()
  const read = (collection) => {
    const fields = new Map()
    for (const [key, own] of template.fields[collection]) {
      const id = prefix + key
      idOf.set(key, id)
      fields.set(id, own)
    }
    return { ids: [...fields.keys()], projection: template.projection[collection], fields }
  }
  const reads = { daily: read('daily'), monthly: read('monthly') }
  const planned = template.ranges.map(shape => {
    const pieces = new Array(shape.length)
    for (let i = 0; i < shape.length; i++) {
      const { collection, key, date, path } = shape[i]
      pieces[i] = { collection, id: idOf.get(key), date, path }
    }
    return pieces
  })
  return { reads, ranges: planned }
}

/** Throws RangeRefusal as planRanges does for an edge of `ranges` finer than the detail kept there (horizons as planRanges') */
export function checkRangeEdges (ranges, horizons = {}) {
  for (const { from, to, zone } of ranges) {
    if (zone === undefined) {
      checkEdge(from, 'from', horizons)
      checkEdge(to, 'to', horizons)
    }
  }
}

/** planRanges piece by piece, for a long list or ranges with a zoned local day (its edges checked) */
function planEachPiece (metric, ranges) {
  const reads = { daily: { fields: new Map(), projection: {} }, monthly: { fields: new Map(), projection: {} } }
  const planned = ranges.map((range) => {
    const pieces = range.zone === undefined ? piecesOf(metric, range.from, range.to) : zonedPieces(metric, range)
    for (const p of pieces) addPiece(reads[p.collection], p.id, p.path)
    return pieces
  })
  const read = ({ fields, projection }) => ({ ids: [...fields.keys()], projection, fields })
  return { reads: { daily: read(reads.daily), monthly: read(reads.monthly) }, ranges: planned }
}

/** A piece's field added to its document's (by id or key) and to the projection */
function addPiece ({ fields, projection }, id, path) {
  const field = projectedPath(path)
  let own = fields.get(id)
  if (own === undefined) fields.set(id, (own = new Set()))
  own.add(field)
  projection[field] = 1
}

/** The pieces of [from, to): [{ collection, id, date, path: [field, …] }] */
const piecesOf = (metric, from, to) => shapeOf(from, to, metricIdPrefix(metric))

// The plans of the lists of ranges planned last, whatever the metric
// (templates): a scrape plans the same few ranges (an SLO's period, the
// burn-rate windows) for every series it reads, a year SLO's report its
// days and those windows (371 ranges) for each series of its selectors.
// Lists of at most MAX_TEMPLATE_RANGES ranges (a day of minutes is not
// kept), kept until they hold MAX_TEMPLATE_PIECES pieces, then forgotten
// all at once; a larger plan is not kept.
export const MAX_TEMPLATE_RANGES = 400
export const MAX_TEMPLATE_PIECES = 20_000
const templates = new Map()
let templatePieces = 0
// a template's Set of a document's fields → its projection key, made once (documentsByProjection)
const sharedKeys = new WeakMap()

/** How many pieces the templates kept hold (at most MAX_TEMPLATE_PIECES) */
export const heldTemplatePieces = () => templatePieces

/**
 * The plan of `ranges` (none zoned) with documents named by their day or
 * month key → { ranges: [[{ collection, key, date, path }]], fields: { daily:
 * Map key → Set, monthly: … }, projection: { daily, monthly } }, frozen: shared by every plan made from it
 */
function templateOf (ranges) {
  let key = ''
  for (const { from, to } of ranges) key += `${from} ${to},`
  let template = templates.get(key)
  if (template !== undefined) return template
  const fields = { daily: { fields: new Map(), projection: {} }, monthly: { fields: new Map(), projection: {} } }
  let pieces = 0
  const shapes = ranges.map(({ from, to }) => {
    const shape = shapeOf(from, to)
    for (const p of shape) addPiece(fields[p.collection], p.key, p.path)
    pieces += shape.length
    return Object.freeze(shape.map(p => Object.freeze(p)))
  })
  for (const own of [...fields.daily.fields.values(), ...fields.monthly.fields.values()]) sharedKeys.set(own, projectionKey(own))
  template = Object.freeze({
    ranges: Object.freeze(shapes),
    fields: Object.freeze({ daily: fields.daily.fields, monthly: fields.monthly.fields }),
    projection: Object.freeze({ daily: Object.freeze(fields.daily.projection), monthly: Object.freeze(fields.monthly.projection) })
  })
  if (pieces > MAX_TEMPLATE_PIECES) return template
  if (templatePieces + pieces > MAX_TEMPLATE_PIECES) {
    templates.clear()
    templatePieces = 0
  }
  templates.set(key, template)
  templatePieces += pieces
  return template
}

/**
 * The documents of a collection that several plans read, each with the
 * fields its own pieces project (not every field of every plan) → [{
 * projection, ids }], the documents that project the same fields together
 */
export function documentsByProjection (plans, collection) {
  const fields = new Map() // id → its fields: a plan's own Set until a second plan names the id, then a copy
  const merged = new Set() // the ids whose Set is a copy
  for (const plan of plans) {
    for (const [id, own] of plan.reads[collection].fields) {
      let all = fields.get(id)
      if (all === undefined) {
        fields.set(id, own)
        continue
      }
      if (!merged.has(id)) {
        merged.add(id)
        fields.set(id, (all = new Set(all)))
      }
      for (const f of own) all.add(f)
    }
  }
  const groups = new Map()
  for (const [id, own] of fields) {
    // a template's Set has its key made once (templateOf)
    const key = (merged.has(id) ? undefined : sharedKeys.get(own)) ?? projectionKey(own)
    let group = groups.get(key)
    if (group === undefined) groups.set(key, (group = { projection: Object.fromEntries(key.split(' ').map(f => [f, 1])), ids: [] }))
    group.ids.push(id)
  }
  return [...groups.values()]
}

const projectionKey = (fields) => [...fields].sort().join(' ')

/**
 * How evaluatePlan adds a counter's pieces: combine(total, node) → the new
 * total, where total is null at a range's first piece found in a document and
 * node is what that document holds at the piece's path (undefined where the
 * field is absent: it adds 0).
 */
export const sumNumbers = (total, node) => (total ?? 0) + (typeof node === 'number' ? node : 0)

/**
 * The value of each planned range from the documents read ({ daily: [docs],
 * monthly: [docs] }): the sum of its pieces, null where no document holds
 * any of them; `documents` counts the distinct documents it used. A monthly
 * document holds each of its days (0 where never written, as a year to date
 * counts them); with options.strictDays only the days with a daily
 * document (`daily.D` present), as a day series reads them.
 * options.combine adds a piece to the total (default sumNumbers, counters;
 * distribution-stats.js merges tier objects with it); options.ids: each
 * range's documents used, by id, besides their count.
 * → [{ value, documents, ids? (a Set) }]
 */
export function evaluatePlan (plan, docs, { strictDays = false, combine = sumNumbers, ids = false } = {}) {
  const byId = docsById(docs)
  return plan.ranges.map(pieces => {
    let value = null
    const used = new Set()
    // pieceNodes' walk, without a generator's object a piece: a scrape adds tens of thousands
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i]
      const doc = byId.get(piece.id)
      if (doc === undefined) continue
      used.add(piece.id)
      const node = nodeOf(doc, piece, strictDays)
      if (node !== SKIPPED) value = combine(value, node)
    }
    return ids ? { value, documents: used.size, ids: used } : { value, documents: used.size }
  })
}

/** The documents read ({ daily: [docs], monthly: [docs] }) by id, for pieceNodes */
export function docsById (docs) {
  const byId = new Map()
  for (const doc of [...(docs.daily ?? []), ...(docs.monthly ?? [])]) byId.set(doc._id, doc)
  return byId
}

/** What pieceNodes gives for a document that counts as used but adds nothing (strictDays: a day its month holds no field for) */
export const SKIPPED = Symbol('skipped')

/**
 * The pieces of one planned range that a document read holds, in order, as
 * evaluatePlan adds them: { id, node } (node: what the document holds at the
 * piece's path, undefined where the field is absent, SKIPPED for a day a
 * monthly document lacks under strictDays). The one walk of a range's
 * pieces, for a caller that adds them at its own pace (a distribution's
 * read, which lets the event loop turn between pieces).
 */
export function * pieceNodes (pieces, byId, { strictDays = false } = {}) {
  for (const piece of pieces) {
    const doc = byId.get(piece.id)
    if (doc !== undefined) yield { id: piece.id, node: nodeOf(doc, piece, strictDays) }
  }
}

/** What a document read holds at a piece's path (pieceNodes' node) */
function nodeOf (doc, { collection, path }, strictDays) {
  let node = doc
  for (let k = 0; k < path.length; k++) node = node?.[path[k]]
  return strictDays && node === undefined && collection === 'monthly' && path[0] === 'daily' ? SKIPPED : node
}
