// What a render's functions make is held until the request ends (the
// evaluator keeps every evaluation): the points of the new series they make
// count against the request's budget (src/graphite/budget.js
// chargeMadePoints), and past it the request is a 400 naming it. A function
// that passes its input's points on (alias, consolidateBy) makes none.
import { describe, expect, it } from 'vitest'
import { BudgetError, markRead } from '../../src/graphite/budget.js'
import { evaluate } from '../../src/graphite/evaluator.js'
import { makeSeries } from '../../src/graphite/series.js'
import { parseTarget } from '../../src/graphite/target-parser.js'

// two series of 30 points each (seriesByTag finds one of them); 1,000 points may be made (100 where refused)
const ctxOf = (maxMadePoints = 1000) => ({
  startTime: 0,
  endTime: 1800,
  defaultConsolidation: 'sum',
  spent: { series: 0, points: 0, buckets: 0, made: 0, reads: new Map() },
  maxMadePoints,
  // as the metric source does (graphite/metric-source.js readLeaves), what it reads is marked read
  fetch: async (path, c) => markRead(c.spent, ['a.x', 'a.y'].map(name => series(name, path, c))),
  tagDb: { findSeries: async () => ['a.x'] },
  fetchTagged: async (names, raw, c) => markRead(c.spent, names.map(name => series(name, raw, c)))
})
const series = (name, pathExpression, c) => makeSeries({ name, start: c.startTime, end: c.endTime, step: 60, values: Array.from({ length: 30 }, (_, i) => i), consolidationFunc: 'sum', pathExpression })
const made = async (target) => {
  const ctx = ctxOf()
  await evaluate(parseTarget(target), ctx)
  return ctx.spent.made
}

describe("the points a render's functions make", () => {
  it('are counted where a function makes new series, not where it passes them on', async () => {
    expect(await made('a.*')).toBe(0)
    expect(await made('scale(a.*,2)')).toBe(60)
    expect(await made('sumSeries(scale(a.*,2))')).toBe(90)
    expect(await made('alias(alias(consolidateBy(a.*,"max"),"b"),"c")')).toBe(0)
    expect(await made('alias(scale(a.*,2),"b")')).toBe(60)
    // timeShift answers its own read of the shifted window: nothing made; what it shifts is made over both windows
    expect(await made('timeShift(a.*,"1min")')).toBe(0)
    expect(await made('timeShift(scale(a.*,2),"1min")')).toBe(120)
    // seriesByTag reads
    expect(await made("seriesByTag('name=a.x')")).toBe(0)
    expect(await made("scale(seriesByTag('name=a.x'),2)")).toBe(30)
  })

  it('past the budget, the request is refused naming it', async () => {
    const ctx = ctxOf(100)
    const refused = evaluate(parseTarget('scale(scale(a.*,2),2)'), ctx)
    await expect(refused).rejects.toThrow(BudgetError)
    await expect(evaluate(parseTarget('scale(scale(a.*,2),2)'), ctxOf(100))).rejects.toThrow(/^the functions of this request make more than 100 points in all \(MAX_READ_POINTS × 4\); nest fewer functions, or shorten the range or the targets$/)
  })
})
