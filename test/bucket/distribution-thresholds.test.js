// Declared thresholds (docs/kinds/distribution.md#thresholds): the
// DISTRIBUTION_THRESHOLDS rules, their field keys, which names they match,
// and the counts a batch of values keeps at every tier against a model of
// the raw values; the sketch's estimate against its stated bound.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { buildDistributionUnit, distributionEventUpdates } from '../../src/bucket/distribution-increments.js'
import { countAtMost, createMapping, histogramOf } from '../../src/bucket/distribution-sketch.js'
import {
  MAX_THRESHOLDS_PER_RULE, createThresholds, parseThresholdKey, parseThresholdRules, thresholdKey
} from '../../src/bucket/distribution-thresholds.js'
import { minuteField } from '../../src/bucket/minute-fields.js'
import { dayId, monthId } from '../../src/bucket/time.js'
const mapping = createMapping(0.01)

describe('DISTRIBUTION_THRESHOLDS', () => {
  it('parses globs to thresholds, sorted and without repeats', () => {
    expect(parseThresholdRules('{"web.latency*": [1000, 100, 300, 100], "db.**": [0.5]}')).toEqual({
      rules: [{ match: 'web.latency*', thresholds: [100, 300, 1000] }, { match: 'db.**', thresholds: [0.5] }]
    })
  })

  it.each([
    ['[100]', '[100]', /must be a JSON object/],
    ['{"a": 1', '{"a": 1', /is not JSON/],
    ['{"a": []}', '{"a": []}', /rule "a" must list 1–8 thresholds/],
    ['{"a": "300"}', '{"a": "300"}', /rule "a" must list/],
    ['{"a": [300, null]}', '{"a": [300, null]}', /rule "a": null is not a threshold: a number above 0, at most 1000000000000000/],
    ['{"a": [-5]}', '{"a": [-5]}', /-5 is not a threshold/],
    ['{"a": [0]}', '{"a": [0]}', /0 is not a threshold/],
    ['{"a": [1e16]}', '{"a": [1e16]}', /10000000000000000 is not a threshold/],
    ['{"a": [1e400]}', '{"a": [1e400]}', /Infinity is not a threshold/],
    ['{"": [1]}', '{"": [1]}', /a glob is 1–200 characters/],
    ['9 thresholds', `{"a": [${Array.from({ length: MAX_THRESHOLDS_PER_RULE + 1 }, (_, i) => i + 1)}]}`, /must list 1–8 thresholds/],
    ['10,000 rules', JSON.stringify(Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`m${i}`, [i + 1]]))), /holds 10000 rules; at most 64/],
    ['10,000 thresholds', `{"a": [${Array.from({ length: 10_000 }, (_, i) => i + 1)}]}`, /must list 1–8 thresholds/]
  ])('refuses %s naming what to fix', (label, text, message) => {
    const { problem } = parseThresholdRules(text)
    expect(problem).toMatch(message)
  })

  it('NaN is no JSON: refused before it is a number', () => {
    expect(parseThresholdRules('{"a": [NaN]}').problem).toMatch(/is not JSON/)
  })
})

describe('a threshold\'s field key', () => {
  it('is its shortest decimal with the point as _, and parses back; anything else is no key', () => {
    expect([300, 0.5, 1e-7, 1.5e-7, 1e15, 2.25].map(thresholdKey)).toEqual(['300', '0_5', '1e-7', '1_5e-7', '1000000000000000', '2_25'])
    fc.assert(fc.property(fc.double({ min: 1e-300, max: 1e15, noNaN: true }), t => {
      expect(thresholdKey(t)).not.toContain('.')
      expect(parseThresholdKey(thresholdKey(t))).toBe(t)
    }))
    for (const key of ['0300', '0.5', '3_', '-1', '0', '', '__proto__', '1e16', 'Infinity', '3_0']) expect(parseThresholdKey(key)).toBeNull()
  })
})

describe('createThresholds', () => {
  const { rules } = parseThresholdRules('{"web.latency*": [300, 100], "web.*": [300, 1000]}')
  const since = { 'web.latency*': 5000, 'web.*': 2000 }

  it('matches a name, its series and its rollups by the name; the union of the rules\' thresholds, each since its earliest rule', () => {
    const thresholds = createThresholds(rules, (match) => since[match])
    for (const metric of ['web.latency', 'web.latency;route=/a', 'web.latency;~route;route=/a']) {
      expect(thresholds.of(metric)).toMatchObject({ values: [100, 300, 1000], fields: ['le.100', 'le.300', 'le.1000'] })
    }
    expect(thresholds.since('web.latency', 300)).toBe(2000)
    expect(thresholds.since('web.latency;route=/a', 100)).toBe(5000)
    expect(thresholds.since('web.latency', 250)).toBeUndefined()
    expect(thresholds.of('db.latency')).toBeNull()
    expect(thresholds.of('web.latency.p99')).toBeNull() // * stays within a part
    expect(createThresholds().of('web.latency')).toBeNull()
  })
})

