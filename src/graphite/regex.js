// User regular expressions of the Graphite API (aliasSub's search, globs)
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
    /** test(text) → boolean, timed against the budget (what: the regex, as the message names it) */
    box (test, what) {
      return (text) => {
        if (spent > ms) throw new RegexBudgetError(`the regexes of ${what} tested values for over ${ms} ms: match fewer values (a name, =, or a narrower regex)`)
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

/** Every match of `re` in `text` replaced with a JavaScript-style replacement ($1, $<name>, $$) */
export const replaceAll = (re, text, replacement) => re.matcher(text).replaceAll(replacement)
