// The series chart's time axis, in the zone shown (zone.js): the tick increments uPlot chooses
// from, the label of each tick, and the room a label needs. uPlot takes the
// finest increment whose ticks are at least `space` pixels apart; `space` is
// the widest label the axis can draw plus a gap, so no two labels overlap
// whatever the increment. Every label line is at most that wide: a time
// (HH:MM), a day (MM-DD), a month's name or a year.

import { partsIn } from './zone.js'

const MIN = 60_000
const HOUR = 60 * MIN
const DAY = 24 * HOUR
const MONTH = 30 * DAY // uPlot steps increments from 30 days on by calendar months
const YEAR = 365 * DAY // … and from 365 days on by years

/** From a minute (the API's finest step) up: no ticks between two points */
export const INCRS = [
  MIN, 5 * MIN, 10 * MIN, 15 * MIN, 30 * MIN,
  HOUR, 2 * HOUR, 3 * HOUR, 4 * HOUR, 6 * HOUR, 8 * HOUR, 12 * HOUR,
  DAY, 2 * DAY, 3 * DAY, 7 * DAY, 14 * DAY,
  MONTH, 2 * MONTH, 3 * MONTH, 6 * MONTH,
  YEAR, 2 * YEAR, 5 * YEAR, 10 * YEAR, 25 * YEAR, 50 * YEAR, 100 * YEAR
]

export const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
export const AXIS_FONT = '12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif'
const GAP = 16 // px between neighbouring labels, at least

const pad = n => String(n).padStart(2, '0')

/**
 * The label of each tick (epoch ms) at increment `incr`, read in tz: below a day the
 * time, with the day (MM-DD) under it at the first tick and where the day
 * changes; from a day the day, from a month the month's name, with the year
 * under it at the first tick and where the year changes; from a year the year.
 */
export function tickLabels (splits, incr, tz = 'UTC') {
  let prev = null
  return splits.map(ms => {
    const d = partsIn(tz, ms)
    const year = String(d.year)
    const day = `${pad(d.month)}-${pad(d.day)}`
    const yearLine = prev?.year !== year ? `\n${year}` : ''
    let label
    if (incr >= YEAR) label = year
    else if (incr >= MONTH) label = MONTHS[d.month - 1] + yearLine
    else if (incr >= DAY) label = day + yearLine
    else label = `${pad(d.hour)}:${pad(d.minute)}` + (prev?.date !== year + day ? `\n${day}` : '')
    prev = { year, date: year + day }
    return label
  })
}

let space = null

/** The least distance in CSS px between two ticks: the widest label line in AXIS_FONT plus GAP */
export function labelSpace () {
  if (space !== null) return space
  const ctx = document.createElement('canvas').getContext('2d')
  ctx.font = AXIS_FONT
  const width = text => ctx.measureText(text).width
  const digit = [...'0123456789'].reduce((a, b) => (width(b) > width(a) ? b : a))
  const lines = ['dd:dd', 'dd-dd', 'dddd'].map(p => p.replaceAll('d', digit)).concat(MONTHS)
  space = Math.ceil(Math.max(...lines.map(width))) + GAP
  return space
}
