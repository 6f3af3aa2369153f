// The StatsD line format, pure: `name:value|type[|@rate][|#tags]`, several
// values packed on one line (`name:1|c:2|c`); DogStatsD's fields after the
// type come in any order (`|#tags|@rate` as well). Names are sanitised the way the
// statsd daemon sanitises them; tags — DogStatsD's `|#k:v,k2` and Graphite's
// `name;k=v` — make the canonical series name (src/tags/series-name.js,
// docs/tags.md#doors); what cannot be kept is a problem with a reason
// (docs/statsd.md). No I/O, no clock: the listeners and the HTTP route
// decide what a problem costs (a counted drop, or a 400).
import { MAX_ABS_VALUE, isEventValue, isMetricName } from '../bucket/event-rules.js'
import { distribution } from '../kinds/distribution.js'
import { KINDS } from '../kinds/index.js'
import { checkTags, formatSeriesName } from '../tags/series-name.js'

/** Why a value was not kept (the `reason` label of statbucket_statsd_dropped_total) */
export const DROP_REASONS = Object.freeze([
  'malformed', // no `:value|type`
  'bad_value', // not a finite number, |value| (a counter's value / rate, a gauge's level or delta) > 1e15, or a negative `ms`
  'bad_sample_rate', // `@rate` that is not a number > 0, or below 1e-15 (a weight 1/rate > 1e15); for a gauge, not @ and a number
  'set', // `s`: distinct values, not a count
  'unknown_type',
  'invalid_name', // empty, too long, or not starting with a letter or digit once sanitised
  'bad_tags' // tags (`|#…` or `;k=v` in the name) that break the tag rules: the line's values are not kept
])

// timers, histograms and distributions: each value one observation of a distribution
// the types each kind is written by (kinds/*.js statsdTypes): a distribution's values, and every type kept
const DISTRIBUTION_TYPES = new Set(distribution.statsdTypes)
const KEPT_TYPES = KINDS.flatMap(k => k.statsdTypes)
const keptTypes = `${KEPT_TYPES.slice(0, -1).join(', ')} and ${KEPT_TYPES.at(-1)}`

/**
 * As the statsd daemon does (key_sanitize): whitespace runs → `_`, `/` → `-`,
 * then every character outside [A-Za-z0-9_.-] removed. The name's Graphite
 * tags (after its first `;`) are split off first (parseLine) and kept as sent.
 */
