// The counts of many SLO selectors at once, for the summaries of a scrape or
// a listing (docs/adr/0074-slo-summaries-read-together.md): each counter
// selector's series found (the name, or its series the tag filters match),
// then all of them read through reader.counterTotalsOfReads — a series
// planned once per ranges, each document read once for all the selectors, in
// a few requests. A distribution's selector (a latency SLI) is read on its
// own through countsOf, `concurrency` at a time, a database error stopping
// those not begun. Exact as each selector's own read: the same plans over
// the same documents.
import { isDatabaseError } from '../errors.js'
import { settleLimited } from './settle-limited.js'

/**
 * reader, taggedReads: the app's; judge(selector) → null (a name never
 * written) | { counted } (a distribution's values, else a counter's events),
 * a 400 for another kind; countsOf(selector, ranges) → counts (slo-service.js)
 */
export function createSummaryCounts ({ reader, taggedReads, judge, countsOf }) {
  /** The series a counter selector sums → { metrics } | { reason } */
  const seriesOf = ({ metric, filters }, ranges) => (filters.length === 0
    ? { metrics: [metric] }
    : taggedReads.seriesMatching(metric, ranges, { filters }).then(metrics => ({ metrics }), reason => ({ reason })))

  /**
   * requests: [{ selector, ranges }], without repeats → [{ status: 'fulfilled',
   * value: { values, documents, ids? (the documents', for counting each once), estimated, accuracy? } }
   * | { status: 'rejected', reason (null: not read, after a database error) }], in their order
   */
  return async function countsTogether (requests, { concurrency }) {
    const judged = await Promise.all(requests.map(({ selector }) => Promise.resolve().then(() => judge(selector)).then(kind => ({ kind }), reason => ({ reason }))))
    const out = requests.map(() => null)
    const counters = []
    const alone = []
    judged.forEach(({ kind, reason }, i) => {
      if (reason !== undefined) out[i] = { status: 'rejected', reason }
      else if (kind === null) out[i] = { status: 'fulfilled', value: { values: requests[i].ranges.map(() => 0), documents: 0, ids: [], estimated: null } }
      else (kind.counted ? alone : counters).push(i)
    })

    const found = await Promise.all(counters.map(i => seriesOf(requests[i].selector, requests[i].ranges)))
    const reads = []
    found.forEach(({ metrics, reason }, j) => {
      if (reason !== undefined) out[counters[j]] = { status: 'rejected', reason }
      else reads.push({ i: counters[j], metrics, ranges: requests[counters[j]].ranges })
    })
    let failed = null
    try {
      const answers = await reader.counterTotalsOfReads(reads)
      answers.forEach((a, j) => { out[reads[j].i] = a.error ? { status: 'rejected', reason: a.error } : { status: 'fulfilled', value: { ...a, estimated: null } } })
    } catch (err) {
      failed = err
      for (const { i } of reads) out[i] = { status: 'rejected', reason: err }
    }

    // a distribution's selectors, unless the database already failed
    const outcomes = isDatabaseError(failed)
      ? alone.map(() => ({ status: 'skipped' }))
      : await settleLimited(alone, concurrency, i => countsOf(requests[i].selector, requests[i].ranges), { stopsAll: isDatabaseError })
    outcomes.forEach((o, j) => { out[alone[j]] = o.status === 'skipped' ? { status: 'rejected', reason: null } : o })
    return out
  }
}
