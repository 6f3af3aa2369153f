// A distribution's stats as Graphite leaves (docs/adr/0040-graphite-stat-leaves.md): a distribution `api.latency` is a branch whose
// leaves are `api.latency.count`, `.sum`, `.mean`, `.min`, `.max`, `.p50`,
// `.p90`, `.p99` and `.p999`. A glob lists those nine; any other stat
// parseStat accepts whose name is one path part (`p75`, `p9999`) is a leaf
// when its name is written out: literally or as a brace alternative
// (`p{75,95}`, what Grafana makes of a multi-value variable). `p99.9` cannot
// be one part ('.' separates them): Graphite's form is `p999`. Pure.
import { parseStat } from '../bucket/distribution-stats.js'

/** The stat leaves a glob lists under a distribution, in the order /metrics/find sorts them */
export const LISTED_STAT_LEAVES = Object.freeze(['count', 'max', 'mean', 'min', 'p50', 'p90', 'p99', 'p999', 'sum'])

/** The stat a leaf name stands for (parseStat's descriptor), or null when it stands for none */
export function leafStat (text) {
  if (text.includes('.')) return null
  const stat = parseStat(text).stat ?? null
  // `last` is a gauge's stat: a distribution has no such leaf
  return stat?.kind === 'last' ? null : stat
}

/**
 * The stat leaves a glob part (one matcher of glob.js globParts) picks under a
 * distribution: a literal part when it names a stat; otherwise the nine
 * listed and the part's brace alternatives that name one, each kept only if
 * the part matches it.
 */
export function statLeaves (match) {
  if (match.literal !== undefined) return leafStat(match.literal) ? [match.literal] : []
  const candidates = new Set(LISTED_STAT_LEAVES)
  for (const text of match.alternatives ?? []) if (leafStat(text)) candidates.add(text)
  return [...candidates].filter(text => match(text))
}
