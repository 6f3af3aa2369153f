// A kind's stats as Graphite leaves (docs/graphite.md#distributions-and-gauges-stat-leaves): a
// metric whose kind has stat leaves (its descriptor's graphite.statLeaves,
// kinds/*.js) is a branch of them — a distribution `api.latency` of
// `api.latency.count`, `.sum`, `.mean`, `.min`, `.max`, `.p50`, `.p90`, `.p99`,
// `.p999`; a gauge `queue.depth` of `.last`, `.min`, `.max`, `.mean`,
// `.count`, `.sum` (and a leaf itself, its `last`). A glob lists those; any
// other stat the kind answers whose name is one path part (`p75`, `p9999`)
// is a leaf when its name is written out: literally or as a brace
// alternative (`p{75,95}`, what Grafana makes of a multi-value variable).
// `p99.9` cannot be one part ('.' separates them): Graphite's form is `p999`. Pure.
import { parseStat } from '../bucket/distribution-stats.js'

/** The stat a leaf name stands for under a metric of kind `descriptor` (parseStat's descriptor), or null when it stands for none */
export function leafStat (text, descriptor) {
  if (text.includes('.') || !descriptor.graphite.statLeaves) return null
  const stat = parseStat(text).stat ?? null
  if (stat === null) return null
  if (stat.kind === 'percentile') return descriptor.stats.percentiles ? stat : null
  return descriptor.stats.names.includes(stat.kind) ? stat : null
}

/**
 * The stat leaves a glob part (one matcher of glob.js globParts) picks under a
 * metric of kind `descriptor`: a literal part when it names a stat; otherwise
 * those the kind lists and the part's brace alternatives that name one, each
 * kept only if the part matches it.
 */
export function statLeaves (match, descriptor) {
  if (match.literal !== undefined) return leafStat(match.literal, descriptor) ? [match.literal] : []
  const candidates = new Set(descriptor.graphite.statLeaves)
  for (const text of match.alternatives ?? []) if (leafStat(text, descriptor)) candidates.add(text)
  return [...candidates].filter(text => match(text))
}
