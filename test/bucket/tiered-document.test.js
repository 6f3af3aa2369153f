import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { buildDistributionTiers, buildDistributionUnit, mergeDistributionUnits } from '../../src/bucket/distribution-increments.js'
import { createMapping } from '../../src/bucket/distribution-sketch.js'
import { createThresholds, parseThresholdRules } from '../../src/bucket/distribution-thresholds.js'
import { updateOfTiers } from '../../src/bucket/tiered-document.js'
import { distributionKind } from '../../src/bucket/metric-kinds.js'
import { buildWriteUnit, mergeWriteUnits } from '../../src/kinds/write-unit.js'

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

/** The same update but for its fields' order */
function expectSameUpdate (actual, expected) {
  expect(actual.metric).toBe(expected.metric)
  expect(actual.date).toEqual(expected.date)
  expect(actual.detail).toBe(expected.detail)
  expect(actual.min).toEqual(expected.min)
  expect(actual.max).toEqual(expected.max)
  expect(Object.keys(actual.inc).sort()).toEqual(Object.keys(expected.inc).sort())
  for (const [path, n] of Object.entries(expected.inc)) expect(actual.inc[path]).toBe(n)
}

// whole values and weights: their sums are exact in any order (a flush adds a day's values in the order they
// came, where merging each request's sums added those: sums of fractions may differ in their last bits)
const wholeEvent = fc.record({
  metric: fc.constantFrom('api.latency', 'db:query'),
  value: fc.oneof(fc.integer({ min: -1_000_000, max: 1_000_000 }), fc.constantFrom(0, -0, 87)),
  time: fc.integer({ min: start, max: start + 3 * 86_400_000 - 1 }),
  weight: fc.constantFrom(1, 1, 10)
})

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

  it('a flush\'s, built from its units\' values in queue order, are the flat updates of each unit merged: every field and value but their order; each unit with its own horizons; the units not changed', () => {
    const kind = distributionKind(0.01)
    // a request's horizons: the minutes of db:query's first day kept or not, as a horizon passes between two requests
    const optionsOf = (keepsFirstDay) => ({ ...options, keepsMinutes: (metric, dayStart) => metric !== 'db:query' || dayStart > start || keepsFirstDay })
    fc.assert(fc.property(fc.array(fc.record({ events: fc.array(wholeEvent, { minLength: 1, maxLength: 120 }), keepsFirstDay: fc.boolean() }), { minLength: 1, maxLength: 8 }), (batches) => {
      const flat = mergeDistributionUnits(batches.map(({ events, keepsFirstDay }) => buildDistributionUnit(events, mapping, optionsOf(keepsFirstDay))))
      const units = batches.map(({ events, keepsFirstDay }) => buildWriteUnit(events.map(e => ({ ...e, kind: 'distribution' })), { ...optionsOf(keepsFirstDay), kindOf: () => kind }))
      const built = () => mergeWriteUnits(units)
      const flush = built()
      for (const [part, collection] of [['daily', 'distributionDaily'], ['monthly', 'distributionMonthly']]) {
        // the ids a unit holds (what the queue counts) are its documents'
        expect(new Set(units.flatMap(u => [...u[collection].keys()]))).toEqual(new Set(flat[part].keys()))
        expect(new Set(flush[collection].keys())).toEqual(new Set(flat[part].keys()))
        for (const [id, doc] of flush[collection]) expectSameUpdate(updateOfTiers(doc), flat[part].get(id))
      }
      expect(new Set(units.flatMap(u => [...u.distributionMinutes.keys()]))).toEqual(new Set(flat.minutes.keys()))
      for (const [id, doc] of flush.distributionMinutes) expectSameUpdate({ ...doc, min: {}, max: {} }, { ...flat.minutes.get(id), min: {}, max: {} })
      // built again (a keyed flush's retry): the same, the held values not spent
      const again = built()
      for (const collection of ['distributionDaily', 'distributionMonthly']) {
        expect(orderedAll([...again[collection]].map(([id, doc]) => [id, updateOfTiers(doc)]))).toEqual(orderedAll([...flush[collection]].map(([id, doc]) => [id, updateOfTiers(doc)])))
      }
    }), { numRuns: 100 })
  })
})
