// UTC calendar arithmetic. Pure: no clock, no I/O.

export const MINUTE_MS = 60_000
export const QUARTER_HOUR_MS = 15 * MINUTE_MS
export const HOUR_MS = 60 * MINUTE_MS
export const DAY_MS = 24 * HOUR_MS

// Years outside this range cannot be written as YYYY in an id.
export const MIN_TIME_MS = Date.UTC(1970, 0, 1)
export const MAX_TIME_MS = Date.UTC(10000, 0, 1) - 1

/** ISO-8601 date-time that names its zone; the one definition the schemas use too */
export const ISO_WITH_ZONE_PATTERN = '^(\\d{4})-(\\d{2})-(\\d{2})[Tt](\\d{2}):(\\d{2})(?::(\\d{2})(?:\\.(\\d{1,9}))?)?([Zz]|[+-]\\d{2}:\\d{2})$'
const ISO_WITH_ZONE = new RegExp(ISO_WITH_ZONE_PATTERN)

/**
 * Parses an ISO-8601 timestamp that names its zone (`Z` or `±hh:mm`).
 * Returns epoch ms, or null when the string is malformed, has no zone, or
 * names a calendar date that does not exist (2026-02-30).
 */
export function parseIsoWithZone (text) {
  const m = ISO_WITH_ZONE.exec(text)
  if (!m) return null
  const [, y, mo, d, h, mi, s = '0'] = m
  const year = Number(y); const month = Number(mo); const day = Number(d)
  const hour = Number(h); const minute = Number(mi); const second = Number(s)
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null
  if (hour > 23 || minute > 59 || second > 59) return null
  const ms = Date.parse(text)
  return Number.isFinite(ms) ? ms : null
}

// The JSON API takes epoch milliseconds; a number below this (1973-03-03 in
// ms, year 5138 in seconds) is far likelier epoch seconds: refused, not read
// as a time in 1970 (docs/adr/0020-epoch-seconds-refused.md).
export const MIN_PLAUSIBLE_EPOCH_MS = 1e11

/** Why a number given as epoch ms cannot be one (a message), or null when it is plausible */
export function epochMsProblem (n) {
  if (n >= MIN_PLAUSIBLE_EPOCH_MS) return null
  const asSeconds = n >= 1e8 ? `; read as epoch seconds it would be ${new Date(n * 1000).toISOString()}: multiply by 1000` : ''
  return `${n} is not epoch milliseconds (a number below ${MIN_PLAUSIBLE_EPOCH_MS}, before 1973): this API takes epoch milliseconds or an ISO-8601 time with Z or an offset${asSeconds}`
}

/** Event `ts`: ISO string with zone, or integer epoch ms. null when invalid. */
export function parseEventTime (ts) {
  if (typeof ts === 'number') {
    return Number.isSafeInteger(ts) && ts >= MIN_TIME_MS && ts <= MAX_TIME_MS ? ts : null
  }
  if (typeof ts === 'string') {
    const ms = parseIsoWithZone(ts)
    return ms !== null && ms >= MIN_TIME_MS && ms <= MAX_TIME_MS ? ms : null
  }
  return null
}

/** Query time: all digits = epoch ms, anything else ISO with zone. */
export function parseQueryTime (text) {
  if (/^\d{1,16}$/.test(text)) return parseEventTime(Number(text))
  return parseEventTime(text)
}

export function isLeapYear (year) {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
}

/** month is 1..12 */
export function daysInMonth (year, month) {
  return [31, isLeapYear(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
}

/** { year, month (1..12), day (1..31), hour, minute } in UTC */
export function utcParts (ms) {
  const d = new Date(ms)
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes()
  }
}

export function startOfDay (ms) {
  return ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS)
}

export function startOfMonth (ms) {
  const d = new Date(ms)
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)
}

export function addMonths (ms, n) {
  const d = new Date(ms)
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + n, 1)
}

const pad = (n, width) => String(n).padStart(width, '0')

/** 'YYYYMMDD' of the UTC day holding ms */
export function dayKey (ms) {
  const { year, month, day } = utcParts(ms)
  return `${pad(year, 4)}${pad(month, 2)}${pad(day, 2)}`
}

/** 'YYYYMM' of the UTC month holding ms */
export function monthKey (ms) {
  const { year, month } = utcParts(ms)
  return `${pad(year, 4)}${pad(month, 2)}`
}

/** 'YYYY-MM', the label of a month in ytd answers */
export function monthLabel (ms) {
  const { year, month } = utcParts(ms)
  return `${pad(year, 4)}-${pad(month, 2)}`
}

// The days described last (a range read walks each of its days, a year's report 365 of them), forgotten all at once past this many
const DESCRIBED_DAYS = 4096
const described = new Map()

/**
 * What every event of one UTC day shares: the date parts of its ids, its
 * day of month, its month's start and the next month's. dayStart must be a
 * UTC midnight. Frozen: the same object for every caller of the same day.
 */
export function describeDay (dayStart) {
  let known = described.get(dayStart)
  if (known !== undefined) return known
  const { year, month, day } = utcParts(dayStart)
  const monthKeyText = `${pad(year, 4)}${pad(month, 2)}`
  known = Object.freeze({ dayKey: `${monthKeyText}${pad(day, 2)}`, monthKey: monthKeyText, dayOfMonth: day, monthStart: Date.UTC(year, month - 1, 1), nextMonthStart: Date.UTC(year, month, 1) })
  if (described.size >= DESCRIBED_DAYS) described.clear()
  described.set(dayStart, known)
  return known
}

