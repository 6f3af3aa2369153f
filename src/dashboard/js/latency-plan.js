// What the latency panel asks for: which selected distribution it shows,
// the percentiles, and the step: the series chart's, but never finer than
// the quarter-hour, since minutes keep no histogram (the API refuses a
// percentile at step=minute). Pure.
import { STEPS } from './step-fit.js'

/** The stats the panel draws, one line each, and their colours (light to dark: the higher percentile the stronger) */
export const PERCENTILES = ['p50', 'p90', 'p99']
export const PERCENTILE_COLORS = ['#0891b2', '#d97706', '#dc2626']

/** The finest step the API reads a percentile at */
export const FINEST_PERCENTILE_STEP = 'quarter-hour'

const finer = (a, b) => STEPS.indexOf(a) < STEPS.indexOf(b)

/** The step the panel asks for when the series chart is at `seriesStep` */
export function latencyStep (seriesStep) {
  if (!STEPS.includes(seriesStep)) throw new Error(`unknown step ${seriesStep}`)
  return finer(seriesStep, FINEST_PERCENTILE_STEP) ? FINEST_PERCENTILE_STEP : seriesStep
}

/**
 * What the panel says about its step when it is not the series chart's
 * (`step` the one its answers are at), or '' when they are the same
 */
export function latencyNote (seriesStep, step) {
  if (step === seriesStep) return ''
  const why = finer(seriesStep, FINEST_PERCENTILE_STEP) ? ': minutes keep no percentiles' : ''
  return `${step} points, coarser than the series chart's ${seriesStep}${why}`
}

/** The distribution the panel shows: `current` while it is among `distributions`, else the first of them, or null */
export function latencyMetric (distributions, current) {
  return distributions.includes(current) ? current : distributions[0] ?? null
}
