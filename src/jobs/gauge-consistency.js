// What `npm run check` and the retention job verify of gauge documents
// (docs/decisions.md, "Gauges: retention and the check"), as pure functions
// over stored documents. Every tier is { count, sum, min, max, last: { t, v } }
// and tiers merge as they are written ($inc of count and sum, $min, $max, and
// $max of `last`, the later (t, v)):
//   - in a daily document the quarter-hours are the truth for every hour and
//     the day (count, sum, min, max, last); the minutes are the truth for
//     their quarter-hour while they hold every value of their day (no
//     `detail`), and always hold a subset of its values (bounds inside its
//     own, `last` no later than its own);
//   - in a monthly document the days are the truth for the month;
//   - across documents the daily document's day tier is the truth for
//     `monthly.daily.D`.
// A repair only ever raises: the coarser tier gets what it lacks ($inc of the
// missing count and sum, $min/$max of the missing bounds, $max of a later
// `last`), and a tier that holds more than its truth anywhere (a count, a
// bound past it, a later `last`) is reported and left alone — a repair never
// lowers a count nor moves `last` back. Each repair is conditioned on the
// count and sum of every tier it changes, as read (ingest moves both of every
// tier it writes), so a concurrent write makes it miss and be recomputed.
import { Double } from 'mongodb'
import { QUARTER_HOUR_DETAIL } from '../bucket/increments.js'
import { sameTotal } from './consistency.js'

const isCount = n => typeof n === 'number' && Number.isFinite(n) && n >= 0
const isPlainObject = v => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date)
const isDate = v => v instanceof Date && !Number.isNaN(v.getTime())

/** Whether last a ({ t: ms, v }) is later than b, as BSON orders a stored { t, v }: t first, then v */
const later = (a, b) => a.t > b.t || (a.t === b.t && a.v > b.v)
const sameLast = (a, b) => (a === undefined ? b === undefined : b !== undefined && a.t === b.t && a.v === b.v)

/**
 * A stored gauge tier as the checks read it → { tier } or { problem }. Absent
 * (undefined/null) is the empty tier. tier: { count, sum, min?, max?, last?:
 * { t: ms, v }, scale } where scale bounds Σ|v| (for the tolerance of sums).
 */
export function readGaugeTier (node) {
  const tier = { count: 0, sum: 0, min: undefined, max: undefined, last: undefined, scale: 0 }
  if (node === undefined || node === null) return { tier }
  if (!isPlainObject(node)) return { problem: `${JSON.stringify(node)} is not a gauge tier` }
  if (node.count !== undefined && !isCount(node.count)) return { problem: `count ${JSON.stringify(node.count)} is not a count` }
  for (const name of ['sum', 'min', 'max']) {
    if (node[name] !== undefined && !(typeof node[name] === 'number' && Number.isFinite(node[name]))) return { problem: `${name} ${JSON.stringify(node[name])} is not a finite number` }
  }
  const { last } = node
  if (last !== undefined && !(isPlainObject(last) && isDate(last.t) && typeof last.v === 'number' && Number.isFinite(last.v))) {
    return { problem: `last ${JSON.stringify(last)} is not { t: a date, v: a finite number }` }
  }
  tier.count = node.count ?? 0
  tier.sum = node.sum ?? 0
  tier.min = node.min
  tier.max = node.max
  if (last !== undefined) tier.last = { t: last.t.getTime(), v: last.v }
  tier.scale = Math.max(Math.abs(tier.sum), tier.count * Math.max(Math.abs(tier.min ?? 0), Math.abs(tier.max ?? 0)))
  return { tier }
}

const emptyTier = () => readGaugeTier(undefined).tier
const isEmpty = t => t.count === 0 && t.min === undefined && t.max === undefined && t.last === undefined

/** acc + t, in place (read tiers): what $inc, $min, $max and $max of `last` would leave */
function addInto (acc, t) {
  acc.count += t.count
  acc.sum += t.sum
  acc.scale += t.scale
  if (t.min !== undefined && (acc.min === undefined || t.min < acc.min)) acc.min = t.min
  if (t.max !== undefined && (acc.max === undefined || t.max > acc.max)) acc.max = t.max
  if (t.last !== undefined && (acc.last === undefined || later(t.last, acc.last))) acc.last = t.last
  return acc
}

