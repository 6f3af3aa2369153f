// The load generator's simulated clock, and the arithmetic of a run's
// simulated window. Pure: the real clock is injected.
import { DAY_MS, MINUTE_MS, startOfDay } from '../../src/bucket/time.js'

/**
 * Simulated time running `speedup` times faster than real time from `start`
 * (epoch ms). realNow: () => real ms (monotonic; default performance.now).
 * now() is a whole epoch ms, as events carry it.
 */
export function createSimClock ({ start, speedup, realNow = () => performance.now() }) {
  if (!Number.isFinite(start)) throw new TypeError('start must be epoch milliseconds')
  if (!(speedup > 0) || !Number.isFinite(speedup)) throw new TypeError('speedup must be a positive number')
  const real0 = realNow()
  return {
    start,
    speedup,
    /** simulated epoch ms, whole */
    now: () => Math.floor(start + (realNow() - real0) * speedup),
    /** real ms since the clock started */
    realElapsed: () => realNow() - real0,
    /** real ms (since the clock started) at which simulated time reaches sim */
    realOffsetAt: (sim) => (sim - start) / speedup
  }
}

/** Simulated span in ms of a run: --sim-minutes, or --seconds of real time at speedup */
export function simSpanMs ({ simMinutes, seconds, speedup }) {
  if (simMinutes !== undefined) return simMinutes * MINUTE_MS
  return seconds * 1000 * speedup
}

/**
 * Default start: 00:00 UTC of the latest day such that the whole simulated
 * span ends no later than `now` (the service accepts nothing ahead of its
 * clock), so a default run covers a full day from its first minute.
 */
export function defaultStart ({ now, spanMs }) {
  return startOfDay(now - spanMs)
}

/**
 * Whether a run's simulated times stay within what the service accepts for
 * the whole run: nothing after `now` (at the start of the run), nothing older
 * than MAX_AGE_DAYS at its end (real time moves on while it runs; out-of-order
 * events reach back `oooWindowMs`). → null when fine, else a message.
 */
export function checkServiceWindow ({ start, spanMs, now, realRunMs, maxAgeDays, oooWindowMs = 0, marginMs = MINUTE_MS }) {
  const end = start + spanMs
  const earliest = start - oooWindowMs
  const oldestAccepted = now + realRunMs + marginMs - maxAgeDays * DAY_MS
  const iso = ms => new Date(ms).toISOString()
  if (end > now) {
    return `the run's simulated time would reach ${iso(end)}, after now (${iso(now)}): the service accepts nothing ahead of its clock. ` +
      'Start earlier (--start), or shorten the run (--sim-minutes, --seconds, --speedup)'
  }
  if (earliest < oldestAccepted) {
    return `the run's simulated time would reach back to ${iso(earliest)}, older than the service's MAX_AGE_DAYS (${maxAgeDays}) allows by the end of the run ` +
      `(${iso(oldestAccepted)}). Start later (--start), shorten --ooo-window, or pass the server's --max-age-days`
  }
  return null
}

/**
 * Parses a duration: a number with a unit s, m, h or d ("90m", "6h", "1.5d");
 * a bare number is minutes. → ms, or null when malformed.
 */
export function parseDuration (text) {
  const m = /^(\d+(?:\.\d+)?)\s*([smhd]?)$/.exec(String(text).trim())
  if (!m) return null
  const unit = { s: 1000, m: MINUTE_MS, h: 60 * MINUTE_MS, d: DAY_MS, '': MINUTE_MS }[m[2]]
  return Math.round(Number(m[1]) * unit)
}

/**
 * Parses --start: an ISO-8601 time with Z or an offset, a date ("2026-11-20",
 * midnight UTC), or "HH:MM" (that time UTC of the latest day on which a run of
 * spanMs ending by `now` fits). → epoch ms, or null when malformed.
 */
export function parseStart (text, { now, spanMs }) {
  const s = String(text).trim()
  let m = /^(\d{1,2}):(\d{2})$/.exec(s)
  if (m) {
    const h = Number(m[1]); const min = Number(m[2])
    if (h > 23 || min > 59) return null
    const offset = (h * 60 + min) * MINUTE_MS
    let day = startOfDay(now - spanMs)
    if (day + offset + spanMs > now) day -= DAY_MS
    return day + offset
  }
  m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s)
  if (m) {
    const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))
    const d = new Date(ms)
    return d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]) ? ms : null
  }
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/i.test(s)) return null
  const ms = Date.parse(s)
  return Number.isFinite(ms) ? ms : null
}
