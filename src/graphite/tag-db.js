// Graphite's tag database over statbucket's tag index
// (registry/tag-index.js): what graphite-web 1.1.10's TagDB answers
// (tags/base.py, tags/localdatabase.py) for seriesByTag, /tags,
// /tags/<tag>, /tags/findSeries and /tags/autoComplete/*. A series is a
// tagged series (`name;k=v`, as carbon tags only those); its tags are its
// own and `name`, its metric name. Expressions are tag filters
// (tags/tag-filter.js: graphite-web's semantics, regexes on RE2); at least
// one must require a value. A search gives the event loop a turn after
// each name, so a query over a large index never holds it long; a key's
// listing reads every name's values of it at once (the index's key → value
// → series) (docs/adr/0060-graphite-tag-api.md,
// docs/adr/0070-tag-index-inverted-reads.md).
import { MAX_FILTER_LENGTH, MAX_FILTERS, parseTagFilter, timedMatches } from '../tags/tag-filter.js'
import { MAX_FILTER_INSTRUCTIONS, compileUserRegex, regexBudget, timeBoxed } from './regex.js'
import { byCodePoint } from '../tags/code-point-order.js'

// graphite-web's TAGDB_AUTOCOMPLETE_LIMIT
export const AUTOCOMPLETE_LIMIT = 100
export const MAX_EXPRESSIONS = MAX_FILTERS

export class TagQueryError extends Error {
  constructor (message) {
    super(message)
    this.name = 'TagQueryError'
  }
}

const NAME = 'name'
const nextTurn = () => new Promise(resolve => setImmediate(resolve))

/** A filter regex as graphite-web anchors it (`^(filter)` unless it starts with ^) → test(text) */
function anchoredFilter (filter, what) {
  if (filter.length > MAX_FILTER_LENGTH) throw new TagQueryError(`${what} is at most ${MAX_FILTER_LENGTH} characters`)
  let re
  try {
    re = compileUserRegex(filter.startsWith('^') ? filter : `^(${filter})`, what, { maxInstructions: MAX_FILTER_INSTRUCTIONS })
  } catch (err) {
    throw new TagQueryError(err.message)
  }
  return timeBoxed(text => re.matcher(text).find(), `${what}=${filter}`)
}

/**
 * Tag expressions → filters; throws TagQueryError naming the rule. implied: filters the query adds
 * to them (autoComplete/values' `tag!=`), which count toward graphite-web's rule
 */
export function parseExpressions (expressions, implied = []) {
  if (expressions.length > MAX_EXPRESSIONS) throw new TagQueryError(`at most ${MAX_EXPRESSIONS} tag expressions, got ${expressions.length}`)
  const filters = expressions.map(expression => {
    const parsed = parseTagFilter(expression, { byName: true })
    if (parsed.problem) throw new TagQueryError(parsed.problem)
    return parsed
  })
  // graphite-web's rule: a query every series without the tags would match is refused
  if (![...filters, ...implied].some(f => !f.matches(''))) throw new TagQueryError('at least one tag expression must require a value (key=value, key=~regex that does not match "", key!=): graphite-web refuses expressions that all match the empty value')
  return filters
}

/** limit= → a whole number ≥ 0, or `fallback` when absent */
export function parseLimit (raw, fallback) {
  if (raw === undefined || raw === '') return fallback
  if (!/^[0-9]{1,9}$/.test(raw)) throw new TagQueryError(`limit=${raw.slice(0, 40)}: a whole number ≥ 0`)
  return Number(raw)
}

/** The `limit` least of a set of strings, sorted as graphite-web sorts them */
const least = (set, limit) => [...set].sort(byCodePoint).slice(0, limit)

