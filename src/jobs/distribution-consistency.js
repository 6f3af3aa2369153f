// What `npm run check` and the retention job verify of distribution
// documents (docs/decisions.md, "Distributions: retention and the check"),
// as pure functions over stored documents:
//   - inside every histogram tier, the buckets (zero, positive, negative) add
//     up to its count;
//   - in a daily document the quarter-hours are the truth for every hour and
//     the day (count, sum, every bucket, min and max); the minutes, which keep
//     no histogram, are the truth for each quarter-hour's count and sum only
//     while they hold every value of their day, and always hold a subset of
//     its values (min and max inside its own);
//   - in a monthly document the days are the truth for the month;
//   - across documents the daily document's day tier is the truth for
//     `monthly.daily.D`.
// A repair only ever adds: the coarser tier gets what it lacks ($inc of the
// missing count, sum and buckets, $min/$max of the missing bounds), and a
// tier that holds more than its truth anywhere is reported and left alone —
// a repair never lowers a count. Each repair is conditioned on the count and
// sum of every tier it changes, as read (ingest moves both of every tier it
// writes), so a concurrent write makes it miss and be recomputed.
import { QUARTER_HOUR_DETAIL } from '../bucket/increments.js'
import { parseBucketKey } from '../bucket/distribution-sketch.js'
import { sameTotal } from './consistency.js'

const SIDES = ['positive', 'negative']
const isCount = n => typeof n === 'number' && Number.isFinite(n) && n >= 0
const isPlainObject = v => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date)

/**
 * A stored tier as the checks read it → { tier } or { problem }. Absent
 * (undefined/null) is the empty tier. tier: { count, sum, min?, max?, scale,
 * parts: Map<'zero' | 'positive.K' | 'negative.K', n> } where scale bounds
 * Σ|v| (count × the larger |bound|), for the tolerance of sums.
 * histogram false: a minute tier (count, sum, min, max only).
 */
export function readTier (node, { histogram = true } = {}) {
  const tier = { count: 0, sum: 0, min: undefined, max: undefined, scale: 0, parts: new Map() }
  if (node === undefined || node === null) return { tier }
  if (!isPlainObject(node)) return { problem: `${JSON.stringify(node)} is not a tier` }
  if (node.count !== undefined && !isCount(node.count)) return { problem: `count ${JSON.stringify(node.count)} is not a count` }
  for (const name of ['sum', 'min', 'max']) {
    if (node[name] !== undefined && !(typeof node[name] === 'number' && Number.isFinite(node[name]))) return { problem: `${name} ${JSON.stringify(node[name])} is not a finite number` }
  }
  tier.count = node.count ?? 0
  tier.sum = node.sum ?? 0
  tier.min = node.min
  tier.max = node.max
  tier.scale = Math.max(Math.abs(tier.sum), tier.count * Math.max(Math.abs(tier.min ?? 0), Math.abs(tier.max ?? 0)))
  if (!histogram) return { tier }
  if (node.zero !== undefined) {
    if (!isCount(node.zero)) return { problem: `zero ${JSON.stringify(node.zero)} is not a count` }
    if (node.zero !== 0) tier.parts.set('zero', node.zero)
  }
  for (const side of SIDES) {
    const counts = node[side]
    if (counts === undefined) continue
    if (!isPlainObject(counts)) return { problem: `${side} is not an object of bucket counts` }
    for (const key of Object.keys(counts)) {
      if (parseBucketKey(key) === null) return { problem: `${side} has a bucket key ${JSON.stringify(key)} that is not a canonical integer` }
      if (!isCount(counts[key])) return { problem: `${side}.${key} ${JSON.stringify(counts[key])} is not a count` }
      if (counts[key] !== 0) tier.parts.set(`${side}.${key}`, counts[key])
    }
  }
  return { tier }
}

const emptyTier = () => readTier(undefined).tier
const isEmpty = (t) => t.count === 0 && t.min === undefined && t.parts.size === 0

