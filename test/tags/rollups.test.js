// Declared rollups, the pure part: ROLLUP_RULES' rules, the rollup series'
// names (which no client can write), the metrics one event is written to,
// and which rollup answers a read.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { MAX_ROLLUP_RULES, MAX_ROLLUPS_PER_RULE, createRollups, isRollupSeries, parseRollupRules, parseRollupSeries, rollupSeriesName } from '../../src/tags/rollups.js'
import { findInvalidSeries, formatSeriesName, parseSeriesName } from '../../src/tags/series-name.js'

const rules = (value) => parseRollupRules(JSON.stringify(value))

describe('ROLLUP_RULES', () => {
  it('takes globs and subsets of tag keys, each subset sorted', () => {
    expect(rules([{ match: 'web.*', by: [['status', 'route'], ['route']] }])).toEqual({ rules: [{ match: 'web.*', by: [['route', 'status'], ['route']] }] })
    expect(rules([])).toEqual({ rules: [] })
  })

  it.each([
    ['{', /is not JSON/],
    ['{}', /must be a JSON array/],
    [JSON.stringify([null]), /rule 0 must be an object/],
    [JSON.stringify([{ match: 'a', by: [['x']], every: 5 }]), /rule 0 has "every"/],
    [JSON.stringify([{ match: '', by: [['x']] }]), /"match" must be a glob/],
    [JSON.stringify([{ match: 'a'.repeat(201), by: [['x']] }]), /"match" must be a glob of 1–200/],
    [JSON.stringify([{ match: 'a', by: [] }]), /"by" must list 1–8 subsets/],
    [JSON.stringify([{ match: 'a', by: ['route'] }]), /by\[0\] must be a list of 1–16 tag keys/],
    [JSON.stringify([{ match: 'a', by: [[]] }]), /by\[0\] must be a list/],
    [JSON.stringify([{ match: 'a', by: [['__proto__']] }]), /tag key "__proto__" is reserved/],
    [JSON.stringify([{ match: 'a', by: [['name']] }]), /tag key "name" is reserved/],
    [JSON.stringify([{ match: 'a', by: [['~x']] }]), /is not a tag key/],
    [JSON.stringify([{ match: 'a', by: [['a', 'a']] }]), /names a key twice/],
    [JSON.stringify([{ match: 'a', by: [['a', 'b'], ['b', 'a']] }]), /repeats the subset \[a,b\]/],
    [JSON.stringify([{ match: 'a', by: Array.from({ length: MAX_ROLLUPS_PER_RULE + 1 }, (_, i) => [`k${i}`]) }]), /1–8 subsets/],
    [JSON.stringify(Array.from({ length: MAX_ROLLUP_RULES + 1 }, () => ({ match: 'a', by: [['x']] }))), /at most 64/],
    [JSON.stringify([{ match: 'a', by: [Array.from({ length: 17 }, (_, i) => `k${i}`)] }]), /1–16 tag keys/]
  ])('refuses %s, naming the rule', (value, message) => {
    const { rules, problem } = parseRollupRules(value)
    expect(rules).toBeUndefined()
    expect(problem).toMatch(message)
  })

  it('a megabyte of rules is refused in linear time, by the count', () => {
    const value = JSON.stringify(Array.from({ length: 20_000 }, () => ({ match: 'a.*', by: [['route']] })))
    expect(value.length).toBeGreaterThan(500_000)
    expect(parseRollupRules(value).problem).toMatch(/20000 rules; at most 64/)
  })
})

describe('a rollup series', () => {
  it('is named by its name, its keys and the event\'s values of them; a missing key is left out', () => {
    const tags = new Map([['route', '/login'], ['status', '500'], ['az', 'x']])
    expect(rollupSeriesName('web.req', ['route', 'status'], tags)).toBe('web.req;~route,status;route=/login;status=500')
    expect(rollupSeriesName('web.req', ['customer', 'route'], tags)).toBe('web.req;~customer,route;route=/login')
    expect(rollupSeriesName('web.req', ['customer'], tags)).toBe('web.req;~customer')
    expect(parseRollupSeries('web.req;~customer,route;route=/login')).toEqual({ name: 'web.req', keys: ['customer', 'route'], tags: [['route', '/login']] })
    expect(parseRollupSeries('web.req;~customer')).toEqual({ name: 'web.req', keys: ['customer'], tags: [] })
  })

  it('no client can write one: a rollup series name breaks the series rules, and no canonical series is one', () => {
    expect(parseSeriesName('web.req;~route;route=/a').problem).toMatch(/is not a tag/)
    expect(findInvalidSeries([{ metric: 'web.req;~route' }])).toMatchObject({ index: 0, field: 'metric' })
    const key = fc.stringMatching(/^[A-Za-z0-9_.-]{1,8}$/)
    const value = fc.string({ minLength: 1, maxLength: 8 })
    fc.assert(fc.property(fc.dictionary(key, value, { minKeys: 1, maxKeys: 5 }), (tags) => {
      const parsed = parseSeriesName(formatSeriesName('web.req', Object.entries(tags)))
      if (parsed.problem) return true // a tag the rules refuse: not a series
      expect(isRollupSeries(parsed.series)).toBe(false)
      return true
    }), { numRuns: 500 })
  })
})

