// graphite-web's TagDB over the tag index (src/graphite/tag-db.js), pure:
// the rules the oracle test cannot reach (budgets, turns of the event loop,
// code-point order); graphite-web's answers: test/graphite/tags-oracle.test.js.
import { describe, expect, it } from 'vitest'
import { createTagIndex } from '../../src/registry/tag-index.js'
import { createTagDb, parseLimit } from '../../src/graphite/tag-db.js'

function indexOf (series) {
  const tags = createTagIndex()
  for (const s of series) tags.add(s)
  return tags
}

describe('the tag database', () => {
  it('finds series across names, the name a tag, sorted by code point as graphite-web sorts', async () => {
    const db = createTagDb({ tags: indexOf(['b.x;k=\uffff', 'b.x;k=\u{1F600}', 'a.x;k=v', 'a.y;j=w']), turn: async () => {} })
    expect(await db.findSeries(['k=~.+'])).toEqual(['a.x;k=v', 'b.x;k=\uffff', 'b.x;k=\u{1F600}'])
    expect(await db.findSeries(['name=~a', 'k='])).toEqual(['a.y;j=w'])
    expect(await db.autoCompleteValues(['name=b.x'], 'k')).toEqual(['\uffff', '\u{1F600}'])
    expect(await db.autoCompleteTags([], { limit: 2 })).toEqual(['j', 'k'])
    expect(await db.listTags({ limit: 0 })).toEqual([])
  })

  it('refuses past maxSeries naming MAX_SERIES and what asked, and expressions that all match the empty value', async () => {
    const db = createTagDb({ tags: indexOf(Array.from({ length: 20 }, (_, i) => `m${i % 4}.x;k=v${i}`)), turn: async () => {} })
    await expect(db.findSeries(['k=~v'], { maxSeries: 10, what: "seriesByTag('k=~v')" })).rejects.toThrow(/seriesByTag\('k=~v'\) matches more than MAX_SERIES = 10/)
    await expect(db.findSeries(['k!=v1', 'j=~.*'])).rejects.toThrow(/must require a value/)
    await expect(db.findSeries(Array.from({ length: 17 }, () => 'k=v'))).rejects.toThrow(/at most 16 tag expressions/)
    await expect(db.listTags({ filter: '(a)\\1' })).rejects.toThrow(/RE2/)
    expect(() => parseLimit('1e3')).toThrow(/whole number/)
  })

  it('gives the event loop a turn after each name searched; a key\'s listing and autocomplete read its values, walking no name', async () => {
    let turns = 0
    const tags = indexOf(Array.from({ length: 600 }, (_, i) => `m${i}.x;k=v${i % 7};j=w`))
    const walked = { names: 0, seriesOf: 0 }
    const counting = { ...tags, names: () => { walked.names++; return tags.names() }, seriesOf: (n) => { walked.seriesOf++; return tags.seriesOf(n) } }
    const db = createTagDb({ tags: counting, turn: async () => { turns++ } })
    await db.findSeries(['k=v1'])
    expect(turns).toBe(600)
    turns = 0
    walked.names = 0
    expect(await db.getTag('k', { prefix: 'v', limit: 3 })).toEqual({ tag: 'k', values: [0, 1, 2].map(i => ({ value: `v${i}`, count: i === 6 ? 85 : 86 })) })
    expect(await db.autoCompleteValues([], 'k', { valuePrefix: 'v6' })).toEqual(['v6'])
    expect(await db.listTags()).toEqual([{ tag: 'j' }, { tag: 'k' }, { tag: 'name' }])
    expect(walked.names).toBe(1) // listTags: whether any name is tagged
    expect(turns).toBe(0)
    expect(await db.autoCompleteValues(['name=m3.x'], 'k')).toEqual(['v3'])
    expect(walked.seriesOf).toBe(0)
  })
})