/** tags: the tag index (registry/tag-index.js) */
export function createTagDb ({ tags, turn = nextTurn }) {
  const names = () => tags.names().map(n => n.name).sort(byCodePoint)

  /** The tagged series the expressions match, sorted; over maxSeries a TagQueryError naming MAX_SERIES and `what` */
  async function findSeries (expressions, options = {}) {
    return search(parseExpressions(expressions), options)
  }

  /** The names whose series the filters of the tag `name` admit */
  function candidateNames (filters) {
    const ofName = filters.filter(f => f.key === NAME)
    const exact = ofName.find(f => f.operator === '=' && f.value !== '')
    // a name regex tests every name: its tests timed against one budget (./regex.js)
    const budget = regexBudget()
    const tests = ofName.map(f => timedMatches(f, budget))
    return (exact ? [exact.value] : names()).filter(name => tests.every(test => test(name)))
  }

  /** The tagged series every filter matches, sorted (a filter of `name` reads the metric name) */
  async function search (filters, { maxSeries = Infinity, what = 'the tag expressions' } = {}) {
    const others = filters.filter(f => f.key !== NAME)
    const found = []
    for (const name of candidateNames(filters)) {
      const series = others.length ? tags.match(name, others) : [...tags.seriesOf(name)]
      for (const s of series) found.push(s)
      if (found.length > maxSeries) throw new TagQueryError(`${what} matches more than MAX_SERIES = ${maxSeries} series; narrow the expressions`)
      await turn()
    }
    return found.sort(byCodePoint)
  }

  /** The tags there are, sorted, filtered by a regex (or a prefix) and limited → [{ tag }] (graphite-web's list_tags, without its database ids) */
  async function listTags ({ filter, prefix, limit } = {}) {
    const test = filter ? anchoredFilter(filter, 'filter') : prefix ? tag => tag.startsWith(prefix) : () => true
    const found = tags.names().length ? [NAME, ...tags.allKeys()] : []
    const listed = found.filter(test).sort(byCodePoint)
    return (limit === undefined ? listed : listed.slice(0, limit)).map(tag => ({ tag }))
  }

  /** A tag's values with their numbers of series, sorted, filtered and limited → [{ value, count }] (the tag `name`: the names) */
  async function listValues (tag, { filter, prefix, limit } = {}) {
    const test = filter ? anchoredFilter(filter, 'filter') : null
    if (tag === NAME) {
      const listed = tags.names().filter(n => (test ? test(n.name) : !prefix || n.name.startsWith(prefix)))
        .sort((a, b) => byCodePoint(a.name, b.name)).map(n => ({ value: n.name, count: n.series }))
      return limit === undefined ? listed : listed.slice(0, limit)
    }
    return tags.allValuesOf(tag, { prefix: test ? '' : prefix ?? '', test, limit }).map(v => ({ value: v.value, count: v.series }))
  }

  /** A tag and its values → { tag, values } or null where no series has the tag (graphite-web's get_tag) */
  async function getTag (tag, options = {}) {
    const known = tag === NAME ? tags.names().length > 0 : tags.hasKey(tag)
    if (!known) return null
    return { tag, values: await listValues(tag, options) }
  }

  /** The tags of the series the expressions match, besides theirs (all tags without expressions), starting with the prefix, the least `limit` */
  async function autoCompleteTags (expressions, { tagPrefix, limit = AUTOCOMPLETE_LIMIT } = {}) {
    if (tagPrefix && tagPrefix.length > MAX_FILTER_LENGTH) throw new TagQueryError(`tagPrefix is at most ${MAX_FILTER_LENGTH} characters`)
    if (!expressions.length) {
      return (await listTags({ prefix: tagPrefix, limit })).map(t => t.tag)
    }
    const filters = parseExpressions(expressions)
    const searched = new Set(filters.map(f => f.key))
    const found = new Set()
    for (const series of await search(filters)) {
      for (const tag of tagNames(series)) {
        if (!searched.has(tag) && (!tagPrefix || tag.startsWith(tagPrefix))) found.add(tag)
      }
    }
    return least(found, limit)
  }

  /** The values of `tag` among the series the expressions match (all its values without expressions), starting with the prefix, the least `limit` */
  async function autoCompleteValues (expressions, tag, { valuePrefix, limit = AUTOCOMPLETE_LIMIT } = {}) {
    if (valuePrefix && valuePrefix.length > MAX_FILTER_LENGTH) throw new TagQueryError(`valuePrefix is at most ${MAX_FILTER_LENGTH} characters`)
    if (!expressions.length) {
      return (await listValues(tag, { prefix: valuePrefix, limit })).map(v => v.value)
    }
    // graphite-web adds `tag!=`: only the series that have the tag (each of a tag's values is held by one)
    const hasTag = parseTagFilter(`${tag}!=`, { byName: true })
    if (hasTag.problem) throw new TagQueryError(`tag=: ${hasTag.problem}`)
    const filters = parseExpressions(expressions, [hasTag])
    const found = new Set()
    if (tag === NAME) {
      for (const series of await search([...filters, hasTag])) {
        const value = tagValue(series, tag)
        if (!valuePrefix || value.startsWith(valuePrefix)) found.add(value)
      }
    } else {
      const others = filters.filter(f => f.key !== NAME)
      for (const name of candidateNames(filters)) {
        for (const value of tags.valuesAmong(name, tag, others, valuePrefix ?? '')) found.add(value)
        await turn()
      }
    }
    return least(found, limit)
  }

  return { findSeries, listTags, getTag, listValues, autoCompleteTags, autoCompleteValues }
}

/** The tags of a canonical series name, `name` first */
function tagNames (series) {
  const segments = series.split(';')
  return [NAME, ...segments.slice(1).map(s => s.slice(0, s.indexOf('=')))]
}

/** A tag's value in a canonical series name (`name`: the name), or undefined */
function tagValue (series, tag) {
  const segments = series.split(';')
  if (tag === NAME) return segments[0]
  for (let i = 1; i < segments.length; i++) {
    const at = segments[i].indexOf('=')
    if (segments[i].slice(0, at) === tag) return segments[i].slice(at + 1)
  }
  return undefined
}

/** A canonical series name → its tags as graphite-web's JSON carries them: { name, …tags } */
export function seriesTags (series) {
  const segments = series.split(';')
  const out = { [NAME]: segments[0] }
  for (let i = 1; i < segments.length; i++) {
    const at = segments[i].indexOf('=')
    out[segments[i].slice(0, at)] = segments[i].slice(at + 1)
  }
  return out
}
