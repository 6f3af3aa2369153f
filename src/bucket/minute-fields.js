// The minute counters of a day document: minute.H.M (hour → minute), so an
// update walks at most 24 + 60 keys (docs/architecture.md#documents).
// Field names are built once: the ingest loop looks them up instead of
// concatenating. Pure.

const HOURS = Array.from({ length: 24 }, (_, h) => h)
const MINUTES = Array.from({ length: 60 }, (_, m) => m)
const MINUTE_FIELDS = Array.from({ length: 1440 }, (_, i) => `minute.${Math.floor(i / 60)}.${i % 60}`)

/** The field of a day's minute: 'minute.H.M' */
export const minuteField = (hour, minute) => MINUTE_FIELDS[hour * 60 + minute]

/** $inc map setting every counter of a day to +0 (preallocation); minutes false: the tiers above minutes only */
export function dayZeroIncrements (minutes = true) {
  const inc = { daily: 0 }
  for (const h of HOURS) {
    inc[`hourly.${h}`] = 0
    for (let q = 0; q < 4; q++) inc[`quarterHourly.${h}.${q}`] = 0
  }
  if (minutes) for (const h of HOURS) for (const m of MINUTES) inc[`minute.${h}.${m}`] = 0
  return inc
}

/** Minute i (0–1439) of a day document's counters, 0 where absent */
export const minuteOfDay = (doc, i) => doc.minute?.[Math.floor(i / 60)]?.[i % 60] ?? 0

/** The fields of a day document's minutes from `start` to `end` (ms, less than a day apart): the hours covered, of any day */
export function minuteHoursProjection (start, end) {
  const projection = {}
  for (let t = Math.floor(start / 3_600_000) * 3_600_000; t < end; t += 3_600_000) projection[`minute.${new Date(t).getUTCHours()}`] = 1
  return Object.keys(projection).length === 24 ? { minute: 1 } : projection
}