/** acc + t, in place (read tiers): what $inc of t's counts and $min/$max of its bounds would leave */
function addInto (acc, t) {
  acc.count += t.count
  acc.sum += t.sum
  acc.scale += t.scale
  if (t.min !== undefined && (acc.min === undefined || t.min < acc.min)) acc.min = t.min
  if (t.max !== undefined && (acc.max === undefined || t.max > acc.max)) acc.max = t.max
  for (const [part, n] of t.parts) acc.parts.set(part, (acc.parts.get(part) ?? 0) + n)
  return acc
}

/** What a histogram tier's buckets hold in all */
const bucketed = (t) => { let n = 0; for (const v of t.parts.values()) n += v; return n }

/** Whether a read histogram tier's buckets add up to its count (within rounding: counts may be fractional) */
export const bucketsAddUp = (t) => sameTotal(bucketed(t), t.count)

const shortNumber = n => (Number.isInteger(n) ? String(n) : String(Number(n.toPrecision(12))))

/** A read tier in a line: count, sum, min, max and how many buckets */
export function describeTier (t) {
  if (t.count === 0 && t.parts.size === 0 && t.min === undefined) return 'empty'
  const bounds = t.min === undefined ? '' : `, min ${t.min}, max ${t.max}`
  return `count ${shortNumber(t.count)}, sum ${shortNumber(t.sum)}${bounds}, ${t.parts.size} bucket${t.parts.size === 1 ? '' : 's'}`
}

/**
 * A coarser tier against its truth (both read). bounds 'exact': the truth
 * holds every value of the coarser one (its min and max must be equal);
 * 'cover': the truth may hold a subset (the coarser min ≤ its min, max ≥ its max).
 * → { equal, repairable, inc: { part: n }, min?, max?, lacking: [text], excess: [text] }
 * where inc/min/max are what the coarser lacks (only when repairable: it holds no more anywhere).
 * histogram false compares count, sum and bounds only.
 */
