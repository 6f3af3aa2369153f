import { describe, expect, it } from 'vitest'
import { createRegistryWriteCache } from '../../src/writer/registry-write-cache.js'

const DAY = 86_400_000
const T = Date.UTC(2026, 10, 21, 10, 0)
const seen = (firstSeen, lastSeen = firstSeen) => ({ firstSeen, lastSeen })

describe('registry write cache', () => {
  it('covers nothing it has not written', () => {
    expect(createRegistryWriteCache().covers('a', seen(T), T)).toBe(false)
  })

  it('covers an update within a minute of the last seen written, on the same day, not moving first seen back', () => {
    const cache = createRegistryWriteCache()
    cache.record('a', seen(T - 5_000, T), T)
    expect(cache.covers('a', seen(T - 5_000, T + 59_999), T + 60_000)).toBe(true)
    expect(cache.covers('a', seen(T, T + 60_000), T + 60_000)).toBe(false) // last seen a minute on
    expect(cache.covers('a', seen(T - 5_001, T), T)).toBe(false) // first seen earlier
    expect(cache.covers('a', seen(T), T + DAY)).toBe(false) // a new day: an entry deleted through another instance is made again
    expect(cache.covers('b', seen(T), T)).toBe(false)
  })

  it('widens what it remembers, and forgets the oldest written past its limit', () => {
    const cache = createRegistryWriteCache({ limit: 2 })
    cache.record('a', seen(T), T)
    cache.record('a', seen(T - 1000, T + 30_000), T)
    expect(cache.covers('a', seen(T - 1000, T + 89_000), T)).toBe(true)
    cache.record('b', seen(T), T)
    cache.record('c', seen(T), T)
    expect(cache.size()).toBe(2)
    expect(cache.covers('a', seen(T), T)).toBe(false)
    expect(cache.covers('c', seen(T), T)).toBe(true)
  })
})

describe('busy marking (the sweep preallocates busy metrics only)', () => {
  const MIN = 60_000
  const HOUR = 60 * MIN

  it('marks a metric busy once it was written in busyMinutes distinct minutes of one hour, once a day', () => {
    const cache = createRegistryWriteCache({ busyMinutes: 3 })
    // several writes in one minute count once
    expect(cache.busyDayToMark('a', T)).toBe(null)
    expect(cache.busyDayToMark('a', T + 10_000)).toBe(null)
    expect(cache.busyDayToMark('a', T + MIN)).toBe(null)
    const day = Date.UTC(2026, 10, 21)
    expect(cache.busyDayToMark('a', T + 2 * MIN)).toBe(day)
    // not acknowledged yet: asked again
    expect(cache.busyDayToMark('a', T + 2 * MIN + 1)).toBe(day)
    cache.record('a', { ...seen(T), busyDay: day }, T + 2 * MIN)
    expect(cache.busyDayToMark('a', T + 3 * MIN)).toBe(null)
    // the next day: marked again once busy again
    const next = T + DAY
    expect(cache.busyDayToMark('a', next)).toBe(null)
    expect(cache.busyDayToMark('a', next + MIN)).toBe(null)
    expect(cache.busyDayToMark('a', next + 2 * MIN)).toBe(day + DAY)
  })

  it('never marks a sparse metric: minutes in different hours do not add up', () => {
    const cache = createRegistryWriteCache({ busyMinutes: 3 })
    for (let h = 0; h < 24; h++) {
      expect(cache.busyDayToMark('sparse', Date.UTC(2026, 10, 21, h, 5))).toBe(null)
      expect(cache.busyDayToMark('sparse', Date.UTC(2026, 10, 21, h, 40))).toBe(null)
    }
    expect(cache.busyDayToMark('other', T + HOUR)).toBe(null)
  })

  it('forgets what it saw of a deleted metric', () => {
    const cache = createRegistryWriteCache({ busyMinutes: 2 })
    cache.busyDayToMark('a', T)
    cache.forget('a')
    expect(cache.busyDayToMark('a', T + MIN)).toBe(null)
  })
})
