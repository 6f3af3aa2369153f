// The body of POST /v1/statsd, pure: StatsD lines parsed and merged as the
// listeners merge them (line-parser.js, aggregator.js), except that a line that
// cannot be kept rejects the whole request, and the names sanitising changed
// are reported back (the listeners cannot answer).
import { BadRequestError, TooLargeError, withDetails } from '../errors.js'
import { createAggregator, ingestEvents } from './aggregator.js'
import { losesValue, parseLine } from './line-parser.js'

const MAX_QUOTED_LINE = 200
// renamed names listed in an answer at most (the count is always given)
export const MAX_RENAMED_LISTED = 20

const quote = line => line.length > MAX_QUOTED_LINE ? `${line.slice(0, MAX_QUOTED_LINE)}…` : line

/**
 * text: the body; now: receipt time (epoch ms); maxValues: MAX_EVENTS_PER_REQUEST.
 * → { events (for the ingest service), values, tagged, renamed: [{ from, to }] }
 * or throws the 400 (naming the line) or 413 that answers it.
 */
export function statsdBodyEvents (text, { now, maxValues }) {
  const lines = text.split('\n')
  const sums = createAggregator()
  const renamed = new Map() // as sent → as kept
  let values = 0
  let tagged = 0
  for (let i = 0; i < lines.length; i++) {
    const result = parseLine(lines[i])
    const lost = result.problems.find(losesValue)
    if (lost) {
      const quoted = quote(lines[i])
      throw withDetails(new BadRequestError(`line ${i + 1} ${JSON.stringify(quoted)}: ${lost.message}; nothing of this request was applied`), {
        details: [{ line: i + 1, text: quoted, reason: lost.reason, message: lost.message }]
      })
    }
    if (result.problems.length) tagged++
    values += result.values
    if (values > maxValues) throw new TooLargeError(`a request holds at most MAX_EVENTS_PER_REQUEST = ${maxValues} StatsD values; split the lines over several requests`)
    if (result.kept) sums.add(result.samples, now)
    if (result.renamedFrom && renamed.size < MAX_RENAMED_LISTED) renamed.set(result.renamedFrom, result.name)
  }
  if (values === 0) throw new BadRequestError('the body holds no StatsD line (name:value|type, one per line)')
  return { events: ingestEvents(sums.take().events), values, tagged, renamed: [...renamed].map(([from, to]) => ({ from, to })) }
}
