// The gauges' levels as the StatsD doors hold them (docs/adr/0045-gauges-statsd-levels-and-deltas.md): a delta `name:+3|g` / `name:-2|g`
// changes the level the door last set, as the statsd daemon's own memory does. One
// memory per instance, shared by its StatsD doors (UDP, TCP, POST
// /v1/statsd), bounded: the least recently used name is forgotten past
// maxNames. A delta of a name not held starts from the stored last level
// (`monthly.last` of its latest month), read once, or 0 where none is
// stored; until that read answers, a door parks the name's values in arrival
// order (createGaugeResolver), so that deltas are applied in the order they
// arrived at that door.
import { isEventValue } from '../bucket/event-rules.js'

// stored levels read at once, at most: a flood of deltas of new names waits for
// its reads (its door holds its values meanwhile) instead of flooding the database
export const MAX_LEVEL_READS = 16

/**
 * maxNames: the names held at most; storedLevel(name) → Promise<number | null>
 * (the level stored, null where none), at most maxReads at once. Beside its level a name keeps the
 * time of the last event the doors gave it (stamp): the next one is given a
 * later time, even within the same millisecond, so that the later arrival is
 * the later `last` where it is stored.
 */
// how far a gauge event's time may be moved past its arrival to keep it later than the one before
export const MAX_LEAD_MS = 1000

export function createGaugeLevels ({ maxNames, storedLevel, maxReads = MAX_LEVEL_READS }) {
  const levels = new Map() // name → { level, stamped }, least recently used first
  const loading = new Map() // name → Promise<number>: one read at a time per name
  let reading = 0
  const waiting = [] // reads past maxReads, in order: () => void

  /** storedLevel(name), at most maxReads at once */
  async function readLevel (name) {
    if (reading >= maxReads) await new Promise(resolve => waiting.push(resolve))
    reading++
    try {
      return await storedLevel(name)
    } finally {
      reading--
      waiting.shift()?.()
    }
  }

  /**
   * The time a gauge event of `entry`'s name at `time` is given: after the one
   * stamped before, but never more than MAX_LEAD_MS past `time` — a sender of
   * thousands of levels a second would otherwise push its stamps minutes into
   * the future (past MAX_FUTURE_MS, refusing whole batches); at the bound a
   * tie keeps the larger level, as equal event times do
   */
  const after = (entry, time) => (entry?.stamped !== undefined && time <= entry.stamped ? Math.min(entry.stamped + 1, time + MAX_LEAD_MS) : time)

  return {
    /** The level held for `name` (marked recently used), or undefined */
    get (name) {
      const entry = levels.get(name)
      if (entry === undefined) return undefined
      levels.delete(name)
      levels.set(name, entry)
      return entry.level
    },
    /** The level held, without marking it used */
    peek: (name) => levels.get(name)?.level,
    /**
     * Holds `level` for `name` (with `stamped`, the time of an event given to
     * it, where the caller gave one), forgetting the least recently used name past maxNames
     */
    set (name, level, stamped) {
      const entry = levels.get(name)
      levels.delete(name)
      const times = [entry?.stamped, stamped].filter(t => t !== undefined)
      levels.set(name, { level, stamped: times.length ? Math.max(...times) : undefined })
      if (levels.size > maxNames) levels.delete(levels.keys().next().value)
    },
    /** The time an event of `name` at `time` would be given (nothing recorded) */
    nextTime: (name, time) => after(levels.get(name), time),
    /** The time an event of `name` at `time` is given, recorded (a name not held: `time` itself) */
    stamp (name, time) {
      const entry = levels.get(name)
      const t = after(entry, time)
      if (entry !== undefined) entry.stamped = t
      return t
    },
    /** Where a delta of `name` starts when no level is held: the stored last level, or 0. Rejects when the read fails */
    load (name) {
      let read = loading.get(name)
      if (!read) {
        read = Promise.resolve().then(() => readLevel(name)).then(v => (Number.isFinite(v) ? v : 0)).finally(() => loading.delete(name))
        loading.set(name, read)
      }
      return read
    },
    /** A deleted metric (DELETE /v1/metrics/:metric): its level no longer held, so a delta starts from what is stored again */
    forget (name) { levels.delete(name) },
    /** Names held */
    get size () { return levels.size }
  }
}

