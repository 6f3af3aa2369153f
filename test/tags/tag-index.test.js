// The tag index against a brute-force model (every series' tags, filtered
// one by one): matches, counts, keys and values stay equal through adds,
// removes and a rebuild adopted whole.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createTagIndex } from '../../src/registry/tag-index.js'
import { createNameIndex } from '../../src/registry/name-index.js'
import { parseTagFilter } from '../../src/tags/tag-filter.js'
import { RegexBudgetError } from '../../src/graphite/regex.js'

const seriesArb = fc.record({
  name: fc.constantFrom('a', 'b.c'),
  tags: fc.dictionary(fc.constantFrom('route', 'status', 'az'), fc.constantFrom('1', '2', '/x', 'zz'), { minKeys: 1, maxKeys: 3 })
}).map(({ name, tags }) => name + Object.keys(tags).sort().map(k => `;${k}=${tags[k]}`).join(''))
const tagsOf = (s) => Object.fromEntries(s.split(';').slice(1).map(t => t.split('=')))

describe('the tag index', () => {
  it('equals the brute-force model through adds and removes', () => {
    const filterArb = fc.array(fc.tuple(fc.constantFrom('route', 'status', 'az'), fc.constantFrom('=', '!=', '=~', '!=~'), fc.constantFrom('1', '2', '/x', '', 'z')), { maxLength: 3 })
    fc.assert(fc.property(fc.array(fc.tuple(fc.boolean(), seriesArb), { maxLength: 60 }), filterArb, (ops, specs) => {
      const index = createTagIndex()
      const model = new Set()
      for (const [add, s] of ops) {
        if (add) { index.add(s); model.add(s) } else { index.remove(s); model.delete(s) }
      }
      const filters = specs.map(([k, op, v]) => parseTagFilter(`${k}${op}${v}`))
      for (const name of ['a', 'b.c']) {
        const mine = [...model].filter(s => s.split(';')[0] === name)
        expect(index.count(name)).toBe(mine.length)
        expect(index.match(name, filters)).toEqual(mine.filter(s => filters.every(f => f.matches(tagsOf(s)[f.key]))).sort())
        const keys = {}
        for (const s of mine) for (const [k, v] of Object.entries(tagsOf(s))) (keys[k] ??= new Set()).add(v)
        expect(index.keysOf(name)).toEqual(Object.keys(keys).sort().map(key => ({ key, values: keys[key].size })))
        for (const key of Object.keys(keys)) {
          expect(index.valuesOf(name, key)).toEqual([...keys[key]].sort().map(value => ({ value, series: mine.filter(s => tagsOf(s)[key] === value).length })))
        }
        const matched = mine.filter(s => filters.every(f => f.matches(tagsOf(s)[f.key])))
        for (const key of ['route', 'status', 'az']) {
          for (const prefix of ['', '/', 'z']) {
            const values = new Set(matched.map(s => tagsOf(s)[key]).filter(v => v !== undefined && v.startsWith(prefix)))
            expect(index.valuesAmong(name, key, filters, prefix).sort()).toEqual([...values].sort())
          }
        }
      }
      for (const key of ['route', 'status', 'az']) {
        const counts = {}
        for (const s of model) if (tagsOf(s)[key] !== undefined) counts[tagsOf(s)[key]] = (counts[tagsOf(s)[key]] ?? 0) + 1
        const all = Object.keys(counts).sort().map(value => ({ value, series: counts[value] }))
        expect(index.allValuesOf(key)).toEqual(all)
        expect(index.allValuesOf(key, { prefix: 'z', limit: 1 })).toEqual(all.filter(v => v.value.startsWith('z')).slice(0, 1))
        expect(index.allValuesOf(key, { test: v => v !== '1' })).toEqual(all.filter(v => v.value !== '1'))
        expect(index.hasKey(key)).toBe(all.length > 0)
      }
      expect(index.size()).toBe(model.size)
    }))
  })

  it('the name index hands tagged series to its tag index, and a rebuild adopts both', () => {
    const names = createNameIndex()
    names.add('web.requests')
    names.add('web.requests;route=/a')
    expect(names.has('web.requests')).toBe(true)
    expect(names.size()).toBe(1) // a series is no name of the trie: Graphite finds it by tag
    expect([...names.tags.seriesOf('web.requests')]).toEqual(['web.requests;route=/a'])
    const fresh = createNameIndex()
    fresh.add('web.requests;route=/b')
    names.adopt(fresh)
    expect([...names.tags.seriesOf('web.requests')]).toEqual(['web.requests;route=/b'])
    names.remove('web.requests;route=/b')
    expect(names.tags.count('web.requests')).toBe(0)
  })

  it('keeps a declared rollup\'s series apart: never listed, counted or matched as series; found by their rollup, filtered', () => {
    const names = createNameIndex()
    names.add('web.req;route=/a;status=500')
    for (const r of ['web.req;~route;route=/a', 'web.req;~route;route=/b', 'web.req;~route', 'web.req;~route,status;route=/a;status=500']) names.add(r)
    const { tags } = names
    expect([...tags.seriesOf('web.req')]).toEqual(['web.req;route=/a;status=500'])
    expect(tags.count('web.req')).toBe(1)
    expect(tags.size()).toBe(1)
    expect(tags.keysOf('web.req')).toEqual([{ key: 'route', values: 1 }, { key: 'status', values: 1 }])
    expect(tags.names()).toEqual([{ name: 'web.req', series: 1 }])
    expect(tags.match('web.req', [parseTagFilter('route!=zz')])).toEqual(['web.req;route=/a;status=500'])
    const seriesOf = (found) => found.map(f => f.series)
    expect(seriesOf(tags.matchRollup('web.req', ['route'], []))).toEqual(['web.req;~route', 'web.req;~route;route=/a', 'web.req;~route;route=/b'])
    // a missing key reads as the empty value, as on the series
    expect(seriesOf(tags.matchRollup('web.req', ['route'], [parseTagFilter('route=')]))).toEqual(['web.req;~route'])
    expect(seriesOf(tags.matchRollup('web.req', ['route'], [parseTagFilter('route=~/[ab]')]))).toEqual(['web.req;~route;route=/a', 'web.req;~route;route=/b'])
    expect(tags.matchRollup('web.req', ['route', 'status'], [])[0].tags).toEqual(new Map([['route', '/a'], ['status', '500']]))
    expect(tags.matchRollup('web.req', ['status'], [])).toEqual([])
    names.remove('web.req;~route;route=/b')
    expect(seriesOf(tags.matchRollup('web.req', ['route'], []))).toEqual(['web.req;~route', 'web.req;~route;route=/a'])
    const fresh = createNameIndex()
    fresh.add('web.req;~route;route=/c')
    names.adopt(fresh)
    expect(seriesOf(names.tags.matchRollup('web.req', ['route'], []))).toEqual(['web.req;~route;route=/c'])
    expect(names.tags.count('web.req')).toBe(0)
  })

  it('tests each distinct value of a filter\'s key once, not each series; the filter of the fewest series starts', () => {
    const index = createTagIndex()
    for (let i = 0; i < 1000; i++) index.add(`w;customer=c${i % 100};route=/r${Math.floor(i / 100)}`)
    const counted = (expression) => {
      const filter = parseTagFilter(expression)
      const calls = { n: 0 }
      return { calls, filter: { ...filter, matches: (v) => { calls.n++; return filter.matches(v) } } }
    }
    const regex = counted('customer=~c5$')
    expect(index.match('w', [regex.filter])).toEqual(Array.from({ length: 10 }, (_, r) => `w;customer=c5;route=/r${r}`).sort())
    expect(regex.calls.n).toBe(101) // the 100 customers, and whether a series without the key passes
    const route = counted('route!=~/r[0-8]')
    const pair = [parseTagFilter('customer=c7'), route.filter]
    expect(index.match('w', pair)).toEqual(['w;customer=c7;route=/r9'])
    expect(route.calls.n).toBeLessThanOrEqual(11) // c7's 10 series' routes, not the 10 routes' 1,000 series
    expect(index.valuesAmong('w', 'route', [parseTagFilter('customer=c7')], '/r1')).toEqual(['/r1'])
  })

  it('a costly regex over many long values stops after its time with a RegexBudgetError, holding the event loop ~100 ms, not seconds', () => {
    const index = createTagIndex()
    // 3,000 distinct values of 128 characters (the most a value has); (?:.?){115}[0-9] (234 instructions, under
    // the bound; no literal to rule a value out at once) costs ~0.5 ms on each: over a second in all
    for (let i = 0; i < 3000; i++) index.add(`w;k=${'x'.repeat(122)}${String(i).padStart(6, '0')}`)
    const filter = parseTagFilter('k=~(?:.?){115}[0-9]')
    expect(filter.problem).toBeUndefined()
    // without the budget the 3,000 tests run to their end and match nothing
    expect(() => index.match('w', [filter])).toThrow(RegexBudgetError)
    // an exact filter on the same values is no regex: no budget
    expect(index.match('w', [parseTagFilter(`k=${'x'.repeat(122)}000007`)])).toEqual([`w;k=${'x'.repeat(122)}000007`])
  })
})
