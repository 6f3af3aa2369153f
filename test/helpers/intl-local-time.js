// An independent computation of local boundaries for the local-time tests:
// the wall clock read from Intl.DateTimeFormat minute by minute; an hour
// boundary wherever the wall clock enters a new hour or reads exactly the
// start of one, a day (month) boundary wherever it enters a date (month)
// later than any it has read. It shares no code with src/bucket/local-time.js
// or time-zone.js (which take offsets from Luxon and compute boundaries from
// transitions); it is slow on purpose, and simple enough to read at a glance.
const MINUTE = 60_000

const formatters = new Map()
const SHAPE = /^(\d{1,2})\/(\d{1,2})\/(\d{4}), (\d{2}):(\d{2})$/

/** The wall clock in tz at t as { y, mo, d, h, mi } */
export function intlWall (tz, t) {
  let f = formatters.get(tz)
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric' })
    formatters.set(tz, f)
  }
  // en-US reads "M/D/YYYY, HH:MM" (a third of formatToParts' cost, which this file pays a million times)
  const m = SHAPE.exec(f.format(t))
  if (m) return { y: Number(m[3]), mo: Number(m[1]), d: Number(m[2]), h: Number(m[4]), mi: Number(m[5]) }
  const p = Object.fromEntries(f.formatToParts(new Date(t)).map(({ type, value }) => [type, Number(value)]))
  return { y: p.year, mo: p.month, d: p.day, h: p.hour, mi: p.minute }
}

const keyOf = {
  hour: w => `${w.y}-${w.mo}-${w.d} ${w.h}`,
  day: w => w.y * 10_000 + w.mo * 100 + w.d,
  month: w => w.y * 100 + w.mo
}

/**
 * Every boundary of hour, day and month in [from, to] (from, to on whole
 * minutes), by reading the wall clock at every minute: { hour: [...], day: [...], month: [...] }
 */
export function intlBoundaries (tz, from, to) {
  const out = { hour: [], day: [], month: [] }
  let before = intlWall(tz, from - MINUTE)
  const latest = { day: keyOf.day(before), month: keyOf.month(before) }
  for (let t = from; t <= to; t += MINUTE) {
    const w = intlWall(tz, t)
    if (keyOf.hour(w) !== keyOf.hour(before) || w.mi === 0) out.hour.push(t)
    for (const step of ['day', 'month']) {
      if (keyOf[step](w) > latest[step]) {
        out[step].push(t)
        latest[step] = keyOf[step](w)
      }
    }
    before = w
  }
  return out
}

/** The instants local months 1..13 of `year` begin (the 13th: next January), read around each UTC month start */
export function intlMonthStarts (tz, year) {
  return Array.from({ length: 13 }, (_, m) => intlBoundaries(tz, Date.UTC(year, m, 1) - 86_400_000, Date.UTC(year, m, 1) + 86_400_000).month[0])
}
