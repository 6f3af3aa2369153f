// graphite-web's from/until time formats (render/attime.py), in UTC or in
// the request's tz. Pure. Returns epoch seconds; throws AtTimeError naming
// what is wrong.
//
//   1700000000          epoch seconds
//   now, -6h, now-7d, -1mon (30 days), -1y (365 days), +2min
//   HH:MM_YYYYMMDD, YYYYMMDD, MM/DD/YY[YY], noon|midnight|teatime[+offset]
//   today, yesterday, tomorrow, 3pm, 9am, jan5, monday …
// The absolute forms are wall times of the zone (bucket/time-zone.js; UTC
// by default), made instants as pytz's localize does: a wall time the zone
// reads twice, or never (a gap), takes its standard (smaller) offset.

export class AtTimeError extends Error {
  constructor (text, message) {
    super(`time ${JSON.stringify(text)}: ${message}`)
    this.name = 'AtTimeError'
  }
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec']
const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat']
const DAY_S = 86_400
const isDigits = s => s.length > 0 && [...s].every(c => c >= '0' && c <= '9')
const isAlpha = c => c >= 'a' && c <= 'z'

function wholeNumber (text, piece) {
  if (!isDigits(piece)) throw new AtTimeError(text, `expected a number, found ${JSON.stringify(piece)}`)
  return Number(piece)
}

const UTC = { offsetAt: () => 0 }
const DAY_MS = DAY_S * 1000

/** An instant (epoch s) → the zone's wall clock as UTC-like epoch s */
const toWall = (zone, t) => t + zone.offsetAt(t * 1000) * 60

/** A wall time (UTC-like epoch s) → the instant, as pytz localize(is_dst=False) */
function fromWall (zone, w) {
  const offsets = new Set([zone.offsetAt(w * 1000 - DAY_MS), zone.offsetAt(w * 1000), zone.offsetAt(w * 1000 + DAY_MS)])
  const valid = [...offsets].filter(o => zone.offsetAt((w - o * 60) * 1000) === o)
  const offset = Math.min(...(valid.length ? valid : offsets))
  return w - offset * 60
}

/** text → epoch seconds, relative to nowSeconds; zone: bucket/time-zone.js's (UTC when absent) */
export function parseAtTime (raw, nowSeconds, zone = UTC) {
  const text = String(raw)
  const s = text.trim().toLowerCase().replaceAll('_', '').replaceAll(',', '').replaceAll(' ', '')
  if (isDigits(s)) {
    const looksLikeDate = s.length === 8 && Number(s.slice(0, 4)) > 1900 && Number(s.slice(4, 6)) < 13 && Number(s.slice(6)) < 32
    if (!looksLikeDate) return Number(s)
  }
  let ref = s
  let offset = ''
  const plus = s.indexOf('+')
  const minus = s.indexOf('-')
  if (plus !== -1) { ref = s.slice(0, plus); offset = s.slice(plus) } else if (minus !== -1) { ref = s.slice(0, minus); offset = s.slice(minus) }
  return parseReference(text, ref, nowSeconds, zone) + parseOffset(text, offset)
}

function parseReference (text, original, now, zone) {
  if (!original || original === 'now') return now
  let ref = original
  let hour = 0
  let minute = 0
  let i = ref.indexOf(':')
  if (i > 0 && i < 3) {
    hour = wholeNumber(text, ref.slice(0, i))
    minute = wholeNumber(text, ref.slice(i + 1, i + 3))
    ref = ref.slice(i + 3)
    if (ref.startsWith('am')) ref = ref.slice(2)
    else if (ref.startsWith('pm')) { hour = (hour + 12) % 24; ref = ref.slice(2) }
  }
  i = ref.indexOf('am')
  if (i > 0 && i < 3) { hour = wholeNumber(text, ref.slice(0, i)); ref = ref.slice(i + 2) }
  i = ref.indexOf('pm')
  if (i > 0 && i < 3) { hour = (wholeNumber(text, ref.slice(0, i)) + 12) % 24; ref = ref.slice(i + 2) }
  if (ref.startsWith('noon')) { hour = 12; minute = 0; ref = ref.slice(4) } else if (ref.startsWith('midnight')) { hour = 0; minute = 0; ref = ref.slice(8) } else if (ref.startsWith('teatime')) { hour = 16; minute = 0; ref = ref.slice(7) }
  if (hour > 23 || minute > 59) throw new AtTimeError(text, `no time of day ${hour}:${minute}`)

  // wall times of the zone from here on, made an instant at the end
  const today = new Date(toWall(zone, now) * 1000)
  const at = (y, m, d) => {
    const ms = Date.UTC(y, m - 1, d, hour, minute)
    const check = new Date(ms)
    if (check.getUTCMonth() !== m - 1 || check.getUTCDate() !== d) throw new AtTimeError(text, `no date ${y}-${m}-${d}`)
    return ms / 1000
  }
  let ref0 = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate(), hour, minute) / 1000
  if (ref === 'yesterday') ref0 -= DAY_S
  else if (ref === 'tomorrow') ref0 += DAY_S
  else if (ref === 'today') { /* today at the time of day */ } else if (ref.split('/').length === 3) {
    const [m, d, yy] = ref.split('/').map(p => wholeNumber(text, p))
    let y = yy
    if (y < 1900) y += 1900
    if (y < 1970) y += 100
    ref0 = at(y, m, d)
  } else if (ref.length === 8 && isDigits(ref)) {
    ref0 = at(Number(ref.slice(0, 4)), Number(ref.slice(4, 6)), Number(ref.slice(6, 8)))
  } else if (MONTHS.includes(ref.slice(0, 3))) {
    const tail = ref.slice(-2)
    const day = isDigits(tail) ? Number(tail) : isDigits(ref.slice(-1)) ? Number(ref.slice(-1)) : null
    if (day === null) throw new AtTimeError(text, 'a day of the month must follow the month name')
    ref0 = at(today.getUTCFullYear(), MONTHS.indexOf(ref.slice(0, 3)) + 1, day)
  } else if (WEEKDAYS.includes(ref.slice(0, 3))) {
    let back = today.getUTCDay() - WEEKDAYS.indexOf(ref.slice(0, 3))
    if (back < 0) back += 7
    ref0 -= back * DAY_S
  } else if (ref) {
    throw new AtTimeError(text, `unknown day reference ${JSON.stringify(original)}`)
  }
  return fromWall(zone, ref0)
}

