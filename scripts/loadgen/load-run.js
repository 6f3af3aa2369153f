// The closed-loop engine of the load generator: `concurrency` workers each
// send a batch, wait for its answer, record it by the simulated minute it
// was sent in, and send the next, until simulated time reaches the end.
// A request that did not reach the service (connection refused, host
// unreachable) is followed by a pause that doubles up to BACKOFF_MAX_MS,
// and once none has reached it for giveUpMs the phase stops.
import { realTimers } from '../../src/clock.js'
import { createSimClock } from './sim-clock.js'
import { createMinuteRecorder, minuteRows } from './minute-stats.js'

const BACKOFF_FIRST_MS = 100
const BACKOFF_MAX_MS = 2000
/** Real ms without a request reaching the service before a phase stops */
export const GIVE_UP_MS = 10_000

/**
 * target: { begin(clock), send(events) → { outcome, status?, message? } }
 * events carry { metric, value, ts } with ts whole epoch ms of simulated time.
 * timers: { now, setTimeout } (src/clock.js; tests pass fake ones): the real clock and the backoff.
 * Resolves to { rows, totals, latencies, simStart, simEnd, realMs, firstRejection,
 *   unreachable: null, or { error, forMs } when nothing reached the service for giveUpMs }.
 */
export async function runPhase ({ target, start, spanMs, speedup, concurrency, batch, metrics, oooFraction = 0, oooWindowMs = 0, random, progress, timers = realTimers, giveUpMs = GIVE_UP_MS }) {
  const clock = createSimClock({ start, speedup, realNow: () => timers.now() })
  const simEnd = start + spanMs
  const recorder = createMinuteRecorder()
  await target.begin?.(clock)
  let nextMetric = 0
  let stop = false
  let firstRejection = null
  let unreachable = null
  let lastReached = timers.now() // the phase's start, then the last answer from the service
  const pause = ms => new Promise(resolve => timers.setTimeout(resolve, ms))

  function makeBatch (now) {
    const events = new Array(batch)
    for (let i = 0; i < batch; i++) {
      const metric = metrics[nextMetric]
      nextMetric = (nextMetric + 1) % metrics.length
      let ts = now
      if (oooFraction > 0 && random() < oooFraction) ts = now - 1 - Math.floor(random() * oooWindowMs)
      events[i] = { metric, value: 1, ts }
    }
    return events
  }

  async function worker () {
    let backoff = 0
    while (!stop) {
      const sent = clock.now()
      if (sent >= simEnd) break
      const events = makeBatch(sent)
      const began = timers.now()
      const answer = await target.send(events)
      recorder.record(sent, events.length, timers.now() - began, answer.outcome)
      if (answer.outcome === 'not_reached') {
        const forMs = timers.now() - lastReached
        if (forMs >= giveUpMs) {
          unreachable ??= { error: answer.message ?? null, forMs }
          stop = true
          break
        }
        backoff = backoff === 0 ? BACKOFF_FIRST_MS : Math.min(2 * backoff, BACKOFF_MAX_MS)
        await pause(backoff)
        continue
      }
      backoff = 0
      lastReached = timers.now()
      if (answer.outcome === 'rejected' && !firstRejection) {
        // A 4xx is the same for every request (auth, time window, limits): stop.
        firstRejection = answer
        stop = true
      }
    }
  }

  const ticker = progress ? setInterval(() => progress({ clock, simEnd, totals: recorder.totals }), 1000) : null
  try {
    await Promise.all(Array.from({ length: concurrency }, worker))
  } finally {
    clearInterval(ticker)
  }
  const realMs = clock.realElapsed()
  const simStop = Math.min(simEnd, clock.now())
  await target.end?.()
  return {
    rows: minuteRows({ minutes: recorder.minutes, simStart: start, simEnd: firstRejection || unreachable ? simStop : simEnd, speedup }),
    totals: recorder.totals,
    latencies: recorder.allLatencies,
    simStart: start,
    simEnd,
    realMs,
    firstRejection,
    unreachable
  }
}
