// The load generator's closed loop when the service cannot be reached: a
// refused connection is "not reached" (not applied, never "unknown"), a
// worker backs off before it sends again instead of spinning, and a service
// unreachable for giveUpMs stops the phase, saying so. Fake timers drive the
// real and the simulated clock: no real sleep.
import { describe, expect, it } from 'vitest'
import { outcomeOf } from '../../../scripts/loadgen/http-target.js'
import { runPhase } from '../../../scripts/loadgen/load-run.js'
import { fakeTimers } from '../../helpers/fake-timers.js'

const START = Date.UTC(2026, 2, 1, 12)

/** A target that answers after `latencyMs` of fake time: not reached while reachable(now) is false */
function fakeTarget (timers, { reachable, latencyMs = 5 }) {
  const sends = []
  return {
    sends,
    async send (events) {
      sends.push(timers.now())
      if (!reachable(timers.now())) return { outcome: 'not_reached', status: 0, message: 'ECONNREFUSED' }
      await new Promise(resolve => timers.setTimeout(resolve, latencyMs))
      return { outcome: 'acked', status: 200 }
    }
  }
}

/** Runs a phase to its end, moving fake time 50 ms at a time */
async function run (timers, options) {
  const done = { result: null }
  const phase = runPhase({ start: START, speedup: 60, concurrency: 2, batch: 1, metrics: ['m'], random: Math.random, timers, ...options }).then(r => { done.result = r })
  for (let i = 0; i < 10_000 && done.result === null; i++) await timers.advance(50)
  await phase
  return done.result
}

describe('outcomeOf', () => {
  it('a connection refused or a host unreachable is not reached; a reset or a timeout may have been applied', () => {
    for (const error of ['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']) expect(outcomeOf({ status: 0, error }), error).toBe('not_reached')
    for (const error of ['ECONNRESET', 'TIMEOUT', 'EPIPE']) expect(outcomeOf({ status: 0, error }), error).toBe('unknown')
    expect(outcomeOf({ status: 200 })).toBe('acked')
    expect(outcomeOf({ status: 503, json: { outcome: 'not_applied' } })).toBe('not_applied')
  })
})

describe('runPhase when the service cannot be reached', () => {
  it('backs off between sends, counts them not reached, and stops once nothing reached it for giveUpMs', async () => {
    const timers = fakeTimers(0)
    const target = fakeTarget(timers, { reachable: () => false })
    const result = await run(timers, { target, spanMs: 60 * 60_000, giveUpMs: 10_000 })
    expect(result.unreachable).toEqual({ error: 'ECONNREFUSED', forMs: expect.any(Number) })
    expect(result.unreachable.forMs).toBeGreaterThanOrEqual(10_000)
    expect(result.unreachable.forMs).toBeLessThan(10_000 + 2_500) // a backoff at most past the limit
    expect(result.totals).toMatchObject({ acked: 0, not_reached: target.sends.length, unknown: 0, not_applied: 0 })
    // two workers backing off 100, 200, 400 … 2000 ms: a dozen sends each at most, not a tight loop
    expect(target.sends.length).toBeLessThanOrEqual(2 * 12)
    const gaps = target.sends.filter((_, i) => i % 2 === 0).map((t, i, all) => (i ? t - all[i - 1] : null)).slice(1)
    expect(gaps.slice(0, 4)).toEqual([100, 200, 400, 800])
    expect(Math.max(...gaps)).toBe(2000)
    // the rows end where the run stopped
    expect(result.rows.length).toBeLessThanOrEqual(Math.ceil((result.unreachable.forMs + 2500) * 60 / 60_000) + 1)
  })

  it('a service back within giveUpMs: the run goes on to its end, the backoff starts anew', async () => {
    const timers = fakeTimers(0)
    const target = fakeTarget(timers, { reachable: now => now < 1000 || now >= 4000 })
    const result = await run(timers, { target, spanMs: 8 * 60_000, giveUpMs: 10_000 }) // 8 s of real time
    expect(result.unreachable).toBe(null)
    expect(result.totals.acked).toBeGreaterThan(0)
    expect(result.totals.not_reached).toBeGreaterThan(0)
    expect(result.totals.not_reached).toBeLessThanOrEqual(2 * 6) // 100 … 1600 ms over 3 s
    expect(result.totals.unknown).toBe(0)
  })
})
