import { describe, expect, it } from 'vitest'
import { eventIncrements } from '../../../src/bucket/increments.js'
import { dayZeroIncrements } from '../../../src/bucket/minute-fields.js'
import { flatCollection, flatIncrements } from '../../../scripts/loadgen/layouts.js'

describe('the talk\'s flat layout (the load generator\'s experiment)', () => {
  it('writes minute of day where the service writes minute.H.M', () => {
    const { daily } = eventIncrements({ metric: 'cpu', value: 1, time: Date.UTC(2026, 10, 21, 23, 59) })
    expect(flatIncrements(daily.inc)).toEqual({ daily: 1, 'hourly.23': 1, 'quarterHourly.23.3': 1, 'minute.1439': 1 })
    const { daily: early } = eventIncrements({ metric: 'cpu', value: 2, time: Date.UTC(2026, 10, 21, 1, 7) })
    expect(flatIncrements(early.inc)['minute.67']).toBe(2)
  })

  it('a zero-filled day has the 1440 flat minutes, once each, and the tiers above as they are', () => {
    const zero = flatIncrements(dayZeroIncrements())
    const minutes = Object.keys(zero).filter(k => k.startsWith('minute.'))
    expect(new Set(minutes)).toEqual(new Set(Array.from({ length: 1440 }, (_, i) => `minute.${i}`)))
    expect(Object.keys(zero).filter(k => k.startsWith('hourly.'))).toHaveLength(24)
    expect(Object.keys(zero).filter(k => k.startsWith('quarterHourly.'))).toHaveLength(96)
  })

  it('a flat collection renames the minute fields of every update it is given, and nothing else', async () => {
    const seen = []
    const collection = {
      updateOne: async (filter, update, options) => seen.push(['updateOne', filter, update, options]),
      bulkWrite: async (ops, options) => seen.push(['bulkWrite', ops, options])
    }
    const flat = flatCollection(collection)
    await flat.updateOne({ _id: 'a' }, { $inc: { 'minute.2.3': 1, daily: 1 }, $setOnInsert: { metric: 'a' } }, { upsert: true })
    await flat.bulkWrite([{ updateOne: { filter: { _id: 'b' }, update: { $inc: { 'minute.0.0': 4 } }, upsert: true } }], { ordered: false })
    expect(seen).toEqual([
      ['updateOne', { _id: 'a' }, { $inc: { 'minute.123': 1, daily: 1 }, $setOnInsert: { metric: 'a' } }, { upsert: true }],
      ['bulkWrite', [{ updateOne: { filter: { _id: 'b' }, update: { $inc: { 'minute.0': 4 } }, upsert: true } }], { ordered: false }]
    ])
  })
})