// The one home of the id format: metric, '/', a day or month key. A metric
// name never contains '/' or '%'; a tagged series' values may
// (`web.requests;route=/login`), and are escaped in ids as %2F and %25, so an
// id holds one '/' and metricIdPrefix(metric) prefixes exactly one series' ids.
const ID_ESCAPED = /[%/]/g
const ID_ESCAPE = /%2F|%25/g
const idPart = (metric) => (metric.indexOf('/') === -1 && metric.indexOf('%') === -1 ? metric : metric.replace(ID_ESCAPED, c => (c === '/' ? '%2F' : '%25')))
const fromIdPart = (part) => (part.indexOf('%') === -1 ? part : part.replace(ID_ESCAPE, e => (e === '%2F' ? '/' : '%')))
export const metricIdPrefix = (metric) => `${idPart(metric)}/`
/**
 * The _id range of the documents of every metric whose name starts with
 * `prefix` (escaped as ids are: each character's escape is its own, so a
 * name starts with prefix exactly when its ids start with the escaped prefix)
 */
export function namePrefixIdRange (prefix) {
  const part = idPart(prefix)
  const above = prefixUpperBound(part)
  return above === null ? { $gte: part } : { $gte: part, $lt: above }
}

/**
 * The least string above every string that starts with `prefix` (not
 * empty), in UTF-16 order and in UTF-8 byte order (MongoDB's) alike: its
 * last character one code point up. `prefix + '\uffff'` is not: a character
 * past U+FFFF (an emoji in a tag value) sorts above it in UTF-8.
 */
export function prefixUpperBound (prefix) {
  const chars = [...prefix]
  while (chars.length > 0) {
    const last = chars.pop().codePointAt(0)
    if (last === 0x10ffff) continue
    // the surrogates are no characters: past U+D7FF comes U+E000
    return chars.join('') + String.fromCodePoint(last === 0xd7ff ? 0xe000 : last + 1)
  }
  return null
}
export const bucketId = (metric, key) => `${idPart(metric)}/${key}`
export const dayId = (metric, ms) => bucketId(metric, dayKey(ms))
export const monthId = (metric, ms) => bucketId(metric, monthKey(ms))

/**
 * The id of a distribution's minute histograms of one UTC hour (the
 * minute-hour documents): metric, '/', YYYYMMDDHH. ms: any time in the hour.
 */
export const hourId = (metric, ms) => bucketId(metric, `${dayKey(ms)}${pad(utcParts(ms).hour, 2)}`)

/** Inverse of hourId: { metric, date (ms of the hour's start) } or null */
export function parseHourId (id) {
  const slash = id.lastIndexOf('/')
  if (slash < 1 || !/^\d{10}$/.test(id.slice(slash + 1))) return null
  const day = parseBucketId(id.slice(0, -2))
  const hour = Number(id.slice(-2))
  return day === null || hour > 23 ? null : { metric: day.metric, date: day.date + hour * HOUR_MS }
}

/** Inverse of dayId/monthId: { metric, date (ms of the day or month start) } or null */
/** The metric of any bucket document's id (a day's, a month's, a minute-hour's), or null */
export function metricOfId (id) {
  const slash = id.lastIndexOf('/')
  return slash < 1 ? null : fromIdPart(id.slice(0, slash))
}

export function parseBucketId (id) {
  const slash = id.lastIndexOf('/')
  if (slash < 1) return null
  const metric = fromIdPart(id.slice(0, slash))
  const key = id.slice(slash + 1)
  if (!/^\d{6}(\d{2})?$/.test(key)) return null
  const year = Number(key.slice(0, 4))
  const month = Number(key.slice(4, 6))
  const day = key.length === 8 ? Number(key.slice(6, 8)) : 1
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null
  return { metric, date: Date.UTC(year, month - 1, day) }
}

export const STEPS = ['minute', 'quarter-hour', 'hour', 'day', 'month']

/** Largest step boundary ≤ ms */
export function floorToStep (ms, step) {
  switch (step) {
    case 'minute': return ms - (((ms % MINUTE_MS) + MINUTE_MS) % MINUTE_MS)
    case 'quarter-hour': return ms - (((ms % QUARTER_HOUR_MS) + QUARTER_HOUR_MS) % QUARTER_HOUR_MS)
    case 'hour': return ms - (((ms % HOUR_MS) + HOUR_MS) % HOUR_MS)
    case 'day': return startOfDay(ms)
    case 'month': return startOfMonth(ms)
    default: throw new Error(`unknown step ${step}`)
  }
}

/** Smallest step boundary ≥ ms */
export function ceilToStep (ms, step) {
  const floor = floorToStep(ms, step)
  return floor === ms ? ms : nextStep(floor, step)
}

/** The boundary after a step boundary */
export function nextStep (ms, step) {
  switch (step) {
    case 'minute': return ms + MINUTE_MS
    case 'quarter-hour': return ms + QUARTER_HOUR_MS
    case 'hour': return ms + HOUR_MS
    case 'day': return ms + DAY_MS
    case 'month': return addMonths(ms, 1)
    default: throw new Error(`unknown step ${step}`)
  }
}

/** Number of step points in [floor(from), ceil(to)) */
export function countPoints (from, to, step) {
  const start = floorToStep(from, step)
  const end = ceilToStep(to, step)
  if (step === 'month') {
    const a = utcParts(start); const b = utcParts(end)
    return (b.year - a.year) * 12 + (b.month - a.month)
  }
  const size = { minute: MINUTE_MS, 'quarter-hour': QUARTER_HOUR_MS, hour: HOUR_MS, day: DAY_MS }[step]
  return Math.round((end - start) / size)
}
