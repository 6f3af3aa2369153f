// The one walk of `npm run check` and of the retention's vouching for the
// kinds whose tiers are objects — distributions (./distribution.js)
// and gauges (./gauge.js) — as pure functions over stored
// documents, parameterised by a kind's rules (what a tier is, how two
// compare, how a repair raises one; see tierChecks):
//   - in a daily document the quarter-hours are the truth for every hour and
//     the day; the minutes are the truth for their quarter-hour while they
//     hold every value of their day (no `detail`), and always hold a subset
//     of its values;
//   - in a monthly document the days are the truth for the month;
//   - across documents the daily document's day tier is the truth for
//     `monthly.daily.D`.
// A repair only ever raises: the coarser tier gets what it lacks, and a tier
// that holds more than its truth anywhere is reported and left alone. Each
// repair is conditioned on the count and sum of every tier it changes, as
// read (ingest moves both of every tier it writes), so a concurrent write
// makes it miss and be recomputed.
import { QUARTER_HOUR_DETAIL } from '../../bucket/increments.js'
import { sameTotal } from './counter.js'

export const isCount = n => typeof n === 'number' && Number.isFinite(n) && n >= 0
export const isPlainObject = v => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date)
export const shortNumber = n => (Number.isInteger(n) ? String(n) : String(Number(n.toPrecision(12))))

/** The value at a dotted path of a document (undefined where any part is missing) */
export const at = (doc, path) => path.split('.').reduce((node, p) => (isPlainObject(node) ? node[p] : undefined), doc)

export const HOURS = Array.from({ length: 24 }, (_, h) => h)
export const QUARTERS = [0, 1, 2, 3]

// ---------------------------------------------------------------------------
// What every kind's tier holds: count, sum, min, max

/**
 * A stored tier's count, sum, min and max (node an object; `noun` names the
 * tier in a problem) → { count, sum, min, max, scale } or { problem }, where
 * scale bounds Σ|v| (count × the larger |bound|), for the tolerance of sums.
 */
export function readTotals (node, noun) {
  if (!isPlainObject(node)) return { problem: `${JSON.stringify(node)} is not ${noun}` }
  if (node.count !== undefined && !isCount(node.count)) return { problem: `count ${JSON.stringify(node.count)} is not a count` }
  for (const name of ['sum', 'min', 'max']) {
    if (node[name] !== undefined && !(typeof node[name] === 'number' && Number.isFinite(node[name]))) return { problem: `${name} ${JSON.stringify(node[name])} is not a finite number` }
  }
  const totals = { count: node.count ?? 0, sum: node.sum ?? 0, min: node.min, max: node.max }
  totals.scale = Math.max(Math.abs(totals.sum), totals.count * Math.max(Math.abs(totals.min ?? 0), Math.abs(totals.max ?? 0)))
  return totals
}

/** acc + t's count, sum and bounds, in place (read tiers): what $inc of its counts and $min/$max of its bounds would leave */
export function addTotals (acc, t) {
  acc.count += t.count
  acc.sum += t.sum
  acc.scale += t.scale
  if (t.min !== undefined && (acc.min === undefined || t.min < acc.min)) acc.min = t.min
  if (t.max !== undefined && (acc.max === undefined || t.max > acc.max)) acc.max = t.max
  return acc
}

/**
 * A coarser tier against its truth (both read), on count, the given parts
 * (counts kept in a tier's `parts` map: a histogram's buckets), sum, min and
 * max. bounds 'exact': the truth holds every value of the coarser one (its
 * min and max must be equal); 'cover': the truth may hold a subset (the
 * coarser min ≤ its min, max ≥ its max).
 * → { equal, repairable, inc: { part: n }, min?, max?, lacking: [text], excess: [text] }
 * where inc/min/max are what the coarser lacks (only when repairable: it holds no more anywhere).
 * A kind that compares more (a gauge's `last`) adds to lacking/excess and settles it again.
 */
