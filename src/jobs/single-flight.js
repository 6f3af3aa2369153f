// One run at a time: a call while a run is in progress gets that run's
// promise instead of starting another. Pure (no I/O of its own).

/**
 * run: async () => result. → { run(), current() }: run() starts a run or joins
 * the one in progress; current() is the run in progress (or null).
 */
export function singleFlight (run) {
  let running = null
  return {
    run () {
      if (running) return running
      running = Promise.resolve().then(run).finally(() => { running = null })
      return running
    },
    current: () => running
  }
}
