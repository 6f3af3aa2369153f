// An IANA time zone as the local-time code needs it: the UTC offset at an
// instant and the instants where the offset changes. Offsets come from
// Luxon's IANAZone (the tz database through Intl; docs/adr/0017-local-time.md); nothing here holds an offset table. The transitions of a UTC year
// are found once (a probe per day, then a binary search to the millisecond)
// and kept, so a query asks Intl a few hundred times per zone and year, not
// once per point. No I/O.
import { IANAZone } from 'luxon'
import { DAY_MS } from './time.js'

const YEARS_KEPT = 2_000 // (zone, year) transition lists kept; each is a few entries
const transitionsByYear = new Map()

/** First instant in (lo, hi] whose offset is not `before` (offset(lo) = before ≠ offset(hi)) */
function firstChange (zone, lo, hi, before) {
  while (hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2)
    if (zone.offset(mid) === before) lo = mid
    else hi = mid
  }
  return hi
}

/**
 * A UTC year of a zone: { startOffset, transitions: [{ at, offset }] }, the
 * offset (minutes) at the year's first instant and the instants where it
 * changes, with the offset from then on
 */
function yearOf (zone, year) {
  const key = `${zone.name}\n${year}`
  let known = transitionsByYear.get(key)
  if (known) return known
  const transitions = []
  const end = Date.UTC(year + 1, 0, 1)
  let t = Date.UTC(year, 0, 1)
  const startOffset = zone.offset(t)
  let offset = startOffset
  for (let next = t + DAY_MS; t < end; t = next, next = Math.min(end, next + DAY_MS)) {
    const after = zone.offset(next)
    if (after === offset) continue
    // one change per day at most (none closer together is in the tz database)
    const at = firstChange(zone, t, next, offset)
    const settled = zone.offset(at)
    if (at < end) transitions.push({ at, offset: settled })
    offset = after
  }
  known = { startOffset, transitions }
  if (transitionsByYear.size >= YEARS_KEPT) transitionsByYear.delete(transitionsByYear.keys().next().value)
  transitionsByYear.set(key, known)
  return known
}

const utcYear = t => new Date(t).getUTCFullYear()

/** The shape of a tz database name (Area/Location, EST5EDT, Etc/GMT+5, UTC), never an offset such as +05:30 */
const IANA_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/
const NAMES_KEPT = 1_000 // names as sent → the tz database's name for the zone
const canonicalNames = new Map()

// Zones of the tz database (2025b) that Intl.supportedValuesOf('timeZone')
// lists under an older name (Asia/Calcutta) or not at all; with that list,
// the spellings a name sent in any case is echoed in (Etc/GMT±N: ICU's own name keeps it)
const UNLISTED_ZONES = ['Africa/Asmara', 'America/Argentina/Buenos_Aires', 'America/Argentina/Catamarca', 'America/Argentina/Cordoba',
  'America/Argentina/Jujuy', 'America/Argentina/Mendoza', 'America/Atikokan', 'America/Indiana/Indianapolis', 'America/Kentucky/Louisville',
  'America/Nuuk', 'Asia/Ho_Chi_Minh', 'Asia/Kathmandu', 'Asia/Kolkata', 'Asia/Yangon', 'Atlantic/Faroe', 'CET', 'CST6CDT', 'EET', 'EST',
  'EST5EDT', 'Etc/GMT', 'Etc/UTC', 'Europe/Kyiv', 'HST', 'MET', 'MST', 'MST7MDT', 'PST8PDT', 'Pacific/Chuuk', 'Pacific/Kanton', 'Pacific/Pohnpei', 'WET']
let spellings = null // lower case → the tz database's spelling

/**
 * The name a zone is echoed by: the name sent as the tz database spells it
 * ('europe/berlin' → 'Europe/Berlin', 'asia/kolkata' → 'Asia/Kolkata'), or,
 * for a link that is not in the lists, ICU's name for the zone it links to
 * ('us/eastern' → 'America/New_York')
 */
function spellingOf (name, canonical) {
  spellings ??= new Map([...Intl.supportedValuesOf('timeZone'), ...UNLISTED_ZONES].map(n => [n.toLowerCase(), n]))
  return spellings.get(name.toLowerCase()) ?? canonical
}

/**
 * { canonical, spelled }: the name ICU gives the zone (links and any
 * spelling of a name resolve to one: 'asia/kolkata' → 'Asia/Calcutta',
 * 'Etc/GMT' → 'UTC') and the one it is echoed by (spellingOf), or null for a
 * name that is not an IANA zone. Caches and Luxon only ever see canonical
 * names, so spellings of one zone cannot grow them.
 */
function canonicalOf (name) {
  if (canonicalNames.has(name)) return canonicalNames.get(name)
  let canonical = null
  try {
    canonical = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone
  } catch {}
  // engines that take offsets such as '+05:30' as zones (Node 24): only IANA names here
  if (canonical !== null && (!IANA_NAME.test(canonical) || !IANAZone.isValidZone(canonical))) canonical = null
  const known = canonical === null ? null : { canonical, spelled: spellingOf(name, canonical) }
  if (canonicalNames.size >= NAMES_KEPT) canonicalNames.delete(canonicalNames.keys().next().value)
  canonicalNames.set(name, known)
  return known
}

/**
 * A zone by IANA name (any link or spelling the tz database knows), or null.
 * → { name (echoed in answers: as the tz database spells it, spellingOf), isUtc (UTC under any of its names),
 *     offsetAt(t) (minutes east of UTC), transitionAfter(t) (the first
 *     instant > t where the offset changes, looking a year ahead, or null) }
 */
export function timeZone (name) {
  if (typeof name !== 'string' || name === '' || name.length > 64) return null
  const known = canonicalOf(name)
  if (known === null) return null
  const { canonical } = known
  name = known.spelled
  if (canonical === 'UTC') return { name, isUtc: true, offsetAt: () => 0, transitionAfter: () => null }
  const zone = IANAZone.create(canonical)
  // the UTC year last asked about, kept at hand: a series asks about one or two years thousands of times
  let held = { from: 0, to: 0, year: null }
  const yearAt = (t) => {
    if (t < held.from || t >= held.to) {
      const y = utcYear(t)
      held = { from: Date.UTC(y, 0, 1), to: Date.UTC(y + 1, 0, 1), year: yearOf(zone, y), y }
    }
    return held
  }
  return {
    name,
    isUtc: false,
    offsetAt (t) {
      // the offset in force at t: the year's first offset, moved by its transitions up to t
      const { startOffset, transitions } = yearAt(t).year
      let offset = startOffset
      for (const tr of transitions) {
        if (tr.at > t) break
        offset = tr.offset
      }
      return offset
    },
    transitionAfter (t) {
      const { year, y } = yearAt(t)
      for (const tr of year.transitions) if (tr.at > t) return tr.at
      for (const tr of yearOf(zone, y + 1).transitions) if (tr.at > t) return tr.at
      return null
    }
  }
}
