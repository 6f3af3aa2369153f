// A series is a metric name plus tags (docs/tags.md). Its canonical name is
// Graphite 1.1's: the name, then `;key=value` for each tag, keys sorted
// (`web.requests;route=/login;status=500`); an untagged name is its own
// series. The one home of the tag rules every door applies
// (docs/adr/0059-tags-series-names.md). Pure.
import { isMetricName, nameOfSeries } from '../bucket/event-rules.js'

export { nameOfSeries }

export const MAX_TAGS = 16
export const MAX_KEY_LENGTH = 64
export const MAX_VALUE_LENGTH = 128
const KEY_RE = /^[A-Za-z0-9_.-]{1,64}$/
// `name` is Graphite's tag of the metric name; the others would be an object's prototype where a tag map is an object
const RESERVED_KEYS = new Set(['name', '__proto__', 'constructor', 'prototype'])
// control characters (C0, DEL, C1)
const CONTROL_RE = /[\u0000-\u001f\u007f-\u009f]/ // eslint-disable-line no-control-regex
// the longest canonical series name: a name of 200, and 16 tags of the longest key and value (4 bytes a character)
export const MAX_SERIES_NAME_LENGTH = 200 + MAX_TAGS * (2 + MAX_KEY_LENGTH + MAX_VALUE_LENGTH * 2)

export const KEY_RULE = `a tag key is 1–${MAX_KEY_LENGTH} of A-Z a-z 0-9 _ . - and not name, __proto__, constructor or prototype`
export const VALUE_RULE = `a tag value is 1–${MAX_VALUE_LENGTH} printable characters without ; or =, not starting with ~`

const shown = (text) => JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text)

/** The problem of one tag key (a message naming the rule), or null */
export function keyProblem (key) {
  if (typeof key !== 'string' || !KEY_RE.test(key)) return `tag key ${shown(String(key))} is not a tag key: ${KEY_RULE}`
  if (RESERVED_KEYS.has(key)) return `tag key "${key}" is reserved: ${KEY_RULE}`
  return null
}

/** The problem of one tag value of `key` (a message naming the rule), or null */
export function valueProblem (key, value) {
  if (typeof value !== 'string') return `tag "${key}": the value must be a string; ${VALUE_RULE}`
  if (value.length === 0) return `tag "${key}" has an empty value; ${VALUE_RULE}`
  // 128 characters (code points) take at most 256 UTF-16 units: a longer string is refused before it is walked
  if (value.length > MAX_VALUE_LENGTH && (value.length > MAX_VALUE_LENGTH * 2 || [...value].length > MAX_VALUE_LENGTH)) return `tag "${key}": the value ${shown(value)} is longer than ${MAX_VALUE_LENGTH} characters; ${VALUE_RULE}`
  if (!value.isWellFormed()) return `tag "${key}": the value holds a lone surrogate (not text); ${VALUE_RULE}`
  if (value.includes(';') || value.includes('=') || value[0] === '~' || CONTROL_RE.test(value)) return `tag "${key}": the value ${shown(value)} breaks the rule: ${VALUE_RULE}`
  return null
}

const byKey = (a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)

/** A name and its tags ([[key, value]], any order, keys distinct and valid) → the canonical series name */
export function formatSeriesName (name, tags) {
  if (tags.length === 0) return name
  let text = name
  for (const [key, value] of [...tags].sort(byKey)) text += `;${key}=${value}`
  return text
}

/**
 * Tags from pairs ([[key, value]]) → { tags: [[key, value]] sorted } or
 * { problem }: every key and value by the rules, no key twice, at most MAX_TAGS.
 */
export function checkTags (pairs) {
  if (pairs.length > MAX_TAGS) return { problem: `${pairs.length} tags: a series has at most ${MAX_TAGS}` }
  const seen = new Set()
  for (const [key, value] of pairs) {
    const problem = keyProblem(key) ?? valueProblem(key, value)
    if (problem) return { problem }
    if (seen.has(key)) return { problem: `tag "${key}" is given twice: a series has one value per key` }
    seen.add(key)
  }
  return { tags: [...pairs].sort(byKey) }
}

/** Whether a series name carries tags */
export const isTagged = (series) => series.indexOf(';') !== -1

/**
 * A series name as a client may write it (`name;k=v;…`, tags in any order)
 * → { name, tags: [[key, value]] sorted, series: the canonical name } or { problem }
 */
export function parseSeriesName (text) {
  if (typeof text !== 'string') return { problem: 'a series name must be a string' }
  if (text.length > MAX_SERIES_NAME_LENGTH) return { problem: `a series name is at most ${MAX_SERIES_NAME_LENGTH} characters (a name and ${MAX_TAGS} tags)` }
  const segments = text.split(';', MAX_TAGS + 2)
  const name = segments[0]
  if (!isMetricName(name)) return { problem: `${shown(name)} is not a metric name (letters, digits, _ . : -; at most 200 characters; starting with a letter or digit)` }
  if (segments.length > MAX_TAGS + 1) return { problem: `more than ${MAX_TAGS} tags: a series has at most ${MAX_TAGS}` }
  const pairs = []
  for (let i = 1; i < segments.length; i++) {
    const at = segments[i].indexOf('=')
    if (at <= 0) return { problem: `${shown(segments[i])} is not a tag: write key=value after each ;` }
    pairs.push([segments[i].slice(0, at), segments[i].slice(at + 1)])
  }
  const { tags, problem } = checkTags(pairs)
  if (problem) return { problem }
  return { name, tags, series: formatSeriesName(name, tags) }
}

/**
 * A JSON event's metric (a name, or a series name) and its `tags` object
 * (or undefined) → { series } (canonical) or { problem }
 */
export function seriesOfEvent (metric, tagObject) {
  if (tagObject === undefined && !isTagged(metric)) return { series: metric }
  const parsed = parseSeriesName(metric)
  if (parsed.problem) return parsed
  if (tagObject === undefined) return { series: parsed.series }
  const extra = Object.entries(tagObject)
  const { tags, problem } = checkTags([...parsed.tags, ...extra])
  if (problem) return { problem }
  return { series: formatSeriesName(parsed.name, tags) }
}

/** The tags of a canonical series name as [[key, value]] (sorted), [] for a name */
export function tagsOfSeries (series) {
  const segments = series.split(';')
  const tags = new Array(segments.length - 1)
  for (let i = 1; i < segments.length; i++) {
    const at = segments[i].indexOf('=')
    tags[i - 1] = [segments[i].slice(0, at), segments[i].slice(at + 1)]
  }
  return tags
}

/**
 * events: [{ metric }] as the doors give them → null, or the first whose
 * series name is not canonical by the rules: { index, field: 'metric', message }
 * (a door builds canonical names; this holds every door to it)
 */
export function findInvalidSeries (events) {
  for (let i = 0; i < events.length; i++) {
    const { metric } = events[i]
    if (!isTagged(metric)) continue
    const message = seriesProblem(metric)
    if (message !== null) return { index: i, field: 'metric', message }
  }
  return null
}

/** Why a tagged series name is not canonical by the rules (a message), or null */
export function seriesProblem (metric) {
  const parsed = parseSeriesName(metric)
  if (parsed.problem) return parsed.problem
  if (parsed.series !== metric) return `${shown(metric)} is not in canonical order: ${shown(parsed.series)}`
  return null
}
