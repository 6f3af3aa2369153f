// The yardsticks' arithmetic (scripts/bench/bench-yardstick.js): CPU per
// answered request from /proc readings, and per connection count each
// side's median and range and the medians of the rounds' ratios.
import { describe, expect, it } from 'vitest'
import { spread, summarizeYardstick, yardstickFigures } from '../../../scripts/bench/bench-yardstick.js'

const result = (total, ok, duration = 4) => ({ requests: { total }, '2xx': ok, duration, latency: { p99: 7 } })

describe('yardstickFigures', () => {
  it('divides each process\'s CPU (ms) by the answered requests, in µs', () => {
    expect(yardstickFigures({ result: result(2000, 1990), cpuBefore: 1000, cpuAfter: 2200, dbBefore: 500, dbAfter: 900 }))
      .toEqual({ requests: 2000, ok: 1990, requestsPerS: 497.5, cpuUsPerRequest: 600, databaseUsPerRequest: 200, p99Ms: 7 })
    // no pid (not the embedded database): n/a, not 0
    expect(yardstickFigures({ result: result(10, 10), cpuBefore: 0, cpuAfter: 10, dbBefore: null, dbAfter: null }).databaseUsPerRequest).toBeNull()
    expect(yardstickFigures({ result: result(0, 0), cpuBefore: 0, cpuAfter: 10, dbBefore: 0, dbAfter: 0 }).cpuUsPerRequest).toBeNull()
  })
})

describe('summarizeYardstick', () => {
  const run = (connections, round, side, cpu) => ({ connections, round, side, figures: { requests: 100, ok: 100, requestsPerS: 25, cpuUsPerRequest: cpu, databaseUsPerRequest: null, p99Ms: 3 } })

  it('takes each side\'s median and range, and the median of each round\'s service ÷ naive and ÷ bare', () => {
    const [one, many] = summarizeYardstick([
      run(1, 1, 'service', 600), run(1, 1, 'naive', 500), run(1, 1, 'bare', 100),
      run(1, 2, 'service', 500), run(1, 2, 'naive', 600), run(1, 2, 'bare', 100),
      run(1, 3, 'service', 550), run(1, 3, 'naive', 550), run(1, 3, 'bare', 110),
      run(32, 1, 'service', 150), run(32, 1, 'naive', 450), run(32, 1, 'bare', 60)
    ])
    expect(one.connections).toBe(1)
    expect(one.rounds).toBe(3)
    expect(one.sides.service.cpuUsPerRequest).toEqual({ median: 550, min: 500, max: 600 })
    expect(one.vsNaive).toEqual({ median: 1, min: 500 / 600, max: 1.2 }) // each round's ratio, not the ratio of the medians
    expect(one.vsBare.median).toBe(5)
    expect(many).toMatchObject({ connections: 32, rounds: 1, vsNaive: { median: 150 / 450 } })
  })

  it('leaves out what was not measured', () => {
    expect(spread([null, undefined])).toEqual({ median: null, min: null, max: null })
    const [only] = summarizeYardstick([run(1, 1, 'service', 600)])
    expect(Object.keys(only.sides)).toEqual(['service'])
    expect(only.vsNaive.median).toBeNull()
  })
})