const shortNumber = n => (Number.isInteger(n) ? String(n) : String(Number(n.toPrecision(12))))
const describeLast = l => `${l.v} at ${new Date(l.t).toISOString()}`

/** A read gauge tier in a line */
export function describeGaugeTier (t) {
  if (isEmpty(t)) return 'empty'
  const bounds = t.min === undefined && t.max === undefined ? '' : `, min ${t.min}, max ${t.max}`
  return `count ${shortNumber(t.count)}, sum ${shortNumber(t.sum)}${bounds}${t.last ? `, last ${describeLast(t.last)}` : ''}`
}

/**
 * A coarser tier against its truth (both read). bounds 'exact': the truth
 * holds every value of the coarser one (min, max and last must be equal);
 * 'cover': the truth may hold a subset (the coarser min ≤ its min, max ≥ its
 * max, last no earlier than its last).
 * → { equal, repairable, inc: { count?, sum? }, min?, max?, last?, lacking: [text], excess: [text] }
 * where inc/min/max/last are what the coarser lacks (repairable: it holds no more anywhere).
 */
export function compareGaugeTiers (coarser, truth, { bounds = 'exact' } = {}) {
  const inc = {}
  const lacking = []
  const excess = []
  if (!sameTotal(coarser.count, truth.count)) {
    if (truth.count > coarser.count) { inc.count = truth.count - coarser.count; lacking.push(`count ${shortNumber(inc.count)}`) } else excess.push(`count ${shortNumber(coarser.count)} > ${shortNumber(truth.count)}`)
  }
  if (!sameTotal(coarser.sum, truth.sum, Math.max(coarser.scale, truth.scale))) {
    // the sum of the values it lacks; a sum that differs with equal counts is not a lack of values
    if (inc.count !== undefined) { inc.sum = truth.sum - coarser.sum; lacking.push(`sum ${shortNumber(inc.sum)}`) } else excess.push(`sum ${shortNumber(coarser.sum)} ≠ ${shortNumber(truth.sum)}`)
  }
  const result = { equal: false, repairable: false, inc, lacking, excess }
  if (truth.min !== undefined && (coarser.min === undefined || coarser.min > truth.min)) { result.min = truth.min; lacking.push(`min ${truth.min}`) } else if (bounds === 'exact' && coarser.min !== truth.min) excess.push(`min ${coarser.min} < ${truth.min}`)
  if (truth.max !== undefined && (coarser.max === undefined || coarser.max < truth.max)) { result.max = truth.max; lacking.push(`max ${truth.max}`) } else if (bounds === 'exact' && coarser.max !== truth.max) excess.push(`max ${coarser.max} > ${truth.max}`)
  if (truth.last !== undefined && (coarser.last === undefined || later(truth.last, coarser.last))) {
    result.last = truth.last
    lacking.push(`last ${describeLast(truth.last)}`)
  } else if (bounds === 'exact' && !sameLast(coarser.last, truth.last)) {
    excess.push(`last ${coarser.last ? describeLast(coarser.last) : 'none'} later than ${truth.last ? describeLast(truth.last) : 'none'}`)
  }
  result.equal = lacking.length === 0 && excess.length === 0
  result.repairable = excess.length === 0
  return result
}

/** The value at a dotted path of a document (undefined where any part is missing) */
const at = (doc, path) => path.split('.').reduce((node, p) => (isPlainObject(node) ? node[p] : undefined), doc)

/** Adds a tier's repair (what it lacks: comparison's inc, min, max, last) at `path` into update { $inc, $min, $max } */
function addRepair (update, path, comparison) {
  for (const [part, n] of Object.entries(comparison.inc)) update.$inc[`${path}.${part}`] = part === 'sum' ? new Double(n) : n
  if (comparison.min !== undefined) update.$min[`${path}.min`] = comparison.min
  if (comparison.max !== undefined) update.$max[`${path}.max`] = comparison.max
  // t before v: BSON compares the subdocument field by field, as the writer builds it
  if (comparison.last !== undefined) update.$max[`${path}.last`] = { t: new Date(comparison.last.t), v: comparison.last.v }
}