export function compareTiers (coarser, truth, { bounds = 'exact', histogram = true } = {}) {
  const inc = {}
  const lacking = []
  const excess = []
  const parts = ['count', ...(histogram ? new Set([...coarser.parts.keys(), ...truth.parts.keys()]) : [])]
  for (const part of parts) {
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
  result.equal = lacking.length === 0 && excess.length === 0
  result.repairable = excess.length === 0
  return result
}

/** The value at a dotted path of a document (undefined where any part is missing) */
const at = (doc, path) => path.split('.').reduce((node, p) => (isPlainObject(node) ? node[p] : undefined), doc)

/** Adds a tier's repair (what it lacks) at `path` into update { $inc, $min, $max } */
function addRepair (update, path, comparison) {
  for (const [part, n] of Object.entries(comparison.inc)) update.$inc[`${path}.${part}`] = n
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

/** A copy of `doc` after { $inc, $min, $max } of dotted paths, as MongoDB applies it (no filter) */
export function applyUpdate (doc, update) {
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
  for (const [path, v] of Object.entries(update.$inc ?? {})) set(path, old => (old ?? 0) + v)
  for (const [path, v] of Object.entries(update.$min ?? {})) set(path, old => (old === undefined ? v : Math.min(old, v)))
  for (const [path, v] of Object.entries(update.$max ?? {})) set(path, old => (old === undefined ? v : Math.max(old, v)))
  return out
}

const HOURS = Array.from({ length: 24 }, (_, h) => h)
const QUARTERS = [0, 1, 2, 3]

/**
 * Whether the quarter-hours of a daily distribution document vouch for its
 * minutes (and retention may drop them): in every quarter-hour (so in every
 * hour), the quarter-hour holds every value its minutes hold.
 *   minutesComplete (no `detail`): its count and sum equal the minutes' count
 *     and sum (within rounding), its min ≤ theirs and max ≥ theirs;
 *   otherwise (`detail: 'quarterHour'`: values were written past the horizon
 *     without their minute): its count ≥ theirs, min ≤ theirs, max ≥ theirs
 *     (the minutes hold a subset; its sum says nothing).
 * Reads only count, sum, min and max of each quarter-hour (minuteVouchProjection).
 * → { vouched, problems: [text] }
 */
export function minutesVouched (doc, { minutesComplete = doc.detail !== QUARTER_HOUR_DETAIL } = {}) {
  const problems = []
  if (doc.minute === undefined) return { vouched: true, problems }
  if (!isPlainObject(doc.minute)) return { vouched: false, problems: ['minute is not an object'] }
  const minutes = readMinuteQuarters(doc, problems)
  for (const h of HOURS) {
    for (const q of QUARTERS) {
      const m = minutes[h][q]
      const read = readTier(at(doc, `quarterHourly.${h}.${q}`), { histogram: false })
      if (read.problem) { problems.push(`quarterHourly.${h}.${q}: ${read.problem}`); continue }
      // complete minutes account for every value of their quarter-hour, so one without minutes holds none
      if (isEmpty(m) && !(minutesComplete && !isEmpty(read.tier))) continue
      const comparison = compareTiers(read.tier, m, { bounds: 'cover', histogram: false })
      const shortOf = minutesComplete ? !comparison.equal : comparison.lacking.length > 0
      if (shortOf) problems.push(`quarterHourly.${h}.${q} (${describeTier(read.tier)}) against its minutes (${describeTier(m)})`)
    }
  }
  return { vouched: problems.length === 0, problems }
}

/** The minutes of a daily document merged per hour and quarter (read tiers); unreadable ones noted in problems */
function readMinuteQuarters (doc, problems) {
  const quarters = HOURS.map(() => QUARTERS.map(emptyTier))
  for (const h of Object.keys(doc.minute)) {
    const hour = Number(h)
    if (!Number.isInteger(hour) || hour < 0 || hour > 23 || !isPlainObject(doc.minute[h])) { problems.push(`minute.${h} is not an hour of minutes`); continue }
    for (const m of Object.keys(doc.minute[h])) {
      const minute = Number(m)
      if (!Number.isInteger(minute) || minute < 0 || minute > 59) { problems.push(`minute.${h}.${m} is not a minute`); continue }
      const read = readTier(doc.minute[h][m], { histogram: false })
      if (read.problem) { problems.push(`minute.${h}.${m}: ${read.problem}`); continue }
      addInto(quarters[hour][Math.floor(minute / 15)], read.tier)
    }
  }
  return quarters
}

/** The projection minutesVouched and dayTierGuard need: the minutes, and count, sum, min, max of the day and each quarter-hour (not their histograms) */
export function minuteVouchProjection () {
  const projection = { _id: 1, detail: 1, minute: 1, 'daily.count': 1, 'daily.sum': 1, 'daily.min': 1, 'daily.max': 1 }
  for (const h of HOURS) for (const q of QUARTERS) for (const s of ['count', 'sum', 'min', 'max']) projection[`quarterHourly.${h}.${q}.${s}`] = 1
  return projection
}

/** The filter that conditions a change of a daily distribution document on its day tier as read (count, sum, min, max) */
export function dayTierGuard (doc) {
  const filter = { _id: doc._id }
  for (const name of ['count', 'sum', 'min', 'max']) {
    const raw = doc.daily?.[name]
    filter[`daily.${name}`] = raw === undefined ? { $exists: false } : raw
  }
  return filter
}

/**
 * Whether `monthly.daily.D` (monthValue) holds the whole day tier of its
 * daily document (dayValue): count, sum, every bucket equal (within rounding),
 * min and max equal. Retention deletes a daily document only then.
 */
export function holdsWholeDay (monthValue, dayValue) {
  if (monthValue === undefined || dayValue === undefined) return false
  const month = readTier(monthValue)
  const day = readTier(dayValue)
  if (month.problem || day.problem) return false
  return compareTiers(month.tier, day.tier).equal
}

// ---------------------------------------------------------------------------
// The check

/**
 * The problems of a document and the one update that repairs what can be:
 * find(doc) → { violations, update, filter }. Each violation is
 * { id, field, expected, found, note?, rule } (rule: what was compared, to
 * tell violations apart after the repair); update { $inc, $min, $max }.
 */
function withRepairability (doc, find) {
  const { violations, update, filter } = find(doc)
  const changes = Object.keys(update.$inc).length + Object.keys(update.$min).length + Object.keys(update.$max).length
  if (changes === 0) return { violations: violations.map(v => ({ ...v, repairable: false })), repair: null, repaired: doc }
  for (const op of ['$inc', '$min', '$max']) if (Object.keys(update[op]).length === 0) delete update[op]
  // what the repair leaves, found again: a violation it does not clear is not repairable
  const repaired = applyUpdate(doc, update)
  const left = new Set(find(repaired).violations.map(v => `${v.rule} ${v.field}`))
  return {
    violations: violations.map(v => ({ ...v, repairable: !left.has(`${v.rule} ${v.field}`) })),
    repair: { filter, update },
    repaired
  }
}

/** A violation of a tier against its truth (compareTiers' result); source names the truth */
function tierViolation (id, field, coarser, truth, comparison, source) {
  const note = comparison.repairable
    ? `lacks ${comparison.lacking.join(', ')} against ${source}`
    : `holds more than ${source} (${comparison.excess.join(', ')}): left alone, a repair never lowers a count`
  return { id, field, expected: describeTier(truth), found: describeTier(coarser), note, rule: 'tiers' }
}

/** Buckets that do not add up to the tier's count: a violation, or null */
function bucketViolation (id, field, t) {
  if (bucketsAddUp(t)) return null
  return { id, field, expected: `buckets adding up to its count ${shortNumber(t.count)}`, found: `buckets holding ${shortNumber(bucketed(t))}`, rule: 'buckets' }
}

const unreadable = (id, field, problem) => ({ id, field, expected: 'a distribution tier', found: problem, note: 'left for a person to look at', rule: 'unreadable' })

function findDailyProblems (doc, minutesComplete) {
  const violations = []
  const update = { $inc: {}, $min: {}, $max: {} }
  const filter = { _id: doc._id }
  const id = doc._id
  // the quarter-hours: the finest histogram tier, each checked on its own
  const quarters = HOURS.map(() => QUARTERS.map(() => null)) // read tiers; null = unreadable
  const quarterNode = doc.quarterHourly
  if (quarterNode !== undefined && !isPlainObject(quarterNode)) violations.push(unreadable(id, 'quarterHourly', 'not an object'))
  for (const h of HOURS) {
    for (const q of QUARTERS) {
      const field = `quarterHourly.${h}.${q}`
      const read = isPlainObject(quarterNode) || quarterNode === undefined ? readTier(at(doc, field)) : { problem: 'quarterHourly is not an object' }
      if (read.problem) { if (isPlainObject(quarterNode)) violations.push(unreadable(id, field, read.problem)); continue }
      const v = bucketViolation(id, field, read.tier)
      // a quarter-hour whose buckets do not add up to its count is no truth for its hour and day: they are
      // not compared (nor raised by it) until a person has looked at it
      if (v) violations.push(v)
      else quarters[h][q] = read.tier
    }
  }
  // the minutes: each quarter-hour holds at least their values (exactly them while they are complete)
  if (doc.minute !== undefined) {
    const problems = []
    const minutes = isPlainObject(doc.minute) ? readMinuteQuarters(doc, problems) : (problems.push('minute is not an object'), null)
    for (const problem of problems) violations.push(unreadable(id, problem.split(' ')[0].replace(/:$/, ''), problem))
    if (minutes) {
      for (const h of HOURS) {
        for (const q of QUARTERS) {
          const quarter = quarters[h][q]
          const m = minutes[h][q]
          if (!quarter || (isEmpty(m) && !(minutesComplete && !isEmpty(quarter)))) continue
          const field = `quarterHourly.${h}.${q}`
          const c = compareTiers(quarter, m, { bounds: minutesComplete ? 'exact' : 'cover', histogram: false })
          const wrong = minutesComplete ? !c.equal : c.lacking.length > 0
          if (!wrong) continue
          // a minute's value is a real one: a quarter-hour missing its bound takes it ($min/$max); its
          // count, sum and buckets cannot be rebuilt from minutes, which keep no histogram
          violations.push({ id, field, expected: `${minutesComplete ? '' : 'at least '}what its minutes hold (${describeTier(m)})`, found: describeTier(quarter), rule: 'minutes' })
          const bounds = { inc: {}, min: c.min, max: c.max }
          if (quarter.count > 0 && (bounds.min !== undefined || bounds.max !== undefined)) {
            addRepair(update, field, bounds)
            guardTier(filter, doc, field)
            quarters[h][q] = { ...quarter, parts: quarter.parts, min: bounds.min ?? quarter.min, max: bounds.max ?? quarter.max }
          }
        }
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
    const read = readTier(at(doc, field))
    if (read.problem) { violations.push(unreadable(id, field, read.problem)); continue }
    const v = bucketViolation(id, field, read.tier)
    if (v) violations.push(v)
    if (!readable) continue
    const c = compareTiers(read.tier, hourTruth)
    if (c.equal) continue
    violations.push(tierViolation(id, field, read.tier, hourTruth, c, 'its quarter-hours'))
    if (c.repairable) { addRepair(update, field, c); guardTier(filter, doc, field) }
  }
  const read = readTier(doc.daily)
  if (read.problem) violations.push(unreadable(id, 'daily', read.problem))
  else {
    const v = bucketViolation(id, 'daily', read.tier)
    if (v) violations.push(v)
    if (dayReadable) {
      const c = compareTiers(read.tier, day)
      if (!c.equal) {
        violations.push(tierViolation(id, 'daily', read.tier, day, c, 'its quarter-hours'))
        if (c.repairable) { addRepair(update, 'daily', c); guardTier(filter, doc, 'daily') }
      }
    }
  }
  return { violations, update, filter }
}

/**
 * Verifies one daily distribution document (docs/decisions.md, "Distributions:
 * retention and the check"). minutesComplete as for counters (no `detail`, and
 * the day inside the minute horizon: the caller knows it).
 * → { violations, repair: { filter, update } | null, dayTier }
 * Each violation says whether the repair clears it (repairable); dayTier is the
 * day tier the document vouches for: its own, with what the repair adds.
 */
export function verifyDistributionDaily (doc, { minutesComplete = doc.detail !== QUARTER_HOUR_DETAIL } = {}) {
  const { violations, repair, repaired } = withRepairability(doc, d => findDailyProblems(d, minutesComplete))
  return { violations, repair, dayTier: repaired.daily }
}

function findMonthlyProblems (doc) {
  const violations = []
  const update = { $inc: {}, $min: {}, $max: {} }
  const filter = { _id: doc._id }
  const id = doc._id
  const month = emptyTier()
  let readable = true
  if (doc.daily !== undefined && !isPlainObject(doc.daily)) { violations.push(unreadable(id, 'daily', 'not an object of days')); readable = false }
  for (const d of isPlainObject(doc.daily) ? Object.keys(doc.daily) : []) {
    const field = `daily.${d}`
    const read = readTier(doc.daily[d])
    if (read.problem) { violations.push(unreadable(id, field, read.problem)); readable = false; continue }
    const v = bucketViolation(id, field, read.tier)
    if (v) { violations.push(v); readable = false } else addInto(month, read.tier)
  }
  const read = readTier(doc.monthly)
  if (read.problem) violations.push(unreadable(id, 'monthly', read.problem))
  else {
    const v = bucketViolation(id, 'monthly', read.tier)
    if (v) violations.push(v)
    if (readable) {
      const c = compareTiers(read.tier, month)
      if (!c.equal) {
        violations.push(tierViolation(id, 'monthly', read.tier, month, c, 'its days'))
        if (c.repairable) { addRepair(update, 'monthly', c); guardTier(filter, doc, 'monthly') }
      }
    }
  }
  return { violations, update, filter }
}

/** Verifies monthly = Σ daily.D inside one monthly distribution document, and every tier's buckets. → { violations, repair } */
export function verifyDistributionMonthly (doc) {
  const { violations, repair } = withRepairability(doc, findMonthlyProblems)
  return { violations, repair }
}

/**
 * One day of a month across documents: `monthly.daily.D` (monthlyValue)
 * against the day tier its daily document vouches for (dailyTotal; null = no
 * daily document). → null when they agree, else { violation, repair } where
 * repair ({ filter, update }, for the monthly document) adds what the day
 * field lacks into it and into the month's tier, or is null: the field holds
 * more than the day document, or has no daily document at all (a flush whose
 * daily write failed) — taking it out would lower a count, so it is left.
 */
export function compareDistributionDay ({ monthlyId, day, dailyId, dailyTotal, monthlyValue, metric, monthStart }) {
  const field = `daily.${day}`
  const base = { id: monthlyId, field, against: dailyId }
  const month = readTier(monthlyValue)
  if (dailyTotal === null || dailyTotal === undefined) {
    if (monthlyValue === undefined) return null
    return {
      violation: { ...base, expected: 'missing', found: month.problem ?? describeTier(month.tier), note: 'no daily document that day: left alone, a repair never lowers a count' },
      repair: null
    }
  }
  const dayRead = readTier(dailyTotal)
  if (month.problem || dayRead.problem) {
    return { violation: { ...base, expected: dayRead.problem ?? describeTier(dayRead.tier), found: month.problem ?? describeTier(month.tier), note: 'left for a person to look at' }, repair: null }
  }
  if (!bucketsAddUp(dayRead.tier)) {
    // the daily document's own violation: its day tier is no truth to raise the month by
    const c = compareTiers(month.tier, dayRead.tier)
    if (c.equal) return null
    return { violation: { ...base, expected: describeTier(dayRead.tier), found: monthlyValue === undefined ? 'missing' : describeTier(month.tier), note: 'the daily document\'s day tier is not consistent itself: left alone' }, repair: null }
  }
  if (monthlyValue === undefined) {
    // a day document without its field: the field is created with the whole day (even an empty one)
    const update = { $inc: {}, $min: {}, $max: {}, $setOnInsert: { metric, date: new Date(monthStart) } }
    const c = compareTiers(emptyTier(), dayRead.tier)
    c.inc.count ??= 0
    c.inc.sum ??= 0
    addRepair(update, field, c)
    addRepair(update, 'monthly', c)
    return {
      violation: { ...base, expected: describeTier(dayRead.tier), found: 'missing' },
      repair: { filter: { _id: monthlyId, [field]: { $exists: false } }, update: dropEmpty(update) }
    }
  }
  const c = compareTiers(month.tier, dayRead.tier)
  if (c.equal) return null
  const violation = { ...tierViolation(monthlyId, field, month.tier, dayRead.tier, c, 'the daily document'), against: dailyId }
  delete violation.rule
  if (!c.repairable) return { violation, repair: null }
  const update = { $inc: {}, $min: {}, $max: {}, $setOnInsert: { metric, date: new Date(monthStart) } }
  addRepair(update, field, c)
  addRepair(update, 'monthly', c)
  const filter = { _id: monthlyId }
  guardTier(filter, { daily: { [day]: monthlyValue } }, field)
  return { violation, repair: { filter, update: dropEmpty(update) } }
}

function dropEmpty (update) {
  for (const op of ['$inc', '$min', '$max']) if (Object.keys(update[op]).length === 0) delete update[op]
  return update
}

/** Whether two stored values are the same (a day tier or day field read twice): deep, key order ignored */
export function sameStored (a, b) {
  if (a === b) return true
  if (!isPlainObject(a) || !isPlainObject(b)) return false
  const keys = Object.keys(a)
  if (keys.length !== Object.keys(b).length) return false
  return keys.every(k => Object.hasOwn(b, k) && sameStored(a[k], b[k]))
}
