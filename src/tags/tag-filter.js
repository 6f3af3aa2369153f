// Tag filters in Graphite's expression syntax (docs/tags.md#reads):
// `key=value`, `key!=value`, `key=~regex`, `key!=~regex`. As graphite-web
// 1.1.10's TagDB: a regex is anchored at the start of the value; a series
// without the key is matched as if its value were empty (so `status!=500`
// and `status=` match it). Regexes run on RE2 (re2js, linear time). Pure.
import { MAX_FILTER_INSTRUCTIONS, compileUserRegex } from '../graphite/regex.js'
import { KEY_RULE, keyProblem } from './series-name.js'

export const MAX_FILTERS = 16
export const MAX_FILTER_LENGTH = 512
const OPERATOR = /^([^!=~]*)(!=~|=~|!=|=)(.*)$/s

/**
 * `expression` → { key, operator, value, matches(value|undefined) → boolean } or { problem }.
 * byName: `name` filters the metric's name (Graphite's expressions); elsewhere the name is the
 * read's own (the path, an SLO's `metric`) and a `name` filter is refused, not matched as a key no series has
 */
export function parseTagFilter (expression, { byName = false } = {}) {
  if (typeof expression !== 'string' || expression.length > MAX_FILTER_LENGTH) return { problem: `a tag filter is at most ${MAX_FILTER_LENGTH} characters` }
  const m = OPERATOR.exec(expression)
  if (!m) return { problem: `${JSON.stringify(expression)} is not a tag filter: key=value, key!=value, key=~regex or key!=~regex` }
  const [, key, operator, value] = m
  if (key === 'name' && !byName) return { problem: `${JSON.stringify(expression)}: the metric's name is not a tag; name the metric itself (the path, or an SLO's metric) and filter its tags` }
  const broken = key === 'name' ? null : keyProblem(key)
  if (broken) return { problem: `${JSON.stringify(expression)}: ${broken.replace(/: .*$/, '')}: ${KEY_RULE}` }
  let test
  if (operator === '=' || operator === '!=') {
    test = (v) => (v ?? '') === value
  } else {
    let re
    try {
      // the regex alone first: `9)|(?:0` compiles only once wrapped, unanchored in its second branch
      // (Graphite's expressions take it as graphite-web does)
      if (!byName) compileUserRegex(value, 'the tag filter\'s regex')
      re = compileUserRegex(`^(?:${value})`, 'the tag filter\'s regex', { maxInstructions: MAX_FILTER_INSTRUCTIONS })
    } catch (err) {
      return { problem: err.message }
    }
    test = (v) => re.matcher(v ?? '').find()
  }
  const negated = operator[0] === '!'
  return { key, operator, value, regex: operator.endsWith('~'), matches: negated ? (v) => !test(v) : test }
}

/** A filter's test of values, a regex's timed against `budget` (graphite/regex.js regexBudget): one read's regexes share one */
export const timedMatches = (filter, budget) => (filter.regex ? budget.box(filter.matches, `${filter.key}${filter.operator}${filter.value}`) : filter.matches)

/** Repeated `tag=` query values (a string or an array) → { filters } or { problem } */
export function parseTagFilters (raw) {
  if (raw === undefined) return { filters: [] }
  const list = Array.isArray(raw) ? raw : [raw]
  if (list.length > MAX_FILTERS) return { problem: `at most ${MAX_FILTERS} tag filters, got ${list.length}` }
  const filters = []
  for (const expression of list) {
    const parsed = parseTagFilter(expression)
    if (parsed.problem) return parsed
    filters.push(parsed)
  }
  return { filters }
}

/** `by=k1,k2` → { keys } (distinct, valid) or { problem } */
export function parseGroupBy (raw) {
  if (raw === undefined) return { keys: null }
  if (Array.isArray(raw)) raw = raw.join(',')
  const keys = raw.split(',', MAX_FILTERS + 1).map(k => k.trim())
  if (keys.length > MAX_FILTERS) return { problem: `at most ${MAX_FILTERS} keys to group by` }
  for (const key of keys) {
    const broken = keyProblem(key)
    if (broken) return { problem: broken }
  }
  if (new Set(keys).size !== keys.length) return { problem: 'a key is named twice' }
  return { keys }
}
