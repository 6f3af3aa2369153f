// The one place that reads the wall clock; everything below gets a clock injected.
export const systemClock = Object.freeze({ now: () => Date.now() })

/** A clock for tests and the load generator: set() and advance() move it. */
export function manualClock (start) {
  let t = start
  return {
    now: () => t,
    set (ms) { t = ms },
    advance (ms) { t += ms }
  }
}