export function sanitizeName (raw) {
  return raw.replace(/\s+/g, '_').replace(/\//g, '-').replace(/[^A-Za-z0-9_.-]/g, '')
}

/** The daemon's number test (non-empty, Number() not NaN), and finite */
function parseNumber (text) {
  if (text.trim() === '') return null
  const n = Number(text)
  return Number.isFinite(n) ? n : null
}

/**
 * `@rate` → the rate, or null. The value stands for 1/rate values (its weight);
 * a weight beyond MAX_ABS_VALUE (a rate below 1e-15, or 5e-324, whose
 * 1/rate is Infinity) is no sample rate any client means.
 */
function parseRate (field) {
  if (field === undefined) return 1
  if (field[0] !== '@') return null
  const rate = parseNumber(field.slice(1))
  return rate !== null && rate > 0 && isEventValue(1 / rate) ? rate : null
}

const problem = (reason, message) => ({ reason, message })
/** A value given a rate twice (before and after its tags, or among DogStatsD's fields): which one the client meant is not known */
const twoRates = (a, b) => problem('bad_sample_rate', `two sample rates ("${a}" and "${b}"): send one`)

/**
 * A gauge's value `level|g[|@rate]` of `name` → { sample } or { problem }, as
 * the statsd daemon reads it: a value written with a sign (`+3`, `-2`) is a
 * delta to the gauge's current level, { metric, value, kind: 'gauge', delta:
 * true } (the door applies it: gauge-levels.js); without one it is the level,
 * { metric, value, kind: 'gauge' }. −0 is 0. A sample rate is ignored, as the
 * daemon ignores it for gauges, but must still be `@` and a number.
 */
function parseGauge (name, text, rateField) {
  if (rateField !== undefined && (rateField[0] !== '@' || parseNumber(rateField.slice(1)) === null)) {
    return { problem: problem('bad_sample_rate', `sample rate "${rateField}" is not @ and a number (a gauge ignores it, as the daemon does)`) }
  }
  const value = parseNumber(text)
  if (value === null) return { problem: problem('bad_value', `value "${text}" is not a finite number`) }
  const delta = text[0] === '+' || text[0] === '-'
  if (!isEventValue(value)) return { problem: problem('bad_value', `gauge ${delta ? 'delta' : 'level'} ${text} exceeds ${MAX_ABS_VALUE}`) }
  const sample = { metric: name, value: value === 0 ? 0 : value, kind: 'gauge' }
  if (delta) sample.delta = true
  return { sample }
}

/**
 * One packed value `value|type[|@rate]` of `name` → { sample } or { problem }.
 * A counter (`c`) adds value/rate: { metric, value }. A timer, histogram or
 * distribution value (`ms`, `h`, `d`) is one observation of a distribution
 * that stands for 1/rate observations: { metric, value, kind: 'distribution',
 * weight } (the value is kept as sent; −0 as 0). A gauge (`g`): parseGauge.
 */
function parseValue (name, packed, trailingRate) {
  const fields = packed.split('|', 3) // the value, the type and the rate: a line of 2 MiB of | is not split 2 million times
  if (fields.length < 2) return { problem: problem('malformed', `"${packed}" has no |type`) }
  // a rate after the tags (DogStatsD's fields in any order) is the value's when it has none of its own
  if (trailingRate !== undefined) {
    if (fields[2] !== undefined) return { problem: twoRates(fields[2], trailingRate) }
    fields[2] = trailingRate
  }
  const type = fields[1].trim()
  if (type === 'g') return parseGauge(name, fields[0], fields[2])
  if (type === 's') return { problem: problem('set', 'sets (|s) count distinct values: not kept') }
  if (type !== 'c' && !DISTRIBUTION_TYPES.has(type)) return { problem: problem('unknown_type', `unknown type "${type}" (${keptTypes} are kept)`) }
  // fields past the rate are ignored, as the daemon ignores them
  const rate = parseRate(fields[2])
  if (rate === null) return { problem: problem('bad_sample_rate', `sample rate "${fields[2]}" is not @ and a number > 0 whose 1/rate is at most ${MAX_ABS_VALUE}`) }
  const value = parseNumber(fields[0])
  if (value === null) return { problem: problem('bad_value', `value "${fields[0]}" is not a finite number`) }
  if (type === 'c') {
    const scaled = value / rate
    if (!isEventValue(scaled)) return { problem: problem('bad_value', `value ${fields[0]} at rate ${rate} exceeds ${MAX_ABS_VALUE}`) }
    return { sample: { metric: name, value: scaled } }
  }
  // the statsd daemon refuses a negative timer; DogStatsD's h and d take any number (a histogram has a negative side)
  if (type === 'ms' && value < 0) return { problem: problem('bad_value', `timer value ${fields[0]} is negative`) }
  if (!isEventValue(value)) return { problem: problem('bad_value', `value ${fields[0]} exceeds ${MAX_ABS_VALUE}`) }
  // −0 is 0 (one event per value, and no −0 as a stored min or max)
  return { sample: { metric: name, value: value === 0 ? 0 : value, kind: 'distribution', weight: 1 / rate } }
}

/**
 * DogStatsD tags (`k:v,k2:v2`, a bare `k` is k=true, a value keeps every
 * `:` after the first; the field without its `|#`) → [[key, value]]
 */
function dogTags (text) {
  const pairs = []
  if (text === '') return pairs
  // a tag list longer than the rules allow is refused before it is split: 16 tags of 64 + 128 characters
  if (text.length > 16 * 200) return null
  for (const tag of text.split(',')) {
    const at = tag.indexOf(':')
    pairs.push(at === -1 ? [tag, 'true'] : [tag.slice(0, at), tag.slice(at + 1)])
  }
  return pairs
}

// DogStatsD's fields after the tags: at most this many (its protocol has five kinds); a line with more is malformed
const MAX_FIELDS_AFTER_TAGS = 8

/**
 * What follows a line's `|#`: its tags up to the next `|`, then DogStatsD's
 * other fields in any order → { tags, rate } (rate: a `@…` field, or
 * undefined) or { problem }. Tags or a rate given twice are refused; the
 * other fields (`|c:` container, `|e:` origin, `|T` timestamp) are ignored:
 * a value counts at its minute of receipt (docs/statsd.md#lines).
 */
function fieldsAfterTags (text) {
  const fields = text.split('|', MAX_FIELDS_AFTER_TAGS + 2)
  if (fields.length > MAX_FIELDS_AFTER_TAGS + 1) return { problem: problem('malformed', `more than ${MAX_FIELDS_AFTER_TAGS} fields after the tags`) }
  let rate
  for (let i = 1; i < fields.length; i++) {
    const field = fields[i]
    if (field[0] === '#') return { problem: problem('bad_tags', 'two tag fields (|#…): send the tags in one') }
    if (field[0] !== '@') continue
    if (rate !== undefined) return { problem: twoRates(rate, field) }
    rate = field
  }
  return { tags: fields[0], rate }
}

// the fields DogStatsD writes after a value's type (and rate) that statbucket ignores: its container id, its
// origin, its cardinality, a time (docs/statsd.md#lines); a rate comes as `@`, tags as `#`
const IGNORED_FIELD = /^(?:c:|e:|card:|T\d)/
const IGNORED_FIELD_NAMES = new Set(['c', 'e', 'card'])

/**
 * A line's values (split at each `:` after its name: `pieces`) and DogStatsD's
 * fields after the type, before any `|#`: the first value's field after its
 * type (and rate) that is one of IGNORED_FIELD's starts them, and everything
 * after it is theirs (a container id's `:` makes no value) →
 * { values, rate } (rate: a `@…` among those fields, or undefined) or
 * { values, problem } (a rate given twice). Without such a field, the values
 * as they are (`n:1|c:2|c`, `n:1|c|@0.5`).
 */
function valuesAndFields (pieces) {
  for (let i = 0; i < pieces.length; i++) {
    // the common value, `1|c`: one | and no field after its type, nothing split
    const bar = pieces[i].indexOf('|')
    if (bar === -1 || pieces[i].indexOf('|', bar + 1) === -1) continue
    const fields = pieces[i].split('|', 4)
    const at = fields[2]?.[0] === '@' ? 3 : 2
    const field = fields[at]
    // a field of its own, or one whose `:` the split took (`c:abc` → `c`, then `abc`)
    if (field === undefined || !(IGNORED_FIELD.test(field) || (IGNORED_FIELD_NAMES.has(field) && i < pieces.length - 1))) continue
    const value = fields.slice(0, at).join('|')
    const rest = [pieces[i].slice(value.length + 1), ...pieces.slice(i + 1)].join(':')
    const found = fieldsAfterTags(`|${rest}`)
    if (found.problem) return { values: [...pieces.slice(0, i), value], problem: found.problem }
    return { values: [...pieces.slice(0, i), value], rate: found.rate }
  }
  return { values: pieces }
}

/**
 * The series a line's raw name and tag field name: the sanitised name and
 * its tags in canonical form → { name, series } or { problem }
 */
function seriesOfLine (rawName, tagField) {
  const semicolon = rawName.indexOf(';')
  const name = sanitizeName(semicolon === -1 ? rawName : rawName.slice(0, semicolon))
  if (semicolon === -1 && tagField === undefined) return { name, series: name }
  const pairs = []
  if (semicolon !== -1) {
    const segments = rawName.slice(semicolon + 1).split(';', 18)
    for (const segment of segments) {
      const at = segment.indexOf('=')
      if (at <= 0) return { name, problem: problem('bad_tags', `${JSON.stringify(segment.slice(0, 60))} is not a tag: write key=value after each ; of the name`) }
      pairs.push([segment.slice(0, at), segment.slice(at + 1)])
    }
  }
  if (tagField !== undefined) {
    const dog = dogTags(tagField)
    if (dog === null) return { name, problem: problem('bad_tags', 'the tags (|#…) are longer than 16 tags can be') }
    pairs.push(...dog)
  }
  const { tags, problem: broken } = checkTags(pairs)
  if (broken) return { name, problem: problem('bad_tags', broken) }
  return { name, series: formatSeriesName(name, tags) }
}

/**
 * One line (without its newline) →
 *   { samples, problems: [{ reason, message }], values, kept, name, renamedFrom }
 * samples: one per value kept, { metric, value } (a counter),
 * { metric, value, kind: 'distribution', weight } (ms, h, d) or
 * { metric, value, kind: 'gauge', delta? } (g: a level, or with delta a change to it);
 * values: how many values the line carried (a packed line carries several);
 * kept: how many of them gave samples (samples.length); name: the sanitised name; renamedFrom:
 * the name as sent when sanitising changed it and a value was kept, else null.
 * A sample's metric is its series name: the name, and its tags in canonical order.
 * An empty line carries nothing and is no problem.
 */
export function parseLine (line) {
  const text = line.endsWith('\r') ? line.slice(0, -1) : line
  const samples = []
  const problems = []
  if (text === '') return { samples, problems, values: 0, kept: 0 }
  const tagAt = text.indexOf('|#')
  const body = tagAt === -1 ? text : text.slice(0, tagAt)
  const parts = body.split(':')
  if (parts.length < 2) return { samples, problems: [problem('malformed', 'no ":value|type" after the name')], values: 1, kept: 0 }
  // DogStatsD's fields before the tags (or without any: `|c:` a container, `|T` a time) end the values
  const before = valuesAndFields(parts.slice(1))
  const { values } = before
  const after = tagAt === -1 ? null : fieldsAfterTags(text.slice(tagAt + 2))
  const twice = before.rate !== undefined && after?.rate !== undefined ? twoRates(before.rate, after.rate) : null
  const lineProblem = before.problem ?? after?.problem ?? twice
  if (lineProblem) return { samples, problems: values.map(() => lineProblem), values: values.length, kept: 0, name: sanitizeName(parts[0].split(';', 1)[0]) }
  const { name, series, problem: tagProblem } = seriesOfLine(parts[0], after?.tags)
  if (tagProblem) return { samples, problems: values.map(() => tagProblem), values: values.length, kept: 0, name }
  const rate = before.rate ?? after?.rate
  let kept = 0
  for (const packed of values) {
    const result = parseValue(series, packed, rate)
    if (result.problem) { problems.push(result.problem); continue }
    if (!isMetricName(name)) {
      problems.push(problem('invalid_name', `name ${JSON.stringify(name)} (sanitised from ${JSON.stringify(parts[0])}) is not a metric name: letters, digits, _ . -; at most 200 characters; starting with a letter or digit`))
      continue
    }
    samples.push(result.sample)
    kept++
  }
  // the name as sent, when sanitising changed it (POST /v1/statsd says so)
  const sent = parts[0].split(';', 1)[0]
  const renamedFrom = kept > 0 && name !== sent ? sent : null
  return { samples, problems, values: values.length, kept, renamedFrom, name }
}
