// aliasSub's replacement as Python's re.sub reads it (src/graphite/regex.js
// parsePythonTemplate, pythonSub): each expected answer and error printed by
// Python 3.11 (graphite-web's re.sub) for the same pattern, replacement and name.
import { describe, expect, it } from 'vitest'
import { TemplateError, compileUserRegex, parsePythonTemplate, pythonSub } from '../../src/graphite/regex.js'

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