export function compareTotals (coarser, truth, { bounds = 'exact', parts = [] } = {}) {
  const inc = {}
  const lacking = []
  const excess = []
  for (const part of ['count', ...parts]) {
    const c = part === 'count' ? coarser.count : coarser.parts.get(part) ?? 0
    const t = part === 'count' ? truth.count : truth.parts.get(part) ?? 0
    if (sameTotal(c, t)) continue
    if (t > c) { inc[part] = t - c; lacking.push(`${part} ${shortNumber(t - c)}`) } else excess.push(`${part} ${shortNumber(c)} > ${shortNumber(t)}`)
  }
  if (!sameTotal(coarser.sum, truth.sum, Math.max(coarser.scale, truth.scale))) {
    // the sum of the values it lacks; a sum that differs with every count equal is not a lack of values
    if (Object.keys(inc).length > 0) { inc.sum = truth.sum - coarser.sum; lacking.push(`sum ${shortNumber(truth.sum - coarser.sum)}`) } else excess.push(`sum ${shortNumber(coarser.sum)} ≠ ${shortNumber(truth.sum)}`)
  }
  const result = { equal: false, repairable: false, inc, lacking, excess }
  if (truth.min !== undefined && (coarser.min === undefined || coarser.min > truth.min)) { result.min = truth.min; lacking.push(`min ${truth.min}`) } else if (bounds === 'exact' && coarser.min !== truth.min) excess.push(`min ${coarser.min} < ${truth.min}`)
  if (truth.max !== undefined && (coarser.max === undefined || coarser.max < truth.max)) { result.max = truth.max; lacking.push(`max ${truth.max}`) } else if (bounds === 'exact' && coarser.max !== truth.max) excess.push(`max ${coarser.max} > ${truth.max}`)
  return settle(result)
}

/** A comparison's verdict from what it found: equal (nothing lacking nor in excess), repairable (nothing in excess) */
export function settle (result) {
  result.equal = result.lacking.length === 0 && result.excess.length === 0
  result.repairable = result.excess.length === 0
  return result
}

/**
 * Adds a tier's repair (what it lacks: comparison's inc, min, max) at `path`
 * into update { $inc, $min, $max }; incValue(part, n) is what `$inc` writes.
 */
export function addRepair (update, path, comparison, incValue = (part, n) => n) {
  for (const [part, n] of Object.entries(comparison.inc)) update.$inc[`${path}.${part}`] = incValue(part, n)
  if (comparison.min !== undefined) update.$min[`${path}.min`] = comparison.min
  if (comparison.max !== undefined) update.$max[`${path}.max`] = comparison.max
}

/** The filter that conditions a change of the tier at `path` on its count and sum as read */
function guardTier (filter, doc, path) {
  for (const name of ['count', 'sum']) {
    const raw = at(doc, `${path}.${name}`)
    filter[`${path}.${name}`] = raw === undefined ? { $exists: false } : raw
  }
}

const maxOfNumbers = (old, v) => (old === undefined ? v : Math.max(old, v))

/**
 * A copy of `doc` after { $inc, $min, $max } of dotted paths, as MongoDB
 * applies it (no filter); maxOf(old, v) is what `$max` leaves (numbers by
 * default; a kind whose `$max` also writes subdocuments says how they order).
 */
export function applyUpdate (doc, update, maxOf = maxOfNumbers) {
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
  for (const [path, v] of Object.entries(update.$inc ?? {})) set(path, old => (old ?? 0) + Number(v))
  for (const [path, v] of Object.entries(update.$min ?? {})) set(path, old => (old === undefined ? v : Math.min(old, v)))
  for (const [path, v] of Object.entries(update.$max ?? {})) set(path, old => maxOf(old, v))
  return out
}

/** The filter that conditions a change of a daily document on its day tier's count, sum, min and max as read */
export function dayGuard (doc) {
  const filter = { _id: doc._id }
  for (const name of ['count', 'sum', 'min', 'max']) {
    const raw = doc.daily?.[name]
    filter[`daily.${name}`] = raw === undefined ? { $exists: false } : raw
  }
  return filter
}

const dropEmpty = (update) => {
  for (const op of ['$inc', '$min', '$max']) if (Object.keys(update[op]).length === 0) delete update[op]
  return update
}

