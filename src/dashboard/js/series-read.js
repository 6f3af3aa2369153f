// Reading the series of the selected metrics for the one chart: every
// metric at the same step, since they share the x axis. With `coarsen` (the
// `auto` setting) a step the API refuses for the window — finer than the
// detail kept, or over MAX_POINTS — is replaced by the coarser step the
// refusal allows (step-fit.js), for every metric, until none refuses.
import { getSeries } from './api.js'
import { STEPS, stepAfterRefusal } from './step-fit.js'

const coarser = (a, b) => (b !== null && (a === null || STEPS.indexOf(b) > STEPS.indexOf(a)) ? b : a)

/**
 * metrics: names; query: every parameter but step ({ from, to, … });
 * step: one of the API's steps.
 * → { step, results: [{ metric, answer } | { metric, error }] }, step being
 *   the step the answers are at
 */
export async function readSeries (metrics, { query, step, coarsen }) {
  let asked = step
  for (;;) {
    const settled = await Promise.allSettled(metrics.map(metric => getSeries(metric, { ...query, step: asked })))
    const results = settled.map((r, i) => (r.status === 'fulfilled' ? { metric: metrics[i], answer: r.value } : { metric: metrics[i], error: r.reason }))
    const retry = coarsen ? results.filter(r => r.error).map(r => stepAfterRefusal(asked, r.error)).reduce(coarser, null) : null
    if (retry === null) return { step: asked, results }
    asked = retry // strictly coarser than before: the loop ends by month at the latest
  }
}