/** A read tier after a repair's comparison is applied to it */
function raised (t, c) {
  const out = { ...t, count: t.count + (c.inc.count ?? 0), sum: t.sum + (c.inc.sum ?? 0) }
  if (c.min !== undefined) out.min = c.min
  if (c.max !== undefined) out.max = c.max
  if (c.last !== undefined) out.last = c.last
  return out
}

/** The filter that conditions a change of the tier at `path` on its count and sum as read */
function guardTier (filter, doc, path) {
  for (const name of ['count', 'sum']) {
    const raw = at(doc, `${path}.${name}`)
    filter[`${path}.${name}`] = raw === undefined ? { $exists: false } : raw
  }
}

/** A copy of `doc` after { $inc, $min, $max } of dotted paths as MongoDB applies them ($max of a { t, v } by (t, v)) */
export function applyGaugeRepair (doc, update) {
  const out = structuredClone(doc)
  const set = (path, f) => {
    const parts = path.split('.')
    let node = out
    for (const p of parts.slice(0, -1)) {
      if (!isPlainObject(node[p])) node[p] = {}
      node = node[p]
    }
    node[parts.at(-1)] = f(node[parts.at(-1)])
  }
  const stored = l => ({ t: l.t.getTime(), v: l.v })
  for (const [path, v] of Object.entries(update.$inc ?? {})) set(path, old => (old ?? 0) + Number(v))
  for (const [path, v] of Object.entries(update.$min ?? {})) set(path, old => (old === undefined ? v : Math.min(old, v)))
  for (const [path, v] of Object.entries(update.$max ?? {})) {
    if (isPlainObject(v)) set(path, old => (old === undefined || !isPlainObject(old) || later(stored(v), stored(old)) ? { t: new Date(v.t), v: v.v } : old))
    else set(path, old => (old === undefined ? v : Math.max(old, v)))
  }
  return out
}

const HOURS = Array.from({ length: 24 }, (_, h) => h)
const QUARTERS = [0, 1, 2, 3]

/** The minutes of a daily gauge document merged per hour and quarter (read tiers); unreadable ones noted in problems */
function readMinuteQuarters (doc, problems) {
  const quarters = HOURS.map(() => QUARTERS.map(emptyTier))
  for (const h of Object.keys(doc.minute)) {
    const hour = Number(h)
    if (!Number.isInteger(hour) || hour < 0 || hour > 23 || !isPlainObject(doc.minute[h])) { problems.push(`minute.${h} is not an hour of minutes`); continue }
    for (const m of Object.keys(doc.minute[h])) {
      const minute = Number(m)
      if (!Number.isInteger(minute) || minute < 0 || minute > 59) { problems.push(`minute.${h}.${m} is not a minute`); continue }
      const read = readGaugeTier(doc.minute[h][m])
      if (read.problem) { problems.push(`minute.${h}.${m}: ${read.problem}`); continue }
      addInto(quarters[hour][Math.floor(minute / 15)], read.tier)
    }
  }
  return quarters
}

/**
 * Whether the quarter-hours of a daily gauge document vouch for its minutes
 * (and retention may drop them): in every quarter-hour, the quarter-hour
 * holds every value its minutes hold.
 *   minutesComplete (no `detail`): its count and sum equal the minutes'
 *     (sum within rounding); its min ≤ theirs, max ≥ theirs, and its last no
 *     earlier (by (t, v)) than any minute's; a quarter-hour with values and
 *     no minutes fails;
 *   otherwise (`detail: 'quarterHour'`: the minutes hold a subset): its
 *     count ≥ theirs, min ≤, max ≥, last no earlier; the sum says nothing.
 * → { vouched, problems: [text] }
 */
export function gaugeMinutesVouched (doc, { minutesComplete = doc.detail !== QUARTER_HOUR_DETAIL } = {}) {
  const problems = []
  if (doc.minute === undefined) return { vouched: true, problems }
  if (!isPlainObject(doc.minute)) return { vouched: false, problems: ['minute is not an object'] }
  const minutes = readMinuteQuarters(doc, problems)
  for (const h of HOURS) {
    for (const q of QUARTERS) {
      const m = minutes[h][q]
      const read = readGaugeTier(at(doc, `quarterHourly.${h}.${q}`))
      if (read.problem) { problems.push(`quarterHourly.${h}.${q}: ${read.problem}`); continue }
      if (isEmpty(m) && !(minutesComplete && !isEmpty(read.tier))) continue
      const c = compareGaugeTiers(read.tier, m, { bounds: 'cover' })
      const short = minutesComplete ? !c.equal : c.lacking.length > 0
      if (short) problems.push(`quarterHourly.${h}.${q} (${describeGaugeTier(read.tier)}) against its minutes (${describeGaugeTier(m)})`)
    }
  }
  return { vouched: problems.length === 0, problems }
}