/** level + delta, or null where it would pass what an event may carry (−0 as 0) */
export function applyDelta (level, delta) {
  const next = level + delta
  return isEventValue(next) ? (next === 0 ? 0 : next) : null
}

/**
 * One door's side of the levels: turns its gauge samples into levels in
 * arrival order. resolve(samples, time) → the samples to add now (levels,
 * and every other kind's samples as they are); a delta of a name whose level
 * is not held parks that name — it and every later value of the name wait,
 * in order, for the stored level — and the parked values are handed to
 * release(sample, time) once it is read. drop(reason, values, example):
 * 'bad_value' for a delta that would pass 1e15 (the level stays), and
 * 'not_applied' for parked values whose stored level could not be read.
 */
export function createGaugeResolver ({ levels, release, drop, log }) {
  const parked = new Map() // name → [{ sample, time }], in arrival order
  let parkedValues = 0
  const loads = new Set()

  /** The values of `list` applied from `level` in order → the last level (undefined: none) */
  function releaseAll (name, list, level) {
    for (const { sample, time } of list) {
      if (!sample.delta) {
        level = sample.value
        release(sample, time)
        continue
      }
      const next = applyDelta(level, sample.value)
      if (next === null) { drop('bad_value', 1, name); continue }
      level = next
      release({ metric: name, value: next, kind: sample.kind }, time)
    }
    return level
  }

  function park (name, sample, time) {
    parked.set(name, [{ sample, time }])
    parkedValues++
    const load = levels.load(name).then(
      base => {
        const list = parked.get(name)
        parked.delete(name)
        parkedValues -= list.length
        // another door may have set the level meanwhile: its level is the newer
        const level = releaseAll(name, list, levels.get(name) ?? base)
        if (level !== undefined) levels.set(name, level)
      },
      err => {
        const list = parked.get(name)
        parked.delete(name)
        parkedValues -= list.length
        log?.warn({ err, metric: name, values: list.length }, 'StatsD gauge delta: the stored level could not be read; the name\'s values since are dropped')
        drop('not_applied', list.length, name)
      }
    ).finally(() => loads.delete(load))
    loads.add(load)
  }

  return {
    /** Values parked, waiting for a stored level (they take places in a door's batch) */
    get parked () { return parkedValues },
    /** Whether resolve() would park `sample` (a place taken, as a new name takes one) */
    wouldPark: (sample) => sample.kind === 'gauge' && (parked.has(sample.metric) || (sample.delta === true && levels.peek(sample.metric) === undefined)),
    resolve (samples, time) {
      let ready = null // the input itself while it holds no gauge
      for (let i = 0; i < samples.length; i++) {
        const sample = samples[i]
        if (sample.kind !== 'gauge') { ready?.push(sample); continue }
        ready ??= samples.slice(0, i)
        const name = sample.metric
        const waiting = parked.get(name)
        if (waiting) { waiting.push({ sample, time }); parkedValues++; continue }
        if (!sample.delta) { levels.set(name, sample.value); ready.push(sample); continue }
        const level = levels.get(name)
        if (level === undefined) { park(name, sample, time); continue }
        const next = applyDelta(level, sample.value)
        if (next === null) { drop('bad_value', 1, name); continue }
        levels.set(name, next)
        ready.push({ metric: name, value: next, kind: sample.kind })
      }
      return ready ?? samples
    },
    /** Resolves once no stored level is being read (every parked value released or dropped) */
    async idle () {
      while (loads.size > 0) await Promise.allSettled([...loads])
    }
  }
}
