// An independent computation of local boundaries for the local-time tests:
// the wall clock read from Intl.DateTimeFormat minute by minute, and a
// boundary wherever the wall clock enters a new hour (date, month) or reads
// exactly the start of one. It shares no code with src/bucket/local-time.js
// or time-zone.js (which take offsets from Luxon and compute boundaries from
// transitions); it is slow on purpose, and simple enough to read at a glance.
const MINUTE = 60_000

const formatters = new Map()

/** The wall clock in tz at t as { y, mo, d, h, mi } */
export function intlWall (tz, t) {
  let f = formatters.get(tz)
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric' })
    formatters.set(tz, f)
  }
  const p = Object.fromEntries(f.formatToParts(new Date(t)).map(({ type, value }) => [type, Number(value)]))
  return { y: p.year, mo: p.month, d: p.day, h: p.hour, mi: p.minute }
}

const keyOf = {
  hour: w => `${w.y}-${w.mo}-${w.d} ${w.h}`,
  day: w => `${w.y}-${w.mo}-${w.d}`,
  month: w => `${w.y}-${w.mo}`
}
const exact = {
  hour: w => w.mi === 0,
  day: w => w.h === 0 && w.mi === 0,
  month: w => w.d === 1 && w.h === 0 && w.mi === 0
}

/**
 * Every boundary of hour, day and month in [from, to] (from, to on whole
 * minutes), by reading the wall clock at every minute: { hour: [...], day: [...], month: [...] }
 */
export function intlBoundaries (tz, from, to) {
  const out = { hour: [], day: [], month: [] }
  let before = intlWall(tz, from - MINUTE)
  for (let t = from; t <= to; t += MINUTE) {
    const w = intlWall(tz, t)
    for (const step of ['hour', 'day', 'month']) {
      if (keyOf[step](w) !== keyOf[step](before) || exact[step](w)) out[step].push(t)
    }
    before = w
  }
  return out
}

/** The instants local months 1..13 of `year` begin (the 13th: next January), read around each UTC month start */
export function intlMonthStarts (tz, year) {
  return Array.from({ length: 13 }, (_, m) => intlBoundaries(tz, Date.UTC(year, m, 1) - 86_400_000, Date.UTC(year, m, 1) + 86_400_000).month[0])
}