/** What gaugeMinutesVouched and gaugeDayGuard read of a daily document */
export function gaugeVouchProjection () {
  return { _id: 1, detail: 1, minute: 1, daily: 1, quarterHourly: 1 }
}

/** The filter that conditions a change of a daily gauge document on its day tier as read (count, sum, min, max, last) */
export function gaugeDayGuard (doc) {
  const filter = { _id: doc._id }
  for (const name of ['count', 'sum', 'min', 'max']) {
    const raw = doc.daily?.[name]
    filter[`daily.${name}`] = raw === undefined ? { $exists: false } : raw
  }
  const last = doc.daily?.last
  if (last === undefined) filter['daily.last'] = { $exists: false }
  else { filter['daily.last.t'] = last.t; filter['daily.last.v'] = last.v }
  return filter
}

/**
 * Whether `gaugeMonthly.daily.D` (monthValue) holds the whole day tier of its
 * daily document (dayValue): count and sum equal (sum within rounding), min,
 * max and last equal. Retention deletes a daily document only then.
 */
export function holdsWholeGaugeDay (monthValue, dayValue) {
  if (monthValue === undefined || dayValue === undefined) return false
  const month = readGaugeTier(monthValue)
  const day = readGaugeTier(dayValue)
  if (month.problem || day.problem) return false
  return compareGaugeTiers(month.tier, day.tier).equal
}

// ---------------------------------------------------------------------------
// The check

const newUpdate = () => ({ $inc: {}, $min: {}, $max: {} })
const changes = update => Object.keys(update.$inc).length + Object.keys(update.$min).length + Object.keys(update.$max).length

/** find(doc) → { violations, update, filter }; each violation says whether the repair clears it */
function withRepairability (doc, find) {
  const { violations, update, filter } = find(doc)
  if (changes(update) === 0) return { violations: violations.map(v => ({ ...v, repairable: false })), repair: null, repaired: doc }
  for (const op of ['$inc', '$min', '$max']) if (Object.keys(update[op]).length === 0) delete update[op]
  const repaired = applyGaugeRepair(doc, update)
  const left = new Set(find(repaired).violations.map(v => `${v.rule} ${v.field}`))
  return {
    violations: violations.map(v => ({ ...v, repairable: !left.has(`${v.rule} ${v.field}`) })),
    repair: { filter, update },
    repaired
  }
}

function tierViolation (id, field, coarser, truth, comparison, source) {
  const note = comparison.repairable
    ? `lacks ${comparison.lacking.join(', ')} against ${source}`
    : `holds more than ${source} (${comparison.excess.join(', ')}): left alone, a repair never lowers a count nor moves last back`
  return { id, field, expected: describeGaugeTier(truth), found: describeGaugeTier(coarser), note, rule: 'tiers' }
}

const unreadable = (id, field, problem) => ({ id, field, expected: 'a gauge tier', found: problem, note: 'left for a person to look at', rule: 'unreadable' })

