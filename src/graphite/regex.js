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

/** pattern → RE2JS; throws UserRegexError naming `what` */
export function compileUserRegex (pattern, what) {
  try {
    return RE2JS.compile(pattern)
  } catch (err) {
    throw new UserRegexError(what, pattern, err.message)
  }
}

/** Whether the whole of `text` matches the compiled pattern */
export const fullMatch = (re, text) => re.matches(text)

/** Every match of `re` in `text` replaced with a JavaScript-style replacement ($1, $<name>, $$) */
export const replaceAll = (re, text, replacement) => re.matcher(text).replaceAll(replacement)
