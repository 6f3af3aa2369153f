import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { buildDistributionTiers, buildDistributionUnit, mergeDistributionUnits } from '../../src/bucket/distribution-increments.js'
import { createMapping } from '../../src/bucket/distribution-sketch.js'
import { DAILY_TIER } from '../../src/bucket/tier-paths.js'
import { createThresholds, parseThresholdRules } from '../../src/bucket/distribution-thresholds.js'
import { addTieredDocument, addTiersToUpdate, bucketsAt, updateOf, updateOfTiers } from '../../src/bucket/tiered-document.js'

const mapping = createMapping(0.01)
const start = Date.UTC(2026, 0, 30)
const event = fc.record({
  metric: fc.constantFrom('api.latency', 'db:query'),
  value: fc.oneof(fc.double({ min: -3, max: 6, noNaN: true }).map(e => 10 ** e), fc.double({ min: -3, max: 6, noNaN: true }).map(e => -(10 ** e)), fc.constantFrom(0, -0, 87)),
  time: fc.integer({ min: start, max: start + 3 * 86_400_000 - 1 }),
  weight: fc.constantFrom(1, 1, 10, 1 / 0.3)
})
// api.latency keeps threshold counts (le.<key>) at every tier, as its buckets are merged
const thresholds = createThresholds(parseThresholdRules('{"api.*": [1, 87, 1000]}').rules)
const options = { keepsMinutes: (metric, dayStart) => metric !== 'db:query' || dayStart > start, thresholdsOf: thresholds.of }
// an update as its fields go out, in order: what the operation's BSON holds
const ordered = ({ metric, date, inc, min, max, detail }) => ({ metric, date, inc: Object.entries(inc), min: Object.entries(min), max: Object.entries(max), detail })
const orderedAll = (docs) => [...docs].map(([id, update]) => [id, ordered(update)])

describe('tiered documents', () => {
  it('a batch\'s, as updates, are buildDistributionUnit\'s, fields in the same order', () => {
    fc.assert(fc.property(fc.array(event, { minLength: 1, maxLength: 300 }), (events) => {
      const tiers = buildDistributionTiers(events, mapping, options)
      const unit = buildDistributionUnit(events, mapping, options)
      for (const part of ['daily', 'monthly']) {
        expect(orderedAll([...tiers[part]].map(([id, doc]) => [id, updateOfTiers(doc)]))).toEqual(orderedAll(unit[part]))
      }
      const counted = events.some(e => e.metric === 'api.latency' && e.value <= 1000)
      expect([...unit.daily.values()].some(u => Object.keys(u.inc).some(p => p.includes('.le.')))).toBe(counted)
    }), { numRuns: 100 })
  })

  it('merged (a flush), as updates, are the flat updates merged: the same fields in the same order, sums added in the same order; the inputs not changed', () => {
    fc.assert(fc.property(fc.array(fc.array(event, { minLength: 1, maxLength: 120 }), { minLength: 1, maxLength: 8 }), (batches) => {
      const flat = mergeDistributionUnits(batches.map(events => buildDistributionUnit(events, mapping, options)))
      const units = batches.map(events => buildDistributionTiers(events, mapping, options))
      const before = units.map(u => orderedAll([...u.daily].map(([id, doc]) => [id, updateOfTiers(doc)])))
      for (const part of ['daily', 'monthly']) {
        const merged = new Map()
        for (const unit of units) for (const [id, doc] of unit[part]) addTieredDocument(merged, id, doc)
        expect(orderedAll([...merged].map(([id, doc]) => [id, updateOfTiers(doc)]))).toEqual(orderedAll(flat[part]))
        // merged documents merged again (a unit of several accuracies, then a flush): the same
        const again = new Map()
        for (const [id, doc] of merged) addTieredDocument(again, id, doc)
        expect(orderedAll([...again].map(([id, doc]) => [id, updateOfTiers(doc)]))).toEqual(orderedAll(flat[part]))
      }
      expect(units.map(u => orderedAll([...u.daily].map(([id, doc]) => [id, updateOfTiers(doc)])))).toEqual(before)
    }), { numRuns: 100 })
  })

  it('merged straight into updates (a flush\'s merge), are the flat updates merged, fields in the same order; built, merged or flat, the inputs not changed', () => {
    fc.assert(fc.property(fc.array(fc.array(event, { minLength: 1, maxLength: 120 }), { minLength: 1, maxLength: 8 }), (batches) => {
      const flat = mergeDistributionUnits(batches.map(events => buildDistributionUnit(events, mapping, options)))
      const units = batches.map(events => buildDistributionTiers(events, mapping, options))
      const before = units.map(u => orderedAll([...u.daily].map(([id, doc]) => [id, updateOfTiers(doc)])))
      for (const part of ['daily', 'monthly']) {
        const merged = new Map()
        for (const unit of units) for (const [id, doc] of unit[part]) addTiersToUpdate(merged, id, doc)
        expect(orderedAll([...merged].map(([id, doc]) => [id, updateOf(doc)]))).toEqual(orderedAll(flat[part]))
        // a unit of several accuracies (merged tiers), and flat updates merged again: the same
        const tiers = new Map()
        for (const unit of units) for (const [id, doc] of unit[part]) addTieredDocument(tiers, id, doc)
        const fromTiers = new Map()
        for (const [id, doc] of tiers) addTiersToUpdate(fromTiers, id, doc)
        expect(orderedAll(fromTiers)).toEqual(orderedAll(flat[part]))
        const again = new Map()
        for (const [id, doc] of merged) addTiersToUpdate(again, id, doc)
        expect(orderedAll(again)).toEqual(orderedAll(flat[part]))
      }
      expect(units.map(u => orderedAll([...u.daily].map(([id, doc]) => [id, updateOfTiers(doc)])))).toEqual(before)
    }), { numRuns: 100 })
  })

  it('count the buckets of a tier', () => {
    const { daily } = buildDistributionTiers([1, 1, 2, 0, -5].map(value => ({ metric: 'm', value, time: start })), mapping)
    const doc = daily.values().next().value
    expect(bucketsAt(doc, DAILY_TIER)).toBe(4)
    expect(bucketsAt(doc, { path: 'absent' })).toBe(0)
  })
})
