// When each declared threshold of a distribution began
// (docs/kinds/distribution.md#thresholds): its counts hold every event from
// MAX_FUTURE_MS after the first whole minute after an instance first ran with its rule, and a
// read is exact only from then on. One record per rule's glob and threshold
// in the `thresholds` collection, written once ($setOnInsert) as a rollup's
// is (rollup-records.js); a rule no longer configured is forgotten.
import { thresholdId } from '../bucket/distribution-thresholds.js'
import { recordDeclared } from './rollup-records.js'

/**
 * Records the rules' thresholds not recorded yet and forgets the others → sinceOf(match, t) → epoch ms, or
 * undefined. leadMs: MAX_FUTURE_MS, as a value stored before (uncounted) may be dated up to that far ahead
 */
export async function recordThresholds (collection, rules, now, leadMs = 0) {
  const sinceById = await recordDeclared(collection, rules.flatMap(r => r.thresholds.map(t => thresholdId(r.match, t))), now, leadMs)
  return (match, t) => sinceById.get(thresholdId(match, t))
}
