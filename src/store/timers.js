// The timers the writer uses, injectable so that tests decide the order of
// events instead of real sleeps.
export const realTimers = Object.freeze({
  now: () => performance.now(),
  setTimeout: (fn, ms, ...args) => setTimeout(fn, ms, ...args),
  clearTimeout: (handle) => clearTimeout(handle)
})
