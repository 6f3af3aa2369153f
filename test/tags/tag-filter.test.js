// Tag filters against a model of graphite-web 1.1.10's TagDB
// (graphite/tags/localdatabase.py matches_filters): a series without the key
// has the empty value, = and != compare whole values, =~ and !=~ match a
// regex anchored at the start only (Python's re.match).
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { MAX_FILTER_INSTRUCTIONS, RegexBudgetError, regexBudget, timeBoxed } from '../../src/graphite/regex.js'
import { parseGroupBy, parseTagFilter, parseTagFilters } from '../../src/tags/tag-filter.js'

function graphiteMatches (operator, spec, value = '') {
  const prefix = (re) => { const m = new RegExp(`^(?:${re})`).exec(value); return m !== null }
  switch (operator) {
    case '=': return value === spec
    case '!=': return value !== spec
    case '=~': return prefix(spec)
    case '!=~': return !prefix(spec)
  }
}

describe('tag filters', () => {
  it('match as graphite-web matches, values present or not', () => {
    const values = fc.option(fc.constantFrom('200', '404', '500', '5', '', '/login', '/api/v1'), { nil: undefined })
    const spec = fc.constantFrom('200', '5', '5..', '[24]', '', '/api', '.*', 'x|5', '(/login|/home)$')
    fc.assert(fc.property(fc.constantFrom('=', '!=', '=~', '!=~'), spec, values, (operator, s, v) => {
      const filter = parseTagFilter(`status${operator}${s}`)
      expect(filter.problem).toBeUndefined()
      expect(filter.matches(v)).toBe(graphiteMatches(operator, s, v))
    }))
  })

  it('operators are read as Graphite reads them: the first of != =~ = after the key', () => {
    expect(parseTagFilter('a!=~b')).toMatchObject({ key: 'a', operator: '!=~', value: 'b' })
    expect(parseTagFilter('a=~b=c')).toMatchObject({ key: 'a', operator: '=~', value: 'b=c' })
    expect(parseTagFilter('a=b!=c')).toMatchObject({ key: 'a', operator: '=', value: 'b!=c' })
    // `name` filters the metric's name in Graphite's expressions only; elsewhere the read names its metric itself
    expect(parseTagFilter('name=web.requests', { byName: true })).toMatchObject({ key: 'name', operator: '=' })
    expect(parseTagFilter('name=web.requests').problem).toMatch(/the metric's name is not a tag/)
  })

  it('refuses what is not a filter, with the rule', () => {
    expect(parseTagFilter('status').problem).toMatch(/is not a tag filter/)
    expect(parseTagFilter('a b=1').problem).toMatch(/not a tag key/)
    expect(parseTagFilter('k=~(a').problem).toMatch(/RE2 syntax/)
    expect(parseTagFilter('k=~(a)\\1').problem).toMatch(/RE2 syntax/)
    expect(parseTagFilter('k=~(?=a)').problem).toMatch(/RE2 syntax/)
    expect(parseTagFilter(`k=${'x'.repeat(600)}`).problem).toMatch(/at most 512/)
    expect(parseTagFilters(Array.from({ length: 17 }, () => 'a=1')).problem).toMatch(/at most 16/)
    expect(parseGroupBy('a,a').problem).toMatch(/twice/)
    expect(parseGroupBy('__proto__').problem).toMatch(/reserved/)
    expect(parseGroupBy(Array.from({ length: 17 }, (_, i) => `k${i}`).join(',')).problem).toMatch(/at most 16/)
    expect(parseGroupBy('route, status')).toEqual({ keys: ['route', 'status'] })
  })

  it('a pathological regex runs in linear time: (a+)+b on 10,000 a\'s is judged by RE2, no backtracking', () => {
    const filter = parseTagFilter('k=~(a+)+b')
    expect(filter.matches('a'.repeat(10_000))).toBe(false)
    expect(filter.matches(`${'a'.repeat(10_000)}b`)).toBe(true)
  })

  it(`a regex compiling to more than ${MAX_FILTER_INSTRUCTIONS} instructions is refused naming its size (a test of it would cost ms a value); the ones one writes pass`, () => {
    for (const re of ['(?:.?){1000}', '(?:.?){200}', '(?:a{1,50}){1,10}']) {
      expect(parseTagFilter(`k=~${re}`).problem, re).toMatch(new RegExp(`compiles to \\d+ instructions, over ${MAX_FILTER_INSTRUCTIONS}`))
      expect(parseTagFilter(`name=~${re}`, { byName: true }).problem, re).toMatch(/instructions, over/)
    }
    for (const re of ['5..', '(GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS)', '/api/v[0-9]+/items/[^/]+', '[a-z]{1,64}', '(?:.?){100}']) expect(parseTagFilter(`k=~${re}`).problem, re).toBeUndefined()
  })

  it('a regex that compiles only once wrapped is refused, not matched unanchored in its second branch (Graphite\'s expressions take it as graphite-web does)', () => {
    expect(parseTagFilter('status=~9)|(?:0').problem).toMatch(/is not a regular expression/)
    expect(parseTagFilter('status=~9)|(?:0', { byName: true }).matches('200')).toBe(true)
  })
})

describe('a regex budget', () => {
  it('answers as its tests do until they took its time together, every test it boxed counting, then throws a RegexBudgetError naming the regex and what to do', () => {
    let t = 0
    const budget = regexBudget(5, () => t)
    // each test takes 2 ms of the (fake) clock
    const slow = (answer) => (v) => { t += 2; return answer(v) }
    const a = budget.box(slow(v => v === 'a'), 'tag=k=~a')
    const b = budget.box(slow(v => v === 'b'), 'tag=j=~b')
    expect([a('a'), b('a'), a('b')]).toEqual([true, false, false]) // 6 ms: past 5 now
    expect(() => b('b')).toThrow(RegexBudgetError)
    expect(() => a('a')).toThrow('the regexes of tag=k=~a tested values for over 5 ms: match fewer values (a name, =, or a narrower regex)')
    // a budget of its own: another read's regexes start from nothing
    const own = timeBoxed(slow(v => v === 'a'), 'tag=k=~a', 5, () => t)
    expect([own('a'), own('a'), own('a')]).toEqual([true, true, true])
    expect(() => own('a')).toThrow(RegexBudgetError)
  })
})
