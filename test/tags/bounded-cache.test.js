// The bounded memo: what was set is found while it is in use, and no
// stream of distinct keys holds more than its entries and characters.
import { describe, expect, it } from 'vitest'
import { createBoundedCache } from '../../src/tags/bounded-cache.js'

describe('bounded cache', () => {
  it('finds what was set, the value it was set with', () => {
    const cache = createBoundedCache({ maxEntries: 10, maxChars: 1000 })
    expect(cache.get('a')).toBeUndefined()
    cache.set('a', 1, 1)
    cache.set('b', { x: 2 }, 1)
    expect(cache.get('a')).toBe(1)
    expect(cache.get('b')).toEqual({ x: 2 })
    expect(cache.size).toBe(2)
    expect(cache.chars).toBe(2)
  })

  it('100,000 distinct keys hold at most maxEntries entries and maxChars characters, at every step', () => {
    const cache = createBoundedCache({ maxEntries: 1000, maxChars: 20_000 })
    let largest = 0
    let most = 0
    for (let i = 0; i < 100_000; i++) {
      const key = `key ${i} ${'x'.repeat(i % 50)}`
      cache.set(key, i, key.length)
      largest = Math.max(largest, cache.size)
      most = Math.max(most, cache.chars)
    }
    expect(largest).toBeLessThanOrEqual(1000)
    expect(most).toBeLessThanOrEqual(20_000)
    // the latest are found, the earliest aged out
    expect(cache.get(`key 99999 ${'x'.repeat(99_999 % 50)}`)).toBe(99_999)
    expect(cache.get('key 0 ')).toBeUndefined()
  })

  it('an entry heavier than a generation is not kept', () => {
    const cache = createBoundedCache({ maxEntries: 10, maxChars: 100 })
    cache.set('big', 1, 51)
    expect(cache.get('big')).toBeUndefined()
    expect(cache.chars).toBe(0)
  })

  it('a key in use stays while new keys stream past; the others age out', () => {
    const cache = createBoundedCache({ maxEntries: 10, maxChars: 1000 })
    cache.set('kept', 'v', 1)
    for (let i = 0; i < 1000; i++) {
      cache.set(`n${i}`, i, 1)
      expect(cache.get('kept')).toBe('v')
      expect(cache.size).toBeLessThanOrEqual(10)
    }
    expect(cache.get('n0')).toBeUndefined()
    expect(cache.get('n999')).toBe(999)
  })
})
