// Timers that move only when a test says so (src/clock.js has the
// real ones): the order of expiries, cuts and watchdogs is the test's, never
// a real sleep's.
export function fakeTimers (start = 0) {
  let t = start
  let seq = 0
  const pending = new Map() // id → { at, fn, args }

  /** Lets every promise chain that can run now run (no time passes) */
  const settle = async () => {
    for (let i = 0; i < 5; i++) await new Promise(resolve => setImmediate(resolve))
  }

  return {
    now: () => t,
    setTimeout (fn, ms, ...args) {
      const id = ++seq
      pending.set(id, { at: t + Math.max(0, ms ?? 0), fn, args })
      return id
    },
    clearTimeout (id) { pending.delete(id) },
    settle,
    /** Moves time forward by ms, firing due timers in order, settling after each */
    async advance (ms) {
      const end = t + ms
      await settle()
      for (;;) {
        let next = null
        for (const [id, timer] of pending) {
          if (timer.at <= end && (next === null || timer.at < next[1].at || (timer.at === next[1].at && id < next[0]))) next = [id, timer]
        }
        if (!next) break
        pending.delete(next[0])
        t = next[1].at
        next[1].fn(...next[1].args)
        await settle()
      }
      t = end
      await settle()
    },
    pendingTimers: () => pending.size
  }
}