describe('the metrics an event is written to', () => {
  const rollups = createRollups(rules([
    { match: 'web.*', by: [['route'], ['route', 'status']] },
    { match: 'web.req', by: [['route'], ['az']] }, // [route] twice: written once
    { match: 'db.**', by: [['table']] }
  ]).rules)

  it('an untagged name: itself alone; a tagged series: itself, its name, and each declared subset once', () => {
    expect(rollups.writtenTo('web.req')).toEqual(['web.req'])
    expect(rollups.writtenTo('web.req;route=/a;status=500')).toEqual([
      'web.req;route=/a;status=500', 'web.req', 'web.req;~route;route=/a', 'web.req;~route,status;route=/a;status=500', 'web.req;~az'
    ])
    expect(rollups.writtenTo('web.other;status=200')).toEqual(['web.other;status=200', 'web.other', 'web.other;~route', 'web.other;~route,status;status=200'])
    expect(rollups.writtenTo('db.a.b;table=t')).toEqual(['db.a.b;table=t', 'db.a.b', 'db.a.b;~table;table=t'])
    expect(rollups.writtenTo('other;x=1')).toEqual(['other;x=1', 'other'])
  })

  it('without rules a tagged series is written to itself and its name', () => {
    expect(createRollups().writtenTo('a.b;k=v')).toEqual(['a.b;k=v', 'a.b'])
    expect(createRollups().declared).toBe(false)
  })

  it('a glob of nested stars on a long name costs linear time (RE2)', () => {
    const hostile = createRollups(rules([{ match: '**a**a**a**a**a**c', by: [['k']] }]).rules)
    const started = performance.now()
    expect(hostile.writtenTo(`${'a'.repeat(190)};k=v`)).toHaveLength(2)
    expect(performance.now() - started).toBeLessThan(1000)
  })
})

describe('the rollup that answers a read', () => {
  const since = { 'web.* by route': 1000, 'web.* by route,status': 5000, 'web.req by status': 2000 }
  const rollups = createRollups(rules([
    { match: 'web.*', by: [['route'], ['route', 'status']] },
    { match: 'web.req', by: [['status']] },
    { match: 'web.new', by: [['az']] } // not recorded: never read
  ]).rules, (match, keys) => since[`${match} by ${keys.join(',')}`])

  it('is the smallest declared subset holding every key the read uses, begun by the window\'s start', () => {
    expect(rollups.answering('web.req', ['route'], 9000)).toMatchObject({ keys: ['route'] })
    expect(rollups.answering('web.req', ['status'], 9000)).toMatchObject({ keys: ['status'] })
    expect(rollups.answering('web.req', ['status', 'route'], 9000)).toMatchObject({ keys: ['route', 'status'] })
    expect(rollups.answering('web.req', ['route', 'az'], 9000)).toBeNull()
    expect(rollups.answering('other', ['route'], 9000)).toBeNull()
    expect(rollups.answering('web.new', ['az'], 9000)).toBeNull()
  })

  it('not for a window starting before it began: the series are summed then', () => {
    expect(rollups.answering('web.req', ['route'], 999)).toBeNull()
    expect(rollups.answering('web.req', ['route', 'status'], 4999)).toBeNull()
    expect(rollups.answering('web.req', ['status'], 2000)).toMatchObject({ keys: ['status'] })
    // [status] begun at 2000, [route,status] at 5000: at 3000 [status] answers, at 1500 none
    expect(rollups.answering('web.req', ['status'], 1500)).toBeNull()
  })

  it('a subset declared by two rules begins at the earlier', () => {
    const two = createRollups(rules([{ match: 'a.*', by: [['k']] }, { match: 'a.b', by: [['k']] }]).rules, (match) => (match === 'a.*' ? 300 : 100))
    expect(two.subsetsOf('a.b')).toEqual([{ keys: ['k'], since: 100 }])
    expect(two.answering('a.b', ['k'], 100)).toMatchObject({ keys: ['k'] })
  })
})
