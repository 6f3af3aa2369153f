// MAX_BUCKETS_PER_REQUEST over the values a write unit holds
// (heldBucketsProblem): distinct buckets per metric and day, whatever the
// number of values, and only past the limit.
import { describe, expect, it } from 'vitest'
import { MAX_BUCKETS_PER_REQUEST, heldBucketsProblem } from '../../src/bucket/distribution-rules.js'
import { bucketValue } from '../../src/bucket/distribution-sketch.js'
import { distributionKind } from '../../src/bucket/metric-kinds.js'
import { DAY_MS } from '../../src/bucket/time.js'
import { buildWriteUnit, mergeWriteUnits } from '../../src/kinds/write-unit.js'
import { operationsOf } from '../../src/writer/write-operations.js'

const kind = distributionKind(0.01)
const DAY = Date.UTC(2026, 10, 30)
// n values of `metric` on a day, in `buckets` distinct buckets (one after the other, round again)
const values = (metric, n, buckets, day = DAY) => Array.from({ length: n }, (_, i) => ({ metric, kind: 'distribution', value: bucketValue(kind.mapping, (i % buckets) - 900), time: day + i }))
const problemOf = (events) => heldBucketsProblem(buildWriteUnit(events, { kindOf: () => kind }).held.get('distribution'))

describe('heldBucketsProblem', () => {
  it('takes many values in few buckets, and a day at the limit beside another at the limit', () => {
    expect(problemOf(values('few', 10 * MAX_BUCKETS_PER_REQUEST, 3))).toBeNull()
    expect(problemOf([...values('two.days', MAX_BUCKETS_PER_REQUEST, MAX_BUCKETS_PER_REQUEST), ...values('two.days', MAX_BUCKETS_PER_REQUEST, MAX_BUCKETS_PER_REQUEST, DAY + DAY_MS)])).toBeNull()
  })

  it('names each metric one of whose days passes the limit, first the first, with its buckets', () => {
    const problem = problemOf([
      ...values('fine', 3 * MAX_BUCKETS_PER_REQUEST, MAX_BUCKETS_PER_REQUEST),
      ...values('wide.a', MAX_BUCKETS_PER_REQUEST + 5, MAX_BUCKETS_PER_REQUEST + 5, DAY + DAY_MS),
      ...values('wide.b', 2 * MAX_BUCKETS_PER_REQUEST, MAX_BUCKETS_PER_REQUEST + 1)
    ])
    expect(problem.metrics).toEqual(['wide.a', 'wide.b'])
    expect(problem.message).toBe(`the values of "wide.a" fall in ${MAX_BUCKETS_PER_REQUEST + 5} distinct histogram buckets in one day, over the ${MAX_BUCKETS_PER_REQUEST} one request may add to a day; split them over several requests`)
  })

  it('a value no distribution holds throws as its unit is built, not at the flush that builds its documents', () => {
    for (const value of [Number.NaN, Infinity, -1e308]) {
      expect(() => buildWriteUnit([...values('ok', 2, 2), { metric: 'bad', kind: 'distribution', value, time: DAY }], { kindOf: () => kind })).toThrow(RangeError)
    }
  })

  it('a unit holding values is written only merged: operationsOf refuses it alone', () => {
    const unit = buildWriteUnit(values('held', 3, 3), { kindOf: () => kind })
    expect(() => operationsOf(unit, DAY)).toThrow(/merged unit/)
    expect(operationsOf(mergeWriteUnits([unit]), DAY).map(p => p.collection)).toEqual(['distributionDaily', 'distributionMonthly', 'distributionMinutes', 'metrics'])
  })

  it('is null for a unit without distributions', () => {
    expect(heldBucketsProblem(null)).toBeNull()
  })
})
