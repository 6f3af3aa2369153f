// Time for everything below the edges, from one module: the wall clock (the
// one place that reads it) and the timers (setTimeout and a monotonic now),
// both injected so that tests decide the order of events instead of real
// sleeps. Time constants live with the bucket math (bucket/time.js).
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

/** The real timers; tests pass fake ones (test/helpers/fake-timers.js). */
export const realTimers = Object.freeze({
  now: () => performance.now(),
  setTimeout: (fn, ms, ...args) => setTimeout(fn, ms, ...args),
  clearTimeout: (handle) => clearTimeout(handle)
})
