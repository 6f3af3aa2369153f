// User regular expressions of the Graphite API (aliasSub's search and its
// Python replacement, globs)
// on a linear-time engine with RE2 semantics (re2js): no pattern can make a
// match backtrack (docs/adr/0024-graphite-read-budget.md).
// RE2 has no backreferences and no lookaround; such a pattern is refused.
import { RE2JS } from 're2js'

export class UserRegexError extends Error {
  constructor (what, pattern, reason) {
    super(`${what} ${JSON.stringify(pattern)} is not a regular expression statbucket can run (RE2 syntax: no backreferences, no lookaround): ${reason}`)
    this.name = 'UserRegexError'
  }
}

/**
 * The most instructions a tag filter's regex compiles to. A test costs up to ~20 ns an
 * instruction a character: 256 bound one of a 256-unit value to ~1 ms, where
 * `(?:.?){1000}` repeated (2,000 each) took 0.3 s; the filters one writes compile to 6–200.
 */
export const MAX_FILTER_INSTRUCTIONS = 256
/** The most time the tag filters' regexes test values within one read of a name, together (then RegexBudgetError) */
export const MAX_FILTER_MS = 100
/**
 * The most instructions aliasSub's search compiles to, and the most time its
 * substitutions take in one render, together: `x*` alone over 1,000 names of
 * 1,024 characters took 6 s (an empty match at every character), and a search
 * of 4,000 instructions 80 ms a name
 */
export const MAX_SUB_INSTRUCTIONS = 256
export const MAX_SUB_MS = 100

// the compiled program's size is re2js's own field (re2Input.prog.inst): checked once, at load, so an
// upgrade that moves it fails here, not silently unbounded
if (!Array.isArray(RE2JS.compile('a').re2Input?.prog?.inst)) throw new Error('re2js no longer exposes re2Input.prog.inst: src/graphite/regex.js bounds regexes by it')

/** A regex that cost more than a read allows: the message says what to do */
export class RegexBudgetError extends Error {
  constructor (message) {
    super(message)
    this.name = 'RegexBudgetError'
  }
}

/** pattern → RE2JS; throws UserRegexError naming `what` (maxInstructions: a bound on the compiled program, e.g. MAX_FILTER_INSTRUCTIONS) */
export function compileUserRegex (pattern, what, { maxInstructions = Infinity } = {}) {
  let re
  try {
    re = RE2JS.compile(pattern)
  } catch (err) {
    throw new UserRegexError(what, pattern, err.message)
  }
  const size = re.re2Input.prog.inst.length
  if (size > maxInstructions) throw new UserRegexError(what, pattern, `it compiles to ${size} instructions, over ${maxInstructions}: use fewer or smaller counted repetitions ({n})`)
  return re
}

/**
 * One read's time for its regexes: every test it boxes counts toward the same `ms`; once they took
 * that together, the next throws RegexBudgetError — a read of many values stops instead of holding the event loop
 */
export function regexBudget (ms = MAX_FILTER_MS, now = () => performance.now()) {
  let spent = 0
  return {
    /** test(text) → its answer, timed against the budget (what: the regex, as the message names it; advice: what to do instead) */
    box (test, what, advice = 'match fewer values (a name, =, or a narrower regex)') {
      return (text) => {
        if (spent > ms) throw new RegexBudgetError(`the regexes of ${what} tested values for over ${ms} ms: ${advice}`)
        const started = now()
        const verdict = test(text)
        spent += now() - started
        return verdict
      }
    }
  }
}

/** test timed against a budget of its own (regexBudget) */
export const timeBoxed = (test, what, ms = MAX_FILTER_MS, now = undefined) => regexBudget(ms, now).box(test, what)

/** Whether the whole of `text` matches the compiled pattern */
export const fullMatch = (re, text) => re.matches(text)

/** A replacement re.sub would refuse (its message as Python words it) */
export class TemplateError extends Error {
  constructor (message) {
    super(message)
    this.name = 'TemplateError'
  }
}

// Python 3.11's re module: the escapes a replacement may hold, str.isspace, str.isidentifier
const TEMPLATE_ESCAPES = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\' }
const PY_SPACE = '[\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]'
const PY_INT_RE = new RegExp(`^${PY_SPACE}*([+-]?)(\\p{Nd}(?:_?\\p{Nd})*)${PY_SPACE}*$`, 'u')
const IDENTIFIER_RE = /^[\p{XID_Start}_]\p{XID_Continue}*$/u
const isOctal = c => c !== undefined && c >= '0' && c <= '7'
const isDigit = c => c !== undefined && c >= '0' && c <= '9'