// ---------------------------------------------------------------------------
// The walk

/**
 * The checks of one kind, from its rules (`kind` below):
 *   noun: what a tier is called where one is unreadable ('a gauge tier');
 *   read(node) → { tier } or { problem }: a stored tier (absent, undefined or null, is the empty tier);
 *   readMinute(node): the same, of what a minute holds (and of a quarter-hour where only
 *     that is compared, as the retention's vouching does);
 *   isEmpty(t), addInto(acc, t) (merge in place, as the writes would), describe(t) (a line);
 *   compare(coarser, truth, { bounds }) and compareMinutes(quarter, minutes, bounds): a
 *     comparison as compareTotals makes it (what the coarser lacks, what it holds in excess);
 *   selfCheck(id, field, t) → a violation (rule set) when a read tier is not consistent in
 *     itself, and so no truth for a coarser one; else null;
 *   minuteRepair(quarter, c, minutesComplete) → what a quarter-hour short of its minutes
 *     (comparison c) is raised by, shaped as a comparison; null: nothing;
 *   raise(t, fix): the read tier after that fix;
 *   addRepair(update, path, c): a tier's repair into update { $inc, $min, $max };
 *   apply(doc, update): the document after an update, as MongoDB applies it;
 *   neverLowers: what a repair never does, said of a tier that holds more than its truth.
 * → { minutesVouched, holdsWholeDay, verifyDaily, verifyMonthly, compareDay }
 */
export function tierChecks (kind) {
  return {
    minutesVouched: (doc, options) => minutesVouched(kind, doc, options),
    holdsWholeDay: (monthValue, dayValue) => holdsWholeDay(kind, monthValue, dayValue),
    verifyDaily: (doc, options) => verifyDaily(kind, doc, options),
    verifyMonthly: doc => verifyMonthly(kind, doc),
    compareDay: day => compareDay(kind, day)
  }
}

const emptyTier = kind => kind.read(undefined).tier

/** The minutes of a daily document merged per hour and quarter (read tiers); unreadable ones noted in problems */
function readMinuteQuarters (kind, doc, problems) {
  const quarters = HOURS.map(() => QUARTERS.map(() => emptyTier(kind)))
  for (const h of Object.keys(doc.minute)) {
    const hour = Number(h)
    if (!Number.isInteger(hour) || hour < 0 || hour > 23 || !isPlainObject(doc.minute[h])) { problems.push(`minute.${h} is not an hour of minutes`); continue }
    for (const m of Object.keys(doc.minute[h])) {
      const minute = Number(m)
      if (!Number.isInteger(minute) || minute < 0 || minute > 59) { problems.push(`minute.${h}.${m} is not a minute`); continue }
      const read = kind.readMinute(doc.minute[h][m])
      if (read.problem) { problems.push(`minute.${h}.${m}: ${read.problem}`); continue }
      kind.addInto(quarters[hour][Math.floor(minute / 15)], read.tier)
    }
  }
  return quarters
}

/**
 * Whether the quarter-hours of a daily document vouch for its minutes (and
 * retention may drop them): in every quarter-hour (so in every hour), the
 * quarter-hour holds every value its minutes hold.
 *   minutesComplete (no `detail`): it compares equal to its minutes with
 *     bounds 'cover' (count and sum equal, within rounding; its bounds
 *     around theirs); a quarter-hour with values and no minutes fails;
 *   otherwise (`detail: 'quarterHour'`: values were written past the horizon
 *     without their minute): it lacks nothing of theirs (the minutes hold a
 *     subset; its sum says nothing).
 * Reads each quarter-hour as a minute (readMinute).
 * → { vouched, problems: [text] }
 */
