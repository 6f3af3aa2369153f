// The step the `auto` setting asks for: the finest step whose point count
// stays within POINTS_PER_PX points per pixel of the plot's width, and the
// coarser step to ask for when the API refuses a step. Pure functions.

/** The API's steps, finest first */
export const STEPS = ['minute', 'quarter-hour', 'hour', 'day', 'month']

/** At most this many points per pixel of plot width: more could not be seen */
export const POINTS_PER_PX = 2

const STEP_MS = { minute: 60_000, 'quarter-hour': 900_000, hour: 3_600_000, day: 86_400_000 }

const floorTo = (ms, size) => ms - (((ms % size) + size) % size)
const monthIndex = ms => {
  const d = new Date(ms)
  return d.getUTCFullYear() * 12 + d.getUTCMonth()
}

/**
 * Points the API answers for [from, to) at `step`: like the API, from is
 * rounded down and to up to the step (UTC), so this counts the points of
 * the rounded window.
 */
export function countPoints (from, to, step) {
  if (step === 'month') return monthIndex(to - 1) - monthIndex(from) + 1
  const size = STEP_MS[step]
  if (!size) throw new Error(`unknown step ${step}`)
  return Math.round((floorTo(to - 1, size) + size - floorTo(from, size)) / size)
}

/** The finest step with countPoints ≤ POINTS_PER_PX × plotWidth (CSS px); 'month' when none fits */
export function fitStep ({ from, to, plotWidth }) {
  const limit = POINTS_PER_PX * plotWidth
  return STEPS.find(step => countPoints(from, to, step) <= limit) ?? 'month'
}

/** The step after `step` in STEPS, or null after 'month' */
export function coarserStep (step) {
  const i = STEPS.indexOf(step)
  if (i === -1) throw new Error(`unknown step ${step}`)
  return STEPS[i + 1] ?? null
}

/**
 * The step to ask for after the API refused `step` with `error` (an
 * ApiError: { status, message, details }), or null when the refusal is not
 * about the step. A 400 whose details name `step` says either that the step
 * is finer than the detail kept for the window ("… use step=quarter-hour or
 * coarser …") or that it makes more than MAX_POINTS points: the answer is
 * the step the message names when it is coarser still, else the next coarser.
 */
export function stepAfterRefusal (step, error) {
  if (error?.status !== 400 || !error.details?.some(d => d.path === 'step')) return null
  const next = coarserStep(step)
  if (next === null) return null
  const named = /\buse step=([a-z-]+)/.exec(error.message)?.[1]
  return STEPS.indexOf(named) > STEPS.indexOf(next) ? named : next
}