// the values of `events` a tier's window holds, ≤ t: the model, from the raw values
const tierWindows = (time) => {
  const d = new Date(time)
  const [h, m] = [d.getUTCHours(), d.getUTCMinutes()]
  return {
    daily: ['daily', `hourly.${h}`, `quarterHourly.${h}.${Math.floor(m / 15)}`, minuteField(h, m)],
    monthly: ['monthly', `daily.${d.getUTCDate()}`]
  }
}

describe('a batch\'s threshold counts', () => {
  const start = Date.UTC(2026, 0, 30)
  const values = fc.oneof(fc.double({ min: -3, max: 4, noNaN: true }).map(e => 10 ** e), fc.constantFrom(0, -0, -7, 100, 300, 1000, 300.0000001, 99.99))
  const events = fc.array(fc.record({
    metric: fc.constantFrom('web.latency', 'web.latency;route=/a', 'db.query'),
    value: values,
    time: fc.integer({ min: start, max: start + 3 * 86_400_000 - 1 }),
    weight: fc.constantFrom(1, 1, 2.5)
  }), { minLength: 1, maxLength: 200 })
  const thresholds = createThresholds(parseThresholdRules('{"web.latency": [100, 300, 1000]}').rules)

  it('every tier keeps the weight of the values ≤ each threshold, in the same update as its count; no threshold, no le field', () => {
    fc.assert(fc.property(events, (list) => {
      const unit = buildDistributionUnit(list, mapping, { thresholdsOf: thresholds.of })
      const model = new Map() // `${collection} ${id} ${tier}.le.${key}` → weight
      for (const e of list) {
        const of = thresholds.of(e.metric)
        const windows = tierWindows(e.time)
        const ids = { daily: dayId(e.metric, e.time), monthly: monthId(e.metric, e.time) }
        for (const collection of ['daily', 'monthly']) {
          for (const tier of windows[collection]) {
            for (const t of of?.values ?? []) {
              const path = `${collection} ${ids[collection]} ${tier}.le.${thresholdKey(t)}`
              model.set(path, (model.get(path) ?? 0) + (e.value <= t ? e.weight : 0))
            }
          }
        }
      }
      const stored = new Map()
      for (const collection of ['daily', 'monthly']) {
        for (const [id, update] of unit[collection]) {
          for (const [path, n] of Object.entries(update.inc)) if (path.includes('.le.')) stored.set(`${collection} ${id} ${path}`, n)
          if (!id.startsWith('web.latency/') && !id.startsWith('web.latency;')) expect(Object.keys(update.inc).filter(p => p.includes('le'))).toEqual([])
        }
      }
      for (const [path, n] of model) expect(stored.get(path) ?? 0).toBeCloseTo(n, 9)
      for (const path of stored.keys()) expect(model.has(path)).toBe(true)
    }), { numRuns: 150 })
  })

  it('one value alone: the same fields (distributionEventUpdates, the simple form)', () => {
    const time = Date.UTC(2026, 10, 21, 13, 7, 45)
    const { daily, monthly } = distributionEventUpdates({ metric: 'web.latency', value: 300, time }, mapping, { thresholdsOf: thresholds.of })
    expect(Object.keys(daily.inc).filter(p => p.includes('.le.'))).toEqual(['daily.le.300', 'daily.le.1000', 'hourly.13.le.300', 'hourly.13.le.1000', 'quarterHourly.13.0.le.300', 'quarterHourly.13.0.le.1000', 'minute.13.7.le.300', 'minute.13.7.le.1000'])
    expect(Object.keys(monthly.inc).filter(p => p.includes('.le.'))).toEqual(['monthly.le.300', 'monthly.le.1000', 'daily.21.le.300', 'daily.21.le.1000'])
    const built = buildDistributionUnit([{ metric: 'web.latency', value: 300, time }], mapping, { thresholdsOf: thresholds.of })
    expect(built.daily.get('web.latency/20261121').inc).toEqual(daily.inc)
  })
})

describe('countAtMost, the sketch\'s estimate', () => {
  it('is the exact count at some t′ with t/(1+α) < t′ ≤ t/(1−α), and adds up over histograms', () => {
    const α = mapping.accuracy
    fc.assert(fc.property(fc.array(fc.double({ min: -2, max: 5, noNaN: true }).map(e => 10 ** e), { minLength: 1, maxLength: 300 }), fc.double({ min: 0.01, max: 1e5, noNaN: true }), (list, t) => {
      const estimate = countAtMost(histogramOf(mapping, list), mapping, t)
      const below = list.filter(v => v <= t / (1 + α)).length
      const above = list.filter(v => v <= t / (1 - α)).length
      expect(estimate).toBeGreaterThanOrEqual(below)
      expect(estimate).toBeLessThanOrEqual(above)
      const half = Math.floor(list.length / 2)
      expect(countAtMost(histogramOf(mapping, list.slice(0, half)), mapping, t) + countAtMost(histogramOf(mapping, list.slice(half)), mapping, t)).toBe(estimate)
    }))
  })
})