function minutesVouched (kind, doc, { minutesComplete = doc.detail !== QUARTER_HOUR_DETAIL } = {}) {
  const problems = []
  if (doc.minute === undefined) return { vouched: true, problems }
  if (!isPlainObject(doc.minute)) return { vouched: false, problems: ['minute is not an object'] }
  const minutes = readMinuteQuarters(kind, doc, problems)
  for (const h of HOURS) {
    for (const q of QUARTERS) {
      const m = minutes[h][q]
      const read = kind.readMinute(at(doc, `quarterHourly.${h}.${q}`))
      if (read.problem) { problems.push(`quarterHourly.${h}.${q}: ${read.problem}`); continue }
      // complete minutes account for every value of their quarter-hour, so one without minutes holds none
      if (kind.isEmpty(m) && !(minutesComplete && !kind.isEmpty(read.tier))) continue
      const comparison = kind.compareMinutes(read.tier, m, 'cover')
      const shortOf = minutesComplete ? !comparison.equal : comparison.lacking.length > 0
      if (shortOf) problems.push(`quarterHourly.${h}.${q} (${kind.describe(read.tier)}) against its minutes (${kind.describe(m)})`)
    }
  }
  return { vouched: problems.length === 0, problems }
}

/**
 * Whether `monthly.daily.D` (monthValue) holds the whole day tier of its
 * daily document (dayValue): they compare equal. Retention deletes a daily
 * document only then.
 */
function holdsWholeDay (kind, monthValue, dayValue) {
  if (monthValue === undefined || dayValue === undefined) return false
  const month = kind.read(monthValue)
  const day = kind.read(dayValue)
  if (month.problem || day.problem) return false
  return kind.compare(month.tier, day.tier).equal
}

/**
 * The problems of a document and the one update that repairs what can be:
 * find(doc) → { violations, update, filter }. Each violation is
 * { id, field, expected, found, note?, rule } (rule: what was compared, to
 * tell violations apart after the repair); update { $inc, $min, $max }.
 */
function withRepairability (kind, doc, find) {
  const { violations, update, filter } = find(doc)
  const changes = Object.keys(update.$inc).length + Object.keys(update.$min).length + Object.keys(update.$max).length
  if (changes === 0) return { violations: violations.map(v => ({ ...v, repairable: false })), repair: null, repaired: doc }
  dropEmpty(update)
  // what the repair leaves, found again: a violation it does not clear is not repairable
  const repaired = kind.apply(doc, update)
  const left = new Set(find(repaired).violations.map(v => `${v.rule} ${v.field}`))
  return {
    violations: violations.map(v => ({ ...v, repairable: !left.has(`${v.rule} ${v.field}`) })),
    repair: { filter, update },
    repaired
  }
}

/** A violation of a tier against its truth (a comparison); source names the truth */
function tierViolation (kind, id, field, coarser, truth, comparison, source) {
  const note = comparison.repairable
    ? `lacks ${comparison.lacking.join(', ')} against ${source}`
    : `holds more than ${source} (${comparison.excess.join(', ')}): left alone, ${kind.neverLowers}`
  return { id, field, expected: kind.describe(truth), found: kind.describe(coarser), note, rule: 'tiers' }
}

const unreadable = (kind, id, field, problem) => ({ id, field, expected: kind.noun, found: problem, note: 'left for a person to look at', rule: 'unreadable' })

/** A document's findings: its violations, and the one update (with its filter) that repairs what can be */
const findings = doc => ({ violations: [], update: { $inc: {}, $min: {}, $max: {} }, filter: { _id: doc._id } })

/**
 * The tier at `field` (its stored node) read as a truth for a coarser one:
 * the read tier, or null (unreadable, or not consistent in itself: its
 * violation found).
 */
function readTruth (kind, found, doc, field, node) {
  const read = kind.read(node)
  if (read.problem) { found.violations.push(unreadable(kind, doc._id, field, read.problem)); return null }
  const v = kind.selfCheck(doc._id, field, read.tier)
  if (v) { found.violations.push(v); return null }
  return read.tier
}

/**
 * The tier at `field` (its stored node) against its truth (a read tier;
 * null when part of it is unreadable: then only the tier itself is
 * checked); what it lacks goes into the found repair.
 */
