// What the latency panel asks for: which selected distribution it shows,
// the percentiles, and what it says of its step. Its step is the series
// chart's, minutes included (a minute's percentiles are read from its own
// histogram); where the API refuses that step for the distribution (before
// its minute horizon, over MAX_POINTS) the panel does as the series chart
// does (series-read.js): under `auto` it asks the coarser step the refusal
// allows, under a step picked by hand it shows the refusal. Pure.
import { STEPS } from './step-fit.js'

/** The stats the panel draws, one line each, and their colours (light to dark: the higher percentile the stronger) */
export const PERCENTILES = ['p50', 'p90', 'p99']
export const PERCENTILE_COLORS = ['#0891b2', '#d97706', '#dc2626']

/**
 * What the panel says about its step when it is not the series chart's
 * (`step` the one its answers are at, after the API refused the series
 * chart's), or '' when they are the same
 */
export function latencyNote (seriesStep, step) {
  for (const s of [seriesStep, step]) if (!STEPS.includes(s)) throw new Error(`unknown step ${s}`)
  return step === seriesStep ? '' : `${step} points, coarser than the series chart's ${seriesStep}`
}

/** What a point of the panel is: a percentile of the values of one step ('minute percentiles') */
export const latencyAxisLabel = step => `${step} percentiles`

/** The distribution the panel shows: `current` while it is among `distributions`, else the first of them, or null */
export function latencyMetric (distributions, current) {
  return distributions.includes(current) ? current : distributions[0] ?? null
}
