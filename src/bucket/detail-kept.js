// Which steps a window can be read at, given the detail kept for the metric
// (docs/kinds/counter.md#retention-and-the-check): minute detail from `minuteFrom` on,
// daily documents (hours, quarter-hours, days) from `dailyFrom` on; monthly
// documents always. null means forever. Pure.
import { STEPS, countPoints } from './time.js'

/** The first time a step's detail is kept from (null: always) */
export function keptFrom (step, { minuteFrom, dailyFrom }) {
  if (step === 'minute') return maxOf(minuteFrom, dailyFrom)
  if (step === 'quarter-hour' || step === 'hour') return dailyFrom
  return null // day points past the daily horizon come from monthly.daily.D; months always
}

const maxOf = (a, b) => (a === null ? b : b === null ? a : Math.max(a, b))

/** Whether [start, …) at `step` reads only kept detail */
export const isKept = (step, start, horizons) => {
  const from = keptFrom(step, horizons)
  return from === null || start >= from
}

/** The finest step that is kept for a window starting at `start` */
export function finestKeptStep (start, horizons) {
  return STEPS.find(step => isKept(step, start, horizons))
}

/** The finest step kept for the whole window whose point count stays ≤ maxPoints, or null */
export function defaultStep (from, to, maxPoints, horizons) {
  for (const step of STEPS) {
    if (isKept(step, from, horizons) && countPoints(from, to, step) <= maxPoints) return step
  }
  return null
}