function checkTier (kind, found, doc, field, node, truth, source) {
  const read = kind.read(node)
  if (read.problem) { found.violations.push(unreadable(kind, doc._id, field, read.problem)); return }
  const v = kind.selfCheck(doc._id, field, read.tier)
  if (v) found.violations.push(v)
  if (!truth) return
  const c = kind.compare(read.tier, truth)
  if (c.equal) return
  found.violations.push(tierViolation(kind, doc._id, field, read.tier, truth, c, source))
  if (c.repairable) { kind.addRepair(found.update, field, c); guardTier(found.filter, doc, field) }
}

function findDailyProblems (kind, doc, minutesComplete) {
  const found = findings(doc)
  const { violations } = found
  const id = doc._id
  // the quarter-hours: the finest tier, each checked on its own; one that is not consistent in itself is
  // no truth for its hour and day: they are not compared (nor raised by it) until a person has looked at it
  const quarters = HOURS.map(() => QUARTERS.map(() => null)) // read tiers; null = unreadable
  const quarterNode = doc.quarterHourly
  if (quarterNode !== undefined && !isPlainObject(quarterNode)) violations.push(unreadable(kind, id, 'quarterHourly', 'not an object'))
  else {
    for (const h of HOURS) {
      for (const q of QUARTERS) {
        const field = `quarterHourly.${h}.${q}`
        quarters[h][q] = readTruth(kind, found, doc, field, at(doc, field))
      }
    }
  }
  // the minutes: each quarter-hour holds at least their values (exactly them while they are complete)
  if (doc.minute !== undefined) {
    const problems = []
    const minutes = isPlainObject(doc.minute) ? readMinuteQuarters(kind, doc, problems) : (problems.push('minute is not an object'), null)
    for (const problem of problems) violations.push(unreadable(kind, id, problem.split(' ')[0].replace(/:$/, ''), problem))
    for (const h of minutes ? HOURS : []) {
      for (const q of QUARTERS) {
        const quarter = quarters[h][q]
        const m = minutes[h][q]
        if (!quarter || (kind.isEmpty(m) && !(minutesComplete && !kind.isEmpty(quarter)))) continue
        const field = `quarterHourly.${h}.${q}`
        const c = kind.compareMinutes(quarter, m, minutesComplete ? 'exact' : 'cover')
        if (minutesComplete ? c.equal : c.lacking.length === 0) continue
        violations.push({ id, field, expected: `${minutesComplete ? '' : 'at least '}what its minutes hold (${kind.describe(m)})`, found: kind.describe(quarter), rule: 'minutes' })
        const fix = kind.minuteRepair(quarter, c, minutesComplete)
        if (!fix) continue
        kind.addRepair(found.update, field, fix)
        guardTier(found.filter, doc, field)
        quarters[h][q] = kind.raise(quarter, fix)
      }
    }
  }
  // hours and the day against the quarter-hours
  const day = emptyTier(kind)
  let dayReadable = true
  for (const h of HOURS) {
    const hourTruth = emptyTier(kind)
    let readable = true
    for (const q of QUARTERS) {
      if (quarters[h][q]) kind.addInto(hourTruth, quarters[h][q])
      else readable = false
    }
    if (readable) kind.addInto(day, hourTruth)
    else dayReadable = false
    checkTier(kind, found, doc, `hourly.${h}`, at(doc, `hourly.${h}`), readable ? hourTruth : null, 'its quarter-hours')
  }
  checkTier(kind, found, doc, 'daily', doc.daily, dayReadable ? day : null, 'its quarter-hours')
  return found
}

/**
 * Verifies one daily document. minutesComplete: no `detail` (and, where a
 * kind's day may lack the marker, the day inside the minute horizon: the
 * caller knows it).
 * → { violations, repair: { filter, update } | null, dayTier }
 * Each violation says whether the repair clears it (repairable); dayTier is the
 * day tier the document vouches for: its own, with what the repair adds.
 */
function verifyDaily (kind, doc, { minutesComplete = doc.detail !== QUARTER_HOUR_DETAIL } = {}) {
  const { violations, repair, repaired } = withRepairability(kind, doc, d => findDailyProblems(kind, d, minutesComplete))
  return { violations, repair, dayTier: repaired.daily }
}

