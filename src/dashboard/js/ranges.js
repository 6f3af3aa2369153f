// Time ranges in the zone the dashboard shows (zone.js). Pure functions.
import { instantOf, partsIn } from './zone.js'

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

export const PRESETS = {
  '1h': { label: 'last hour', ms: HOUR },
  '24h': { label: 'last 24 h', ms: DAY },
  '7d': { label: 'last 7 days', ms: 7 * DAY },
  '30d': { label: 'last 30 days', ms: 30 * DAY },
  year: { label: 'this year' }
}

/** → { from, to } in epoch ms for a preset at `now`; "this year" starts on 1 January in tz */
export function presetWindow (name, now, tz = 'UTC') {
  if (name === 'year') return { from: instantOf(tz, partsIn(tz, now).year, 1, 1), to: now }
  const preset = PRESETS[name]
  if (!preset) throw new Error(`unknown range ${name}`)
  return { from: now - preset.ms, to: now }
}

/** The year (in tz) a window ends in (its `to` is exclusive). */
export function windowYear ({ to }, tz = 'UTC') {
  return partsIn(tz, to - 1).year
}

const pad = n => String(n).padStart(2, '0')

/** epoch ms → 'YYYY-MM-DDTHH:MM' for a datetime-local input read in tz */
export function toInputValue (ms, tz = 'UTC') {
  const p = partsIn(tz, ms)
  return `${p.year}-${pad(p.month)}-${pad(p.day)}T${pad(p.hour)}:${pad(p.minute)}`
}

/** 'YYYY-MM-DDTHH:MM' read in tz → epoch ms, or NaN */
export function fromInputValue (text, tz = 'UTC') {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::\d{2})?$/.exec(text)
  return m ? instantOf(tz, Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5])) : NaN
}
