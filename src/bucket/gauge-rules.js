// The rules a gauge's events meet beyond every event's (event-rules.js),
// whatever door they came through. Pure. A gauge event is a level
// { metric, value, time, kind: 'gauge' }; a door that merged several levels
// of one minute (the StatsD doors) adds their summary { count, sum, min, max },
// value being the last of them, at `time`.
import { isEventValue } from './event-rules.js'
import { DISTRIBUTION_KIND, GAUGE_KIND } from './metric-kinds.js'

/** Why a summary cannot be a gauge's merge of values with last value `value` (a message), or null */
function summaryProblem (summary, value) {
  if (typeof summary !== 'object' || summary === null) return 'must be { count, sum, min, max }'
  const { count, sum, min, max } = summary
  if (!Number.isSafeInteger(count) || count < 1) return 'count must be an integer ≥ 1'
  if (!isEventValue(min) || !isEventValue(max)) return 'min and max must be values an event may carry'
  if (!(min <= value && value <= max)) return 'must have min ≤ value ≤ max'
  if (typeof sum !== 'number' || !Number.isFinite(sum)) return 'sum must be a finite number'
  return null
}

/** events as findInvalidEvent takes them → null, or the first bad summary: { index, field: 'summary', message } */
export function findInvalidGaugeEvent (events) {
  for (let i = 0; i < events.length; i++) {
    const { kind, summary, value } = events[i]
    if (summary === undefined) continue
    if (kind === DISTRIBUTION_KIND) continue // its own summary: distribution-rules.js
    if (kind !== GAUGE_KIND) return { index: i, field: 'summary', message: 'only a gauge\'s or a distribution\'s values are summarised' }
    const problem = summaryProblem(summary, value)
    if (problem) return { index: i, field: 'summary', message: problem }
  }
  return null
}