function findMonthlyProblems (kind, doc) {
  const found = findings(doc)
  const month = emptyTier(kind)
  let readable = true
  if (doc.daily !== undefined && !isPlainObject(doc.daily)) { found.violations.push(unreadable(kind, doc._id, 'daily', 'not an object of days')); readable = false }
  for (const d of isPlainObject(doc.daily) ? Object.keys(doc.daily) : []) {
    const day = readTruth(kind, found, doc, `daily.${d}`, doc.daily[d])
    if (day) kind.addInto(month, day)
    else readable = false
  }
  checkTier(kind, found, doc, 'monthly', doc.monthly, readable ? month : null, 'its days')
  return found
}

/** Verifies monthly = the merge of daily.D inside one monthly document, and every tier in itself. → { violations, repair } */
function verifyMonthly (kind, doc) {
  const { violations, repair } = withRepairability(kind, doc, d => findMonthlyProblems(kind, d))
  return { violations, repair }
}

/**
 * One day of a month across documents: `monthly.daily.D` (monthlyValue)
 * against the day tier its daily document vouches for (dailyTotal; null = no
 * daily document). → null when they agree, else { violation, repair } where
 * repair ({ filter, update }, for the monthly document, upserting it) raises
 * the day field and the month's tier by what the field lacks, or is null:
 * the field holds more than the day document, or has no daily document at
 * all (a flush whose daily write failed) — taking it out would lower a
 * count, so it is left.
 */
function compareDay (kind, { monthlyId, day, dailyId, dailyTotal, monthlyValue, metric, monthStart }) {
  const field = `daily.${day}`
  const base = { id: monthlyId, field, against: dailyId }
  const month = kind.read(monthlyValue)
  if (dailyTotal === null || dailyTotal === undefined) {
    if (monthlyValue === undefined) return null
    return {
      violation: { ...base, expected: 'missing', found: month.problem ?? kind.describe(month.tier), note: 'no daily document that day: left alone, a repair never lowers a count' },
      repair: null
    }
  }
  const dayRead = kind.read(dailyTotal)
  if (month.problem || dayRead.problem) {
    return { violation: { ...base, expected: dayRead.problem ?? kind.describe(dayRead.tier), found: month.problem ?? kind.describe(month.tier), note: 'left for a person to look at' }, repair: null }
  }
  if (kind.selfCheck(dailyId, 'daily', dayRead.tier)) {
    // the daily document's own violation: its day tier is no truth to raise the month by
    const c = kind.compare(month.tier, dayRead.tier)
    if (c.equal) return null
    return { violation: { ...base, expected: kind.describe(dayRead.tier), found: monthlyValue === undefined ? 'missing' : kind.describe(month.tier), note: 'the daily document\'s day tier is not consistent itself: left alone' }, repair: null }
  }
  const update = { $inc: {}, $min: {}, $max: {}, $setOnInsert: { metric, date: new Date(monthStart) } }
  if (monthlyValue === undefined) {
    // a day document without its field: the field is created with the whole day (even an empty one)
    const c = kind.compare(emptyTier(kind), dayRead.tier)
    c.inc.count ??= 0
    c.inc.sum ??= 0
    kind.addRepair(update, field, c)
    kind.addRepair(update, 'monthly', c)
    return {
      violation: { ...base, expected: kind.describe(dayRead.tier), found: 'missing' },
      repair: { filter: { _id: monthlyId, [field]: { $exists: false } }, update: dropEmpty(update) }
    }
  }
  const c = kind.compare(month.tier, dayRead.tier)
  if (c.equal) return null
  const violation = { ...tierViolation(kind, monthlyId, field, month.tier, dayRead.tier, c, 'the daily document'), against: dailyId }
  delete violation.rule
  if (!c.repairable) return { violation, repair: null }
  kind.addRepair(update, field, c)
  kind.addRepair(update, 'monthly', c)
  const filter = { _id: monthlyId }
  guardTier(filter, { daily: { [day]: monthlyValue } }, field)
  return { violation, repair: { filter, update: dropEmpty(update) } }
}
