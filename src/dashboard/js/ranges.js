// Time ranges, all in UTC like the API. Pure functions.

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

/** → { from, to } in epoch ms for a preset at `now` */
export function presetWindow (name, now) {
  if (name === 'year') return { from: Date.UTC(new Date(now).getUTCFullYear(), 0, 1), to: now }
  const preset = PRESETS[name]
  if (!preset) throw new Error(`unknown range ${name}`)
  return { from: now - preset.ms, to: now }
}

/** The UTC year a window ends in (its `to` is exclusive). */
export function windowYear ({ to }) {
  return new Date(to - 1).getUTCFullYear()
}

/** epoch ms → 'YYYY-MM-DDTHH:MM' for a datetime-local input read as UTC */
export function toInputValue (ms) {
  return new Date(ms).toISOString().slice(0, 16)
}

/** 'YYYY-MM-DDTHH:MM' read as UTC → epoch ms, or NaN */
export function fromInputValue (text) {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(text) ? Date.parse(text + 'Z') : NaN
}

export function formatUtc (ms) {
  return new Date(ms).toISOString().replace('T', ' ').slice(0, 16) + ' UTC'
}

const formatter = new Intl.NumberFormat('en-US', { maximumFractionDigits: 6 })
export function formatNumber (n) {
  return n === null || n === undefined ? 'no data' : formatter.format(n)
}
