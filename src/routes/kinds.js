// GET /v1/kinds: what each kind of metric can show, from its descriptor
// (kinds/*.js), for the dashboard and any client: its stats, default stat
// and percentiles, the reads it answers, what a point of its default series
// is and how that point consolidates over a span. One loop over KINDS.
import { KINDS } from '../kinds/index.js'
import { kindsSchema } from '../schemas/queries.js'

/** A descriptor's default stat's consolidation: its own (a counter's one) or the default stat's */
const consolidationOf = (d) => (typeof d.consolidation === 'string' ? d.consolidation : d.consolidation[d.stats.default])

/** The answer of GET /v1/kinds. Pure. */
export function kindsAnswer (kinds = KINDS) {
  return {
    kinds: kinds.map(d => ({
      name: d.name,
      stats: [...d.stats.names],
      defaultStat: d.stats.default,
      percentiles: d.stats.percentiles === true,
      reads: { total: d.reads.total, ytd: d.reads.ytd, quantiles: d.reads.quantiles },
      point: d.dashboard.point,
      consolidation: consolidationOf(d)
    }))
  }
}

export default async function kindsRoutes (app) {
  const answer = kindsAnswer()
  app.get('/v1/kinds', { schema: kindsSchema }, async () => answer)
}
