// Graphite globs over dot-separated metric names. Pure.
//   *      any characters within one part      ?  one character
//   {a,b}  one of the alternatives              [0-9] [abc] [!x]  one character of a class
// A glob matches a name with the same number of parts, part by part. Each
// part is matched by a linear-time RE2 automaton (./regex.js), never by a
// backtracking engine: `*a*a*a*a*b` costs the length of the name.
import { compileUserRegex, fullMatch, regexBudget } from './regex.js'
import { quoted } from '../errors.js'

const GLOB_CHARS = '*?[{'

export const isGlob = pattern => [...pattern].some(c => GLOB_CHARS.includes(c))

/** The literal text before the first glob character: the registry range to scan */
export function literalPrefix (pattern) {
  let i = 0
  while (i < pattern.length && !GLOB_CHARS.includes(pattern[i])) i++
  return pattern.slice(0, i)
}

const escapeChar = c => /[\\^$.*+?()[\]{}|/-]/.test(c) ? '\\' + c : c

/** One part's glob → regular-expression source (a matching engine, built from a tokenised glob) */
function partSource (part) {
  let out = ''
  for (let i = 0; i < part.length; i++) {
    const c = part[i]
    if (c === '*') {
      out += '[^.]*'
      while (part[i + 1] === '*') i++ // ** is *: a run of them is one
    } else if (c === '?') out += '[^.]'
    else if (c === '[') {
      const end = part.indexOf(']', i + 2)
      if (end === -1) { out += escapeChar(c); continue }
      let body = part.slice(i + 1, end)
      const negate = body[0] === '!'
      if (negate) body = body.slice(1)
      out += '[' + (negate ? '^' : '') + [...body].map(ch => ch === '-' ? '-' : escapeChar(ch)).join('') + ']'
      i = end
    } else if (c === '{') {
      const end = part.indexOf('}', i)
      if (end === -1) { out += escapeChar(c); continue }
      out += '(?:' + part.slice(i + 1, end).split(',').map(partSource).join('|') + ')'
      i = end
    } else out += escapeChar(c)
  }
  return out
}

/** Splits on dots outside { } (a brace alternative may hold dots) */
function splitParts (pattern) {
  const parts = []
  let depth = 0
  let current = ''
  for (const c of pattern) {
    if (c === '{') depth++
    else if (c === '}') depth = Math.max(0, depth - 1)
    if (c === '.' && depth === 0) { parts.push(current); current = '' } else current += c
  }
  parts.push(current)
  return parts
}

export class GlobSyntaxError extends Error {
  constructor (pattern, reason) {
    super(`glob ${quoted(pattern)} is not valid: ${reason}`)
    this.name = 'GlobSyntaxError'
  }
}

// the most texts a part of literals and braces is expanded to (braceAlternatives)
export const MAX_ALTERNATIVES = 64

/**
 * The texts a part made of literals and {a,b} alternatives only stands for
 * (p{50,75} → p50, p75), or null for a part with any other glob character,
 * nested braces, or more than `max` texts (MAX_ALTERNATIVES). For names that exist
 * without being listed (a distribution's stat leaves, ./stat-leaves.js).
 */
export function braceAlternatives (part, max = MAX_ALTERNATIVES) {
  if (/[*?[]/.test(part)) return null
  let texts = ['']
  for (let i = 0; i < part.length;) {
    const open = part.indexOf('{', i)
    const close = open === -1 ? -1 : part.indexOf('}', open)
    if (close === -1) { // no more alternatives: the rest is literal (an unclosed { too, as partSource reads it)
      const rest = part.slice(i)
      texts = texts.map(t => t + rest)
      break
    }
    const literal = part.slice(i, open)
    const alternatives = part.slice(open + 1, close).split(',')
    if (alternatives.some(a => a.includes('{'))) return null
    // counted before they are made: two braces of 2,000 alternatives would make 4 million texts
    if (texts.length * alternatives.length > max) return null
    texts = texts.flatMap(t => alternatives.map(a => t + literal + a))
    i = close + 1
  }
  return texts
}

/**
 * The most instructions a glob's part with wildcards or classes compiles to
 * (one of literals and braces is a look-up: MAX_LISTED_TEXTS), and the most
 * time one glob's parts test names: a part's test costs its instructions
 * times the name part's length, and a walk of the name index tests up to its
 * visits' bound
 */
export const MAX_GLOB_INSTRUCTIONS = 2048
export const MAX_GLOB_MS = 250

// the most texts a part of literals and braces is matched as, by a Set: a dashboard's "All" of a variable's values
const MAX_LISTED_TEXTS = 10_000

function compilePart (pattern, part, budget) {
  if (!isGlob(part)) return Object.assign(text => text === part, { literal: part }) // a literal part: string equality
  if (/^\*+$/.test(part)) return () => true // any name part: no test to run
  const listed = part.includes('{') ? braceAlternatives(part, MAX_LISTED_TEXTS) : null
  if (listed !== null) {
    // literals and braces only ({web-1,web-2,…}): one look-up, whatever the number of alternatives
    const texts = new Set(listed)
    return Object.assign(text => texts.has(text), { alternatives: listed.length > MAX_ALTERNATIVES ? null : listed })
  }
  let re
  try {
    re = compileUserRegex('^(?:' + partSource(part) + ')$', 'glob')
  } catch {
    throw new GlobSyntaxError(pattern, `cannot read the part ${quoted(part)} (a character class such as [z-a]?)`)
  }
  const size = re.re2Input.prog.inst.length
  if (size > MAX_GLOB_INSTRUCTIONS) throw new GlobSyntaxError(pattern, `the part ${quoted(part)} compiles to ${size} instructions, over ${MAX_GLOB_INSTRUCTIONS}: use fewer alternatives, classes or ?`)
  const matcher = budget.box(text => fullMatch(re, text), `glob ${quoted(pattern)}`, 'narrow it (a literal first part, fewer wildcards)')
  if (part.includes('{')) matcher.alternatives = braceAlternatives(part)
  return matcher
}

/**
 * pattern → one matcher per dot-separated part ((part) => boolean), their
 * tests timed together against `budget` (regex.js regexBudget; MAX_GLOB_MS, then RegexBudgetError). Throws GlobSyntaxError.
 */
export function globParts (pattern, budget = regexBudget(MAX_GLOB_MS)) {
  return splitParts(pattern).map(p => compilePart(pattern, p, budget))
}

/** pattern → (name) => boolean; a name matches when all its parts match. Throws GlobSyntaxError. */
export function globMatcher (pattern) {
  const parts = globParts(pattern)
  return name => {
    const nameParts = name.split('.')
    if (nameParts.length !== parts.length) return false
    return parts.every((match, i) => match(nameParts[i]))
  }
}

/**
 * /metrics/find: the nodes one level below what the query's parts match.
 * Each name that matches the query's parts as a prefix gives a node:
 * a leaf when the name ends there, a branch when it goes on.
 */
export function findNodes (query, names) {
  const parts = splitParts(query)
  const matchPrefix = globMatcher(query)
  const nodes = new Map()
  for (const name of names) {
    const nameParts = name.split('.')
    if (nameParts.length < parts.length) continue
    const head = nameParts.slice(0, parts.length).join('.')
    if (!matchPrefix(head)) continue
    const leaf = nameParts.length === parts.length
    const existing = nodes.get(head)
    nodes.set(head, { path: head, text: nameParts[parts.length - 1], leaf: leaf || (existing?.leaf ?? false), branch: !leaf || (existing?.branch ?? false) })
  }
  return [...nodes.values()].sort((a, b) => a.path < b.path ? -1 : a.path > b.path ? 1 : 0)
}
