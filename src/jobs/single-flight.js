// One run at a time: a call while a run is in progress gets that run's
// promise instead of starting another; and a job built on it that logs how
// each run ended and can be stopped. No I/O of its own.

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

/**
 * A job's runs, one at a time and stoppable. body(control) → result, where
 * control = { signal (aborted on stop), stopped() }. → { runOnce(), stop() }:
 * runOnce() logs `done` (info, with the result) or `failed` (warn) and
 * resolves to the result or to failure(err), never rejects; stop() ends the
 * run in progress (its body watches stopped() and signal) and resolves once
 * it ended.
 */
export function stoppableJob ({ body, logger, done, failed, failure }) {
  const abort = new AbortController()
  const control = { signal: abort.signal, stopped: () => abort.signal.aborted }
  const flight = singleFlight(() => body(control)
    .then(result => { logger.info(result, done); return result })
    .catch(err => { logger.warn({ err }, failed); return failure(err) }))
  return {
    runOnce: flight.run,
    async stop () {
      abort.abort()
      await flight.current()
    }
  }
}
