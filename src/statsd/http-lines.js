// The body of POST /v1/statsd, pure: StatsD lines parsed and merged as the
// listeners merge them (line-parser.js, aggregator.js), except that a line that
// cannot be kept rejects the whole request, and the names sanitising changed
// are reported back (the listeners cannot answer). Gauge deltas are applied in
// line order to the levels the caller looks up (levelOf), in two passes: the
// route reads the stored levels of the names whose level it does not hold
// between them (gauge-levels.js).
import { BadRequestError, TooLargeError, withDetails } from '../errors.js'
import { MAX_ABS_VALUE } from '../bucket/event-rules.js'
import { createAggregator, ingestEvents } from './aggregator.js'
import { applyDelta } from './gauge-levels.js'
import { parseLine } from './line-parser.js'

const MAX_QUOTED_LINE = 200
// renamed names listed in an answer at most (the count is always given)
export const MAX_RENAMED_LISTED = 20

const quote = line => line.length > MAX_QUOTED_LINE ? `${line.slice(0, MAX_QUOTED_LINE)}…` : line

function badLine (lines, i, reason, message) {
  const quoted = quote(lines[i])
  return withDetails(new BadRequestError(`line ${i + 1} ${JSON.stringify(quoted)}: ${message}; nothing of this request was applied`), {
    details: [{ line: i + 1, text: quoted, reason, message }]
  })
}

/**
 * The values parseLine finds in `line`, counted without parsing it: one per
 * ':' before any tags (`|#`), and a line without one is one (malformed)
 * value; an empty line (or a lone \r) none. A body is one line as far as
 * BODY_LIMIT_BYTES allows, so a line of 2 MiB of ':' is 2 million values
 * that parseLine would judge one by one (~0.5 s) before the count refused them.
 */
export function valuesIn (line) {
  if (line === '' || line === '\r') return 0
  const tagAt = line.indexOf('|#')
  const end = tagAt === -1 ? line.length : tagAt
  let colons = 0
  for (let at = line.indexOf(':'); at !== -1 && at < end; at = line.indexOf(':', at + 1)) colons++
  return Math.max(1, colons)
}

/**
 * Pass 1. text: the body; maxValues: MAX_EVENTS_PER_REQUEST (and twice as
 * many lines, counted first).
 * → { lines, parsed: [{ line: index, samples }], values, renamed: [{ from, to }],
 *     deltaNames: Set (the gauges sent a delta) }
 * or throws the 400 (naming the line) or 413 that answers it (a line's values
 * counted before it is parsed: valuesIn).
 */
export function parseStatsdBody (text, { maxValues }) {
  // lines counted before the body is split: 2 MiB of newlines is two million empty lines (~65 ms to split and walk)
  const maxLines = 2 * maxValues
  let newlines = 0
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) {
    if (++newlines >= maxLines) throw new TooLargeError(`a request holds at most ${maxLines} StatsD lines (2 × MAX_EVENTS_PER_REQUEST: a value a line and as many blank lines); split the lines over several requests`)
  }
  const lines = text.split('\n')
  const parsed = []
  const renamed = new Map() // as sent → as kept
  const deltaNames = new Set()
  let values = 0
  for (let i = 0; i < lines.length; i++) {
    // the budget before the work: a line packed with values is counted before it is parsed
    if (values + valuesIn(lines[i]) > maxValues) throw new TooLargeError(`a request holds at most MAX_EVENTS_PER_REQUEST = ${maxValues} StatsD values; split the lines over several requests`)
    const result = parseLine(lines[i])
    const [lost] = result.problems
    if (lost) throw badLine(lines, i, lost.reason, lost.message)
    values += result.values
    if (result.kept) {
      parsed.push({ line: i, samples: result.samples })
      for (const s of result.samples) if (s.delta) deltaNames.add(s.metric)
    }
    if (result.renamedFrom && renamed.size < MAX_RENAMED_LISTED) renamed.set(result.renamedFrom, result.name)
  }
  if (values === 0) throw new BadRequestError('the body holds no StatsD line (name:value|type, one per line)')
  return { lines, parsed, values, renamed: [...renamed].map(([from, to]) => ({ from, to })), deltaNames }
}

/**
 * Pass 2. body: parseStatsdBody's; now: receipt time (epoch ms); levelOf(name)
 * → the level a delta of `name` starts from (a number: the route has read the
 * stored ones); timeOf(name, time) → the time a gauge's event is given (after
 * its previous one: gauge-levels.js nextTime). → { events (for the ingest
 * service), levels: Map name → { level, time }: each gauge's level after the
 * request and its event's time }, or throws the 400 naming a delta's line
 * whose level would pass 1e15.
 */
export function bodyEvents ({ lines, parsed }, { now, levelOf, timeOf = (name, time) => time }) {
  const times = new Map()
  const sums = createAggregator({ stampGauge: (metric, time) => { const t = timeOf(metric, time); times.set(metric, t); return t } })
  const levels = new Map() // name → level: what this request sets, applied only if it is written (the route's choice)
  for (const { line, samples } of parsed) {
    const kept = samples.map(s => {
      if (s.kind !== 'gauge') return s
      if (!s.delta) { levels.set(s.metric, s.value); return s }
      const level = applyDelta(levels.get(s.metric) ?? levelOf(s.metric), s.value)
      if (level === null) throw badLine(lines, line, 'bad_value', `gauge "${s.metric}" would pass ${MAX_ABS_VALUE} with this delta (its level is ${levels.get(s.metric) ?? levelOf(s.metric)})`)
      levels.set(s.metric, level)
      return { metric: s.metric, value: level, kind: s.kind }
    })
    sums.add(kept, now)
  }
  const events = ingestEvents(sums.take().events)
  return { events, levels: new Map([...levels].map(([name, level]) => [name, { level, time: times.get(name) }])) }
}

/**
 * Both passes at once, every delta starting from levelOf (default: 0, as
 * for a gauge never seen). → { events, values, renamed, levels }
 */
export function statsdBodyEvents (text, { now, maxValues, levelOf = () => 0, timeOf }) {
  const body = parseStatsdBody(text, { maxValues })
  const { events, levels } = bodyEvents(body, { now, levelOf, timeOf })
  return { events, values: body.values, renamed: body.renamed, levels }
}
