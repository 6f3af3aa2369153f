// Series names: the canonical form is Graphite 1.1's whatever order the tags
// come in, parsing gives back what was formatted, and every rule refuses
// with a message naming it — checked against a model written here.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { checkTags, findInvalidSeries, formatSeriesName, nameOfSeries, parseSeriesName, seriesOfEvent, tagsOfSeries } from '../../src/tags/series-name.js'
import { bucketId, parseBucketId } from '../../src/bucket/time.js'

const key = fc.stringMatching(/^[A-Za-z0-9_.-]{1,64}$/).filter(k => !['name', '__proto__', 'constructor', 'prototype'].includes(k))
const value = fc.string({ minLength: 1, maxLength: 128, unit: 'grapheme' })
  .filter(v => !/[;=\u0000-\u001f\u007f-\u009f]/.test(v) && v[0] !== '~' && [...v].length <= 128 && v.isWellFormed()) // eslint-disable-line no-control-regex
const tagMap = fc.dictionary(key, value, { minKeys: 1, maxKeys: 16 })
const name = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,30}$/)
// the model: Graphite's TaggedSeries.format — the name, then ;key=value for each tag, keys sorted
const graphiteFormat = (n, tags) => n + Object.keys(tags).sort().map(k => `;${k}=${tags[k]}`).join('')

describe('series names', () => {
  it('canonical as Graphite formats them, whatever the order of the tags; parse gives back name, tags and the same name', () => {
    fc.assert(fc.property(name, tagMap, fc.boolean(), (n, tags, reversed) => {
      const pairs = Object.entries(tags)
      if (reversed) pairs.reverse()
      const series = formatSeriesName(n, pairs)
      expect(series).toBe(graphiteFormat(n, tags))
      const parsed = parseSeriesName(series)
      expect(parsed).toEqual({ name: n, tags: Object.entries(tags).sort(([a], [b]) => (a < b ? -1 : 1)), series })
      expect(nameOfSeries(series)).toBe(n)
      expect(Object.fromEntries(tagsOfSeries(series))).toEqual(tags)
      // a name written in any order is made canonical; an event's tag object joins the name's tags
      expect(seriesOfEvent(n + pairs.map(([k, v]) => `;${k}=${v}`).join(''), undefined)).toEqual({ series })
      expect(seriesOfEvent(n, tags)).toEqual({ series })
      expect(findInvalidSeries([{ metric: series }])).toBe(null)
    }))
  })

  it('an id escapes / and % of a series name, and gives it back; one series\' ids never prefix another\'s', () => {
    fc.assert(fc.property(name, tagMap, (n, tags) => {
      const series = formatSeriesName(n, Object.entries(tags))
      const id = bucketId(series, '20261121')
      expect(id.split('/')).toHaveLength(2)
      expect(parseBucketId(id)).toEqual({ metric: series, date: Date.UTC(2026, 10, 21) })
    }))
    expect(bucketId('a;r=/x', '202611')).toBe('a;r=%2Fx/202611')
    expect(bucketId('a;r=%2F', '202611')).toBe('a;r=%252F/202611')
    expect(parseBucketId('a;r=%252F/202611').metric).toBe('a;r=%2F')
    expect(bucketId('plain.name', '202611')).toBe('plain.name/202611')
    // `a;r=/x/y` and `a;r=/x`: without escaping, the second's prefix `a;r=/x/` held the first's ids
    expect(bucketId('a;r=/x/y', '20261121').startsWith('a;r=%2Fx/')).toBe(false)
  })

  it.each([
    [[['name', 'x']], /reserved/],
    [[['__proto__', 'x']], /reserved/],
    [[['constructor', 'x']], /reserved/],
    [[['prototype', 'x']], /reserved/],
    [[['', 'x']], /not a tag key/],
    [[['k'.repeat(65), 'x']], /not a tag key/],
    [[['a b', 'x']], /not a tag key/],
    [[['k', '']], /empty value/],
    [[['k', 'v'.repeat(129)]], /longer than 128/],
    [[['k', 'x'.repeat(1_000_000)]], /longer than 128/],
    [[['k', 'a;b']], /without ; or =/],
    [[['k', 'a=b']], /without ; or =/],
    [[['k', '~x']], /not starting with ~/],
    [[['k', 'a\u0007']], /breaks the rule/],
    [[['k', '\udc00']], /lone surrogate/],
    [[['k', 5]], /must be a string/],
    [[['k', '1'], ['k', '2']], /given twice/],
    [Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v']), /at most 16/],
    [Array.from({ length: 10_000 }, (_, i) => [`k${i}`, 'v']), /at most 16/]
  ])('refused %#, naming the rule', (pairs, message) => {
    expect(checkTags(pairs).problem).toMatch(message)
  })

  it('a 128-character value of astral characters is kept (characters, not UTF-16 units)', () => {
    expect(checkTags([['k', '😀'.repeat(128)]]).problem).toBeUndefined()
    expect(checkTags([['k', '😀'.repeat(129)]]).problem).toMatch(/longer than 128/)
  })

  it('names that break the rules, and names out of canonical order from a door', () => {
    expect(parseSeriesName('-bad;k=v').problem).toMatch(/not a metric name/)
    expect(parseSeriesName('a;k').problem).toMatch(/is not a tag/)
    expect(parseSeriesName('a;=v').problem).toMatch(/is not a tag/)
    expect(parseSeriesName(`a${';k=v'.repeat(10_000)}`).problem).toMatch(/at most/)
    expect(findInvalidSeries([{ metric: 'a' }, { metric: 'a;z=1;b=2' }])).toEqual({ index: 1, field: 'metric', message: expect.stringMatching(/canonical order: "a;b=2;z=1"/) })
  })
})