/** A decimal digit's value (any script's: Unicode assigns them in runs of ten, 0 to 9) */
function digitValue (c) {
  let first = c.codePointAt(0)
  while (/\p{Nd}/u.test(String.fromCodePoint(first - 1))) first--
  return (c.codePointAt(0) - first) % 10
}

/** Python int(text) of a group name (spaces around, a sign, _ between digits, any script's digits), or null */
function pythonInt (text) {
  const m = PY_INT_RE.exec(text)
  if (!m) return null
  let value = 0n
  for (const c of m[2]) if (c !== '_') value = value * 10n + BigInt(digitValue(c))
  return m[1] === '-' ? -value : value
}

/**
 * A Python re.sub replacement (Python 3.11's re._parser.parse_template) →
 * [string | group number]: \1…\99 and \g<N> (\g<0> the whole match) a group,
 * \g<name> a named group, \0, \0N, \0NN and \NNN octal escapes, \n \t \\ …
 * their characters, \ before any other character that is no ASCII letter kept
 * as it is, $ and everything else literal. Throws TemplateError where Python
 * raises: a group the pattern lacks, a bad escape (\d), a lone \ at the end.
 */
export function parsePythonTemplate (template, { groupCount, namedGroups }) {
  // Python's tokens: a character, or a backslash and the character after it
  const tokens = []
  for (let i = 0; i < template.length; i++) {
    if (template[i] !== '\\') { tokens.push(template[i]); continue }
    if (i + 1 === template.length) throw new TemplateError('bad escape (end of pattern)')
    tokens.push(template.slice(i, i + 2))
    i++
  }
  const parts = []
  let literal = ''
  const group = (index, shown) => {
    if (index > BigInt(groupCount)) throw new TemplateError(`invalid group reference ${shown}`)
    if (literal) parts.push(literal)
    literal = ''
    parts.push(Number(index))
  }
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]
    if (token[0] !== '\\') { literal += token; continue }
    const c = token[1]
    if (c === 'g') {
      if (tokens[i + 1] !== '<') throw new TemplateError('missing <')
      let name = ''
      let j = i + 2
      for (; j < tokens.length && tokens[j] !== '>'; j++) name += tokens[j]
      if (j === tokens.length) throw new TemplateError(name ? 'missing >, unterminated name' : 'missing group name')
      if (!name) throw new TemplateError('missing group name')
      i = j
      if (IDENTIFIER_RE.test(name)) {
        if (!Object.hasOwn(namedGroups, name)) throw new TemplateError(`unknown group name '${name}'`)
        group(BigInt(namedGroups[name]), name)
      } else {
        const index = pythonInt(name)
        if (index === null || index < 0n) throw new TemplateError(`bad character in group name '${name}'`)
        group(index, String(index))
      }
    } else if (c === '0') {
      let digits = '0'
      while (digits.length < 3 && tokens[i + 1]?.length === 1 && isOctal(tokens[i + 1])) digits += tokens[++i]
      literal += String.fromCharCode(parseInt(digits, 8) & 0xff)
    } else if (isDigit(c)) {
      let digits = c
      if (tokens[i + 1]?.length === 1 && isDigit(tokens[i + 1])) {
        digits += tokens[++i]
        if (isOctal(c) && isOctal(digits[1]) && tokens[i + 1]?.length === 1 && isOctal(tokens[i + 1])) {
          digits += tokens[++i]
          const code = parseInt(digits, 8)
          if (code > 0o377) throw new TemplateError(`octal escape value \\${digits} outside of range 0-0o377`)
          literal += String.fromCharCode(code)
          continue
        }
      }
      group(BigInt(digits), digits)
    } else if (Object.hasOwn(TEMPLATE_ESCAPES, c)) {
      literal += TEMPLATE_ESCAPES[c]
    } else if (/[A-Za-z]/.test(c)) {
      throw new TemplateError(`bad escape ${token}`)
    } else {
      literal += token
    }
  }
  if (literal) parts.push(literal)
  return parts
}

/**
 * re.sub(pattern, template, text): every match of `re` replaced by the parts
 * of parsePythonTemplate (a group that took no part in the match is empty)
 * → { text, length }; past maxLength only the length is counted (text null)
 */
export function pythonSub (re, text, parts, { maxLength = Infinity } = {}) {
  const matcher = re.matcher(text)
  let out = ''
  let length = 0
  let at = 0
  const add = piece => { length += piece.length; if (length <= maxLength) out += piece }
  while (matcher.find()) {
    add(text.slice(at, matcher.start()))
    for (const part of parts) add(typeof part === 'string' ? part : (matcher.group(part) ?? ''))
    at = matcher.end()
  }
  add(text.slice(at))
  return { text: length <= maxLength ? out : null, length }
}
