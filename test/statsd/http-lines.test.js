// The body of POST /v1/statsd, pure (src/statsd/http-lines.js): its budget of
// values is decided before a line is parsed. A body is one line as far as
// BODY_LIMIT_BYTES allows, so a line can pack millions of values.
import { describe, expect, it } from 'vitest'
import { parseStatsdBody, valuesIn } from '../../src/statsd/http-lines.js'
import { parseLine } from '../../src/statsd/line-parser.js'

const refusal = (text, maxValues) => {
  try {
    parseStatsdBody(text, { maxValues })
  } catch (err) {
    return { statusCode: err.statusCode, message: err.message }
  }
  return null
}

describe('MAX_EVENTS_PER_REQUEST over StatsD lines', () => {
  it('refuses a line packed with more values than the budget with the 413 naming it, before judging them one by one', () => {
    // 2 MiB of ':' (the default BODY_LIMIT_BYTES): two million malformed values; parsed first, it was a 400 after ~0.5 s
    expect(refusal('a' + ':'.repeat(2 * 1024 * 1024), 10_000)).toEqual({ statusCode: 413, message: expect.stringContaining('MAX_EVENTS_PER_REQUEST = 10000') })
    expect(refusal('a' + ':1|ms'.repeat(10_001), 10_000)).toMatchObject({ statusCode: 413 })
    // the line over the budget is not parsed: a bad line after it is not what answers
    expect(refusal('ok:1|c\n' + 'b' + ':x|ms'.repeat(20) + '\nbad:1|zz', 10)).toMatchObject({ statusCode: 413 })
  })

  it('still takes a line of exactly the budget, and judges a bad line within it (400 naming it)', () => {
    expect(parseStatsdBody('a' + ':1|ms'.repeat(10), { maxValues: 10 }).values).toBe(10)
    expect(refusal('ok:1|c\nbad:1|zz', 10)).toMatchObject({ statusCode: 400, message: expect.stringContaining('line 2') })
  })

  it('refuses more lines than twice the budget with the 413 naming it, before the body is split', () => {
    // 2 MiB of newlines: two million empty lines; split and walked, it was a 400 ("no StatsD line") after ~65 ms
    expect(refusal('\n'.repeat(2 * 1024 * 1024), 10_000)).toEqual({ statusCode: 413, message: expect.stringContaining('at most 20000 StatsD lines (2 × MAX_EVENTS_PER_REQUEST') })
    // a value a line and as many blank lines: taken
    expect(parseStatsdBody('a:1|c\n\n'.repeat(10).slice(0, -1), { maxValues: 10 }).values).toBe(10)
    expect(refusal('a:1|c\n\n'.repeat(10), 10)).toMatchObject({ statusCode: 413 }) // 21 lines
  })

  it('counts the values of a line as parseLine finds them', () => {
    for (const line of ['', '\r', 'a', 'a\r', 'a:1|c', 'a:1|c:2|c', 'a:1|c\r', 'a:1|c|#t:1,u:2', 'a:1|c:2|ms|#x:y:z', '|#a:b', ':', '::', 'a:1|#', 'a::1|c', 'x:1|g:+2|g']) {
      expect(valuesIn(line), JSON.stringify(line)).toBe(parseLine(line).values)
    }
  })
})
