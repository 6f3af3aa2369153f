// The simulated clock of the benchmark's service (buildApp's `clock`,
// src/clock.js): real time shifted by an offset, so it runs at real speed
// across a boundary (midnight) and jumps where the benchmark sets it. The
// timers stay real: latencies and the sweep's pacing are real time.

/** start: the simulated epoch ms now; realNow: the wall clock (injected in tests) */
export function offsetClock (start, realNow = () => Date.now()) {
  let offset = start - realNow()
  return {
    now: () => realNow() + offset,
    /** From now on the clock reads `ms`, and runs on from there */
    set (ms) { offset = ms - realNow() }
  }
}