const UNITS = [['s', 1], ['min', 60], ['h', 3600], ['d', DAY_S], ['w', 7 * DAY_S], ['mon', 30 * DAY_S], ['y', 365 * DAY_S]]

function parseOffset (text, original) {
  if (!original) return 0
  let offset = original
  let sign = 1
  if (offset[0] === '+' || offset[0] === '-') { sign = offset[0] === '-' ? -1 : 1; offset = offset.slice(1) } else if (!isDigits(offset[0])) throw new AtTimeError(text, `invalid offset ${JSON.stringify(original)}`)
  let seconds = 0
  while (offset) {
    let i = 0
    while (i < offset.length && isDigits(offset[i])) i++
    const num = wholeNumber(text, offset.slice(0, i))
    offset = offset.slice(i)
    let j = 0
    while (j < offset.length && isAlpha(offset[j])) j++
    const unit = offset.slice(0, j)
    offset = offset.slice(j)
    const found = UNITS.find(([prefix]) => unit.startsWith(prefix))
    if (!found) throw new AtTimeError(text, `invalid offset unit ${JSON.stringify(unit)} (s, min, h, d, w, mon, y)`)
    seconds += sign * num * found[1]
  }
  return seconds
}

/** An interval such as "5min", "-1d", "1h30min" → seconds (render/attime.py parseTimeOffset) */
export function parseOffsetSeconds (text) {
  const s = String(text).trim().toLowerCase()
  if (!s) throw new AtTimeError(text, 'an empty interval')
  return parseOffset(text, s)
}