function findDailyProblems (doc, minutesComplete) {
  const violations = []
  const update = newUpdate()
  const filter = { _id: doc._id }
  const id = doc._id
  const quarters = HOURS.map(() => QUARTERS.map(() => null)) // read tiers; null = unreadable
  const quarterNode = doc.quarterHourly
  if (quarterNode !== undefined && !isPlainObject(quarterNode)) violations.push(unreadable(id, 'quarterHourly', 'not an object'))
  for (const h of HOURS) {
    for (const q of QUARTERS) {
      if (quarterNode !== undefined && !isPlainObject(quarterNode)) continue
      const field = `quarterHourly.${h}.${q}`
      const read = readGaugeTier(at(doc, field))
      if (read.problem) violations.push(unreadable(id, field, read.problem))
      else quarters[h][q] = read.tier
    }
  }
  // the minutes: each quarter-hour holds at least their values (exactly them while they are complete)
  if (doc.minute !== undefined) {
    const problems = []
    const minutes = isPlainObject(doc.minute) ? readMinuteQuarters(doc, problems) : (problems.push('minute is not an object'), null)
    for (const problem of problems) violations.push(unreadable(id, problem.split(' ')[0].replace(/:$/, ''), problem))
    for (const h of minutes ? HOURS : []) {
      for (const q of QUARTERS) {
        const quarter = quarters[h][q]
        const m = minutes[h][q]
        if (!quarter || (isEmpty(m) && !(minutesComplete && !isEmpty(quarter)))) continue
        const field = `quarterHourly.${h}.${q}`
        const c = compareGaugeTiers(quarter, m, { bounds: minutesComplete ? 'exact' : 'cover' })
        if (minutesComplete ? c.equal : c.lacking.length === 0) continue
        violations.push({ id, field, expected: `${minutesComplete ? '' : 'at least '}what its minutes hold (${describeGaugeTier(m)})`, found: describeGaugeTier(quarter), rule: 'minutes' })
        // complete minutes are the truth for their quarter-hour (they hold every tier's fields): it gets
        // what it lacks; otherwise a minute's values are still real ones, so only bounds and last are raised
        const fix = minutesComplete && c.repairable ? c : { inc: {}, min: c.min, max: c.max, last: c.last }
        const counts = Object.keys(fix.inc).length > 0
        if (!counts && (quarter.count === 0 || (fix.min === undefined && fix.max === undefined && fix.last === undefined))) continue // nothing to raise, or no values to bound
        addRepair(update, field, fix)
        guardTier(filter, doc, field)
        quarters[h][q] = raised(quarter, fix)
      }
    }
  }
  // hours and the day against the quarter-hours
  const day = emptyTier()
  let dayReadable = true
  for (const h of HOURS) {
    const hourTruth = emptyTier()
    let readable = true
    for (const q of QUARTERS) {
      if (quarters[h][q]) addInto(hourTruth, quarters[h][q])
      else readable = false
    }
    if (readable) addInto(day, hourTruth)
    else dayReadable = false
    const field = `hourly.${h}`
    const read = readGaugeTier(at(doc, field))
    if (read.problem) { violations.push(unreadable(id, field, read.problem)); continue }
    if (!readable) continue
    const c = compareGaugeTiers(read.tier, hourTruth)
    if (c.equal) continue
    violations.push(tierViolation(id, field, read.tier, hourTruth, c, 'its quarter-hours'))
    if (c.repairable) { addRepair(update, field, c); guardTier(filter, doc, field) }
  }
  const read = readGaugeTier(doc.daily)
  if (read.problem) violations.push(unreadable(id, 'daily', read.problem))
  else if (dayReadable) {
    const c = compareGaugeTiers(read.tier, day)
    if (!c.equal) {
      violations.push(tierViolation(id, 'daily', read.tier, day, c, 'its quarter-hours'))
      if (c.repairable) { addRepair(update, 'daily', c); guardTier(filter, doc, 'daily') }
    }
  }
  return { violations, update, filter }
}

/**
 * Verifies one daily gauge document. minutesComplete: no `detail` (a gauge's
 * day has carried the marker since its first write).
 * → { violations, repair: { filter, update } | null, dayTier }
 * dayTier: the day tier the document vouches for (its own, with what the repair adds).
 */
export function verifyGaugeDaily (doc, { minutesComplete = doc.detail !== QUARTER_HOUR_DETAIL } = {}) {
  const { violations, repair, repaired } = withRepairability(doc, d => findDailyProblems(d, minutesComplete))
  return { violations, repair, dayTier: repaired.daily }
}

