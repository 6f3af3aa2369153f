// aliasSub's replacement as Python's re.sub reads it (src/graphite/regex.js
// parsePythonTemplate, pythonSub): each expected answer and error printed by
// Python 3.11 (graphite-web's re.sub) for the same pattern, replacement and name.
import { describe, expect, it } from 'vitest'
import { MAX_SUB_INSTRUCTIONS, RegexBudgetError, TemplateError, compileUserRegex, parsePythonTemplate, pythonSub, regexBudget } from '../../src/graphite/regex.js'
import { evaluate } from '../../src/graphite/evaluator.js'
import { TargetValueError } from '../../src/graphite/functions.js'
import { globMatcher } from '../../src/graphite/glob.js'
import { makeSeries } from '../../src/graphite/series.js'
import { parseTarget } from '../../src/graphite/target-parser.js'

const sub = (pattern, replacement, text, options) => {
  const re = compileUserRegex(pattern, 'test')
  return pythonSub(re, text, parsePythonTemplate(replacement, { groupCount: re.groupCount(), namedGroups: re.namedGroups() }), options)
}

describe("aliasSub's replacement, as Python's re.sub", () => {
  it('substitutes every group form, and keeps $ and unknown escapes literal', () => {
    const python = [
      ['cpu', '\\g<0>', 'x.cpu', 'x.cpu'],
      ['(cpu)', 'x\\g<1>y', 'x.cpu', 'x.xcpuy'],
      ['(cpu)', 'x\\1y', 'x.cpu', 'x.xcpuy'],
      ['(?P<k>cpu)', '\\g<k>!', 'x.cpu', 'x.cpu!'],
      ['(c)(p)(u)', '\\3\\2\\1', 'x.cpu', 'x.upc'],
      ['cpu', '$0 $1 $& $$', 'x.cpu', 'x.$0 $1 $& $$'],
      ['(x)?cpu', '[\\1]', 'a.cpu', 'a.[]'],
      ['cpu', '\\\\\\n\\t\\.', 'x.cpu', 'x.\\\n\t\\.'],
      ['cpu', '\\101\\0\\012', 'x.cpu', 'x.A\u0000\n'],
      ['(c)', '\\g< 1 >\\g<+1>\\g<01>', 'x.cpu', 'x.cccpu'],
      ['(((((((((((c)))))))))))', '\\11\\g<11>', 'x.cpu', 'x.ccpu'],
      ['x*', '-', 'abxd', '-a-b--d-'],
      ['(.)', '\\1\\1', 'é😀', 'éé😀😀']
    ]
    for (const [pattern, replacement, text, expected] of python) {
      expect(sub(pattern, replacement, text).text, `re.sub(${pattern}, ${replacement}, ${text})`).toBe(expected)
    }
  })

  it('refuses what re.sub refuses, with its reason', () => {
    const python = [
      ['(a)', '\\2', 'invalid group reference 2'],
      ['a', '\\d', 'bad escape \\d'],
      ['a', '\\', 'bad escape (end of pattern)'],
      ['a', '\\g<x>', "unknown group name 'x'"],
      ['a', '\\g<>', 'missing group name'],
      ['a', '\\g<1', 'missing >, unterminated name'],
      ['a', '\\g', 'missing <'],
      ['a', '\\400', 'octal escape value \\400 outside of range 0-0o377'],
      ['a', '\\g<-1>', "bad character in group name '-1'"]
    ]
    for (const [pattern, replacement, reason] of python) {
      expect(() => sub(pattern, replacement, 'a'), replacement).toThrow(TemplateError)
      expect(() => sub(pattern, replacement, 'a'), replacement).toThrow(reason)
    }
  })

  it('past maxLength counts the length without keeping the text', () => {
    expect(sub('(.)', '\\1\\1\\1', 'abcd', { maxLength: 10 })).toEqual({ text: null, length: 12 })
    expect(sub('(.)', '\\1\\1\\1', 'abcd', { maxLength: 12 })).toEqual({ text: 'aaabbbcccddd', length: 12 })
  })
})

describe("aliasSub's cost", () => {
  const names = ['app.web.requests', 'app.api.requests', 'app.db.requests', 'app.queue.requests']
  const ctxWith = (subBudget) => ({
    startTime: 0,
    endTime: 3600,
    defaultConsolidation: 'sum',
    subBudget,
    fetch: async (path, c) => names.filter(globMatcher(path)).map(name => makeSeries({ name, start: c.startTime, end: c.endTime, step: 60, values: [], consolidationFunc: 'sum', pathExpression: path }))
  })
  const renamed = async (target, subBudget) => (await evaluate(parseTarget(target), ctxWith(subBudget))).map(s => s.name)

  it('a search past MAX_SUB_INSTRUCTIONS is refused naming the limit', async () => {
    // 4,002 instructions: 80 ms a name of 1,024 characters
    await expect(renamed('aliasSub(app.*.requests,"(?:.?){1000}(?:.?){1000}","\\g<0>")')).rejects.toThrow(TargetValueError)
    await expect(renamed('aliasSub(app.*.requests,"(?:.?){1000}(?:.?){1000}","\\g<0>")')).rejects.toThrow(new RegExp(`^aliasSub: search .* compiles to 4002 instructions, over ${MAX_SUB_INSTRUCTIONS}`))
    expect(await renamed('aliasSub(app.*.requests,"^app\\.([^.]+)\\..*$","\\1")')).toEqual(['web', 'api', 'db', 'queue'])
  })

  it("a request's substitutions stop once they took its time together, nested ones too (a fake clock: 60 ms a name, 100 allowed)", async () => {
    let t = 0
    const budget = () => regexBudget(100, () => (t += 60))
    // two names fit (60, then 120 > 100 stops the third), over one call or across two nested ones
    await expect(renamed('aliasSub(app.*.requests,"app","x")', budget())).rejects.toThrow(RegexBudgetError)
    await expect(renamed('aliasSub(app.*.requests,"app","x")', budget())).rejects.toThrow(/^the regexes of aliasSub \("app"\) tested values for over 100 ms: use a simpler search, or rename fewer series$/)
    const shared = budget()
    await expect(renamed('aliasSub(aliasSub(app.{web}.requests,"app","x"),"x","y")', shared)).resolves.toEqual(['y.web.requests'])
    await expect(renamed('aliasSub(app.{web}.requests,"app","x")', shared)).rejects.toThrow(RegexBudgetError)
  })
})
