// The remembered answers of the tag rules give what ./series-name.js gives
// (the oracle: judged in full every time), asked once or again, in any
// order; text made to look like an answer already kept is judged again;
// and a request of 100,000 distinct tag sets keeps the cache within bounds.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { SERIES_NAME_CACHE_LIMITS, createSeriesNameCache } from '../../src/tags/series-name-cache.js'
import { findInvalidSeries, seriesOfEvent } from '../../src/tags/series-name.js'
import { toEvents } from '../../src/routes/event-input.js'

const NOW = Date.UTC(2026, 10, 29, 12)
const key = fc.oneof(fc.constantFrom('route', 'status', 'a', 'b', 'name', '__proto__', '~k', 'a b', ''), fc.stringMatching(/^[A-Za-z0-9_.-]{1,8}$/))
const value = fc.oneof(fc.constantFrom('/login', '500', 'x', '', 'a;b', 'a=b', '~x', 'a\u0000b', '\u0000', 'v\u0000b\u00002', '\udc00'), fc.string({ maxLength: 6 }))
const tags = fc.option(fc.dictionary(key, value, { maxKeys: 4 }), { nil: undefined })
const metric = fc.oneof(fc.constantFrom('web.req', 'web.req;status=500', 'web.req;z=1;a=2', 'web.req;a', '-bad', 'web.req;k=\u0000', 'web.req\u0000a'), fc.stringMatching(/^[a-z][a-z.;=0-9]{0,12}$/))

describe('series name cache', () => {
  it('answers as the tag rules do, the first time and every time after, in any order', () => {
    fc.assert(fc.property(fc.array(fc.tuple(metric, tags), { minLength: 1, maxLength: 40 }), (events) => {
      const cache = createSeriesNameCache()
      for (const [m, t] of [...events, ...events.toReversed(), ...events]) {
        expect(cache.seriesOfEvent(m, t)).toEqual(seriesOfEvent(m, t))
        const list = [{ metric: m }]
        if (typeof m === 'string') expect(cache.findInvalidSeries(list)).toEqual(findInvalidSeries(list))
      }
    }), { numRuns: 300 })
  })

  it('a metric and tags spelling a kept answer\'s text with \\0 are judged, not found', () => {
    const cache = createSeriesNameCache()
    expect(cache.seriesOfEvent('m', { a: '1', b: '2' })).toEqual({ series: 'm;a=1;b=2' })
    for (const [m, t] of [['m', { a: '1\u0000b\u00002' }], ['m\u0000a\u00001', { b: '2' }], ['m\u0000a', { 1: '', b: '2' }]]) {
      const answer = cache.seriesOfEvent(m, t)
      expect(answer.problem).toBeDefined()
      expect(answer).toEqual(seriesOfEvent(m, t))
    }
    // a kept door's text sent as a series name: not a series
    expect(cache.seriesOfEvent('m;a=1', undefined)).toEqual({ series: 'm;a=1' })
    const asName = [{ metric: 'm;a=1\u0000n' }]
    expect(cache.findInvalidSeries(asName)).toEqual(findInvalidSeries(asName))
    expect(cache.findInvalidSeries(asName)).not.toBe(null)
  })

  it('a value not a string is refused as the rules refuse it', () => {
    const cache = createSeriesNameCache()
    expect(cache.seriesOfEvent('m', { a: '5' })).toEqual({ series: 'm;a=5' })
    expect(cache.seriesOfEvent('m', { a: 5 })).toEqual(seriesOfEvent('m', { a: 5 }))
    expect(cache.seriesOfEvent('m', { a: 5 }).problem).toMatch(/must be a string/)
  })

  it('a request of 100,000 distinct tag sets: the same events as judged in full, the cache within its bounds', () => {
    const cache = createSeriesNameCache()
    const list = Array.from({ length: 100_000 }, (_, i) => ({ metric: `web.req${i % 7}`, tags: { customer: `c${i}`, route: `/r/${'x'.repeat(i % 100)}`, status: String(i % 5) } }))
    const remembered = toEvents(list, NOW, cache)
    expect(remembered).toEqual(toEvents(list, NOW))
    expect(remembered.events).toHaveLength(100_000)
    expect(cache.size).toBeLessThanOrEqual(SERIES_NAME_CACHE_LIMITS.maxEntries)
    expect(cache.chars).toBeLessThanOrEqual(SERIES_NAME_CACHE_LIMITS.maxChars)
    // the ingest service's check of the same events finds no problem, within the same bounds
    expect(cache.findInvalidSeries(remembered.events)).toBe(null)
    expect(cache.size).toBeLessThanOrEqual(SERIES_NAME_CACHE_LIMITS.maxEntries)
    // and what it keeps is in use: the last series are found again
    const again = toEvents(list.slice(-10), NOW, cache)
    expect(again.events.map(e => e.metric)).toEqual(remembered.events.slice(-10).map(e => e.metric))
  })

  it('a series judged once is the same text every time (its events share it)', () => {
    const cache = createSeriesNameCache()
    const [a, b] = toEvents([{ metric: 'w', tags: { s: '1', r: '/' } }, { metric: 'w', tags: { r: '/', s: '1' } }], NOW, cache).events
    expect(a.metric).toBe('w;r=/;s=1')
    expect(b.metric).toBe(a.metric)
  })
})
