// Reading series for one chart: every series at the same step, since they
// share the x axis — the selected metrics' default series for the series
// chart, or stats of one distribution for the latency panel. With `coarsen`
// (the `auto` setting) a step the API refuses for the window — finer than
// the detail kept, or over MAX_POINTS — is replaced by the coarser step the
// refusal allows (step-fit.js), for every series, until none refuses.
import { getSeries } from './api.js'
import { STEPS, stepAfterRefusal } from './step-fit.js'

const coarser = (a, b) => (b !== null && (a === null || STEPS.indexOf(b) > STEPS.indexOf(a)) ? b : a)

/**
 * reads: [{ metric, stat?, params? }] (no stat: the metric's default
 * series; params: more of its own, as tag and by);
 * query: every parameter but step and stat ({ from, to, … }); step: one of
 * the API's steps.
 * → { step, results: [{ metric, stat?, answer } | { metric, stat?, error }] },
 *   step being the step the answers are at
 */
async function readAtOneStep (reads, { query, step, coarsen }) {
  let asked = step
  for (;;) {
    const settled = await Promise.allSettled(reads.map(({ metric, stat, params }) => getSeries(metric, { ...query, ...params, stat, step: asked })))
    const results = settled.map((r, i) => (r.status === 'fulfilled' ? { ...reads[i], answer: r.value } : { ...reads[i], error: r.reason }))
    const retry = coarsen ? results.filter(r => r.error).map(r => stepAfterRefusal(asked, r.error)).reduce(coarser, null) : null
    if (retry === null) return { step: asked, results }
    asked = retry // strictly coarser than before: the loop ends by month at the latest
  }
}

/** The default series of each of `metrics` (names), with paramsOf(metric)'s parameters; options and answer as readAtOneStep's */
export function readSeries (metrics, options, paramsOf = () => ({})) {
  return readAtOneStep(metrics.map(metric => ({ metric, params: paramsOf(metric) })), options)
}

/** The series of each of `stats` (e.g. p50, p90, p99) of the distribution `metric`; options and answer as readAtOneStep's */
export function readStats (metric, stats, options) {
  return readAtOneStep(stats.map(stat => ({ metric, stat })), options)
}
