// The glob of a configured rule (RETENTION_RULES, ROLLUP_RULES) over a metric
// name: `*` any characters within one dot-separated part, `**` any across
// parts, everything else literal. Compiled for a linear-time engine (RE2):
// a rule runs against every name a client sends, on the ingest path, so no
// name can make a rule such as `**a**a**a**c` backtrack (a backtracking
// engine took 3 s for a 60-character name). Pure.
import { RE2JS } from 're2js'

/** A rule's glob → a matcher with matches(name) */
export function ruleGlob (glob) {
  const parts = glob.split('**').map(p => p.split('*').map(s => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^.]*'))
  return RE2JS.compile(`^${parts.join('.*')}$`)
}
