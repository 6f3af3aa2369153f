// The closed-loop engine of the load generator: `concurrency` workers each
// send a batch, wait for its answer, record it by the simulated minute it
// was sent in, and send the next, until simulated time reaches the end.
import { createSimClock } from './sim-clock.js'
import { createMinuteRecorder, minuteRows } from './minute-stats.js'

/**
 * target: { begin(clock), send(events) → { outcome, status?, message? } }
 * events carry { metric, value, ts } with ts whole epoch ms of simulated time.
 * Resolves to { rows, totals, latencies, simStart, simEnd, realMs, firstRejection }.
 */
export async function runPhase ({ target, start, spanMs, speedup, concurrency, batch, metrics, oooFraction = 0, oooWindowMs = 0, random, progress }) {
  const clock = createSimClock({ start, speedup })
  const simEnd = start + spanMs
  const recorder = createMinuteRecorder()
  await target.begin?.(clock)
  let nextMetric = 0
  let stop = false
  let firstRejection = null

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
    while (!stop) {
      const sent = clock.now()
      if (sent >= simEnd) break
      const events = makeBatch(sent)
      const began = performance.now()
      const answer = await target.send(events)
      recorder.record(sent, events.length, performance.now() - began, answer.outcome)
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
    rows: minuteRows({ minutes: recorder.minutes, simStart: start, simEnd: firstRejection ? simStop : simEnd, speedup }),
    totals: recorder.totals,
    latencies: recorder.allLatencies,
    simStart: start,
    simEnd,
    realMs,
    firstRejection
  }
}