function findMonthlyProblems (doc) {
  const violations = []
  const update = newUpdate()
  const filter = { _id: doc._id }
  const id = doc._id
  const month = emptyTier()
  let readable = true
  if (doc.daily !== undefined && !isPlainObject(doc.daily)) { violations.push(unreadable(id, 'daily', 'not an object of days')); readable = false }
  for (const d of isPlainObject(doc.daily) ? Object.keys(doc.daily) : []) {
    const read = readGaugeTier(doc.daily[d])
    if (read.problem) { violations.push(unreadable(id, `daily.${d}`, read.problem)); readable = false } else addInto(month, read.tier)
  }
  const read = readGaugeTier(doc.monthly)
  if (read.problem) violations.push(unreadable(id, 'monthly', read.problem))
  else if (readable) {
    const c = compareGaugeTiers(read.tier, month)
    if (!c.equal) {
      violations.push(tierViolation(id, 'monthly', read.tier, month, c, 'its days'))
      if (c.repairable) { addRepair(update, 'monthly', c); guardTier(filter, doc, 'monthly') }
    }
  }
  return { violations, update, filter }
}

/** Verifies monthly = the merge of daily.D inside one monthly gauge document. → { violations, repair } */
export function verifyGaugeMonthly (doc) {
  const { violations, repair } = withRepairability(doc, findMonthlyProblems)
  return { violations, repair }
}

function dropEmpty (update) {
  for (const op of ['$inc', '$min', '$max']) if (Object.keys(update[op]).length === 0) delete update[op]
  return update
}

/**
 * One day of a month across documents: `monthly.daily.D` (monthlyValue)
 * against the day tier its daily document vouches for (dailyTotal; null = no
 * daily document). → null when they agree, else { violation, repair } where
 * repair ({ filter, update } for the monthly document, upserting it) raises
 * the day field and the month's tier by what the field lacks, or is null: the
 * field holds more than the day (or has no daily document at all), and taking
 * it out would lower a count or move `last` back.
 */
export function compareGaugeDay ({ monthlyId, day, dailyId, dailyTotal, monthlyValue, metric, monthStart }) {
  const field = `daily.${day}`
  const base = { id: monthlyId, field, against: dailyId }
  const month = readGaugeTier(monthlyValue)
  if (dailyTotal === null || dailyTotal === undefined) {
    if (monthlyValue === undefined) return null
    return {
      violation: { ...base, expected: 'missing', found: month.problem ?? describeGaugeTier(month.tier), note: 'no daily document that day: left alone, a repair never lowers a count' },
      repair: null
    }
  }
  const dayRead = readGaugeTier(dailyTotal)
  if (month.problem || dayRead.problem) {
    return { violation: { ...base, expected: dayRead.problem ?? describeGaugeTier(dayRead.tier), found: month.problem ?? describeGaugeTier(month.tier), note: 'left for a person to look at' }, repair: null }
  }
  const update = { $inc: {}, $min: {}, $max: {}, $setOnInsert: { metric, date: new Date(monthStart) } }
  if (monthlyValue === undefined) {
    // a day document without its field: the field is created with the whole day
    const c = compareGaugeTiers(emptyTier(), dayRead.tier)
    c.inc.count ??= 0
    c.inc.sum ??= 0
    addRepair(update, field, c)
    addRepair(update, 'monthly', c)
    return {
      violation: { ...base, expected: describeGaugeTier(dayRead.tier), found: 'missing' },
      repair: { filter: { _id: monthlyId, [field]: { $exists: false } }, update: dropEmpty(update) }
    }
  }
  const c = compareGaugeTiers(month.tier, dayRead.tier)
  if (c.equal) return null
  const violation = { ...tierViolation(monthlyId, field, month.tier, dayRead.tier, c, 'the daily document'), against: dailyId }
  delete violation.rule
  if (!c.repairable) return { violation, repair: null }
  addRepair(update, field, c)
  addRepair(update, 'monthly', c)
  const filter = { _id: monthlyId }
  guardTier(filter, { daily: { [day]: monthlyValue } }, field)
  return { violation, repair: { filter, update: dropEmpty(update) } }
}

/** Whether two stored values are the same (a day tier or day field read twice): deep, dates by time, key order ignored */
export function sameGaugeStored (a, b) {
  if (a === b) return true
  if (a instanceof Date || b instanceof Date) return a instanceof Date && b instanceof Date && a.getTime() === b.getTime()
  if (!isPlainObject(a) || !isPlainObject(b)) return false
  const keys = Object.keys(a)
  if (keys.length !== Object.keys(b).length) return false
  return keys.every(k => Object.hasOwn(b, k) && sameGaugeStored(a[k], b[k]))
}
