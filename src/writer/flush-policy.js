// When the writer's queue cuts a flush (docs/adr/0008-adaptive-group-commit.md):
// the group-commit policy alone, pure (no clock, no timers, no I/O). The
// queue (write-queue.js) asks nextCut whenever what it reads changes, and
// applies the answer: a cut, or a timer for wakeAt.
//
// A flush is cut when none is in flight and a drain started, or
// FLUSH_MAX_DOCS distinct documents are queued, or:
// - FLUSH_INTERVAL_MS > 0: the oldest queued unit is that old (no gather);
// - FLUSH_INTERVAL_MS = 0 (adaptive): the gather after the last flush is
//   over. It waits until as many units are queued as were queued when that
//   flush answered plus those it answered (their senders' next requests), or
//   half that flush's duration passed, never past half the oldest queued
//   unit's WRITE_TIMEOUT_MS (answered within 1.5 × of arriving: its flush's
//   watchdog counts from the cut). A sender waiting for room, or refused for
//   it, ends it: it comes back only once a flush answers. An idle writer
//   (never flushed, or the window passed) cuts at once.

/** settings: { flushIntervalMs, flushMaxDocs, writeTimeoutMs } */

/** No gather: the next cut waits for no unit (a writer that never flushed, or a gather a refusal ended) */
export const NO_GATHER = Object.freeze({ units: 0, until: -Infinity })

/** Whether the writer gathers after a flush (adaptive group commit) */
export const gathers = settings => settings.flushIntervalMs === 0

const decision = (cut, because) => Object.freeze({ cut, because, wakeAt: null })
const FLUSHING = decision(false, 'a flush in flight')
const EMPTY = decision(false, 'nothing queued')
const CUT = Object.freeze({
  drain: decision(true, 'draining'),
  full: decision(true, 'FLUSH_MAX_DOCS'),
  interval: decision(true, 'FLUSH_INTERVAL_MS'),
  gathered: decision(true, 'gathered'),
  room: decision(true, 'a sender waiting for room'),
  window: decision(true, 'gather window'),
  cap: decision(true, 'WRITE_TIMEOUT_MS cap')
})

/** Cut now if `at` has come, else wake at `at` */
function cutAt (at, now, rule) {
  return now >= at ? CUT[rule] : { cut: false, because: CUT[rule].because, wakeAt: at }
}

/**
 * Whether to cut a flush now.
 * state: { flushing, oldestAt: the oldest queued unit's arrival (undefined: none queued),
 *   queuedUnits, queuedDocs: distinct documents queued, draining,
 *   roomWaiters: senders waiting for room, gather: gatherAfter's or NO_GATHER }
 * → { cut: true, because }: cut now;
 *   { cut: false, because, wakeAt }: ask again at wakeAt (or sooner, should the state change);
 *   wakeAt null: nothing to wait for (asked again when a unit is queued or the flush returns).
 * `because` names the rule that decided.
 */
export function nextCut (state, now, settings) {
  if (state.flushing) return FLUSHING
  if (state.oldestAt === undefined) return EMPTY
  if (state.draining) return CUT.drain
  if (state.queuedDocs >= settings.flushMaxDocs) return CUT.full
  if (!gathers(settings)) return cutAt(state.oldestAt + settings.flushIntervalMs, now, 'interval')
  if (state.queuedUnits >= state.gather.units) return CUT.gathered
  if (state.roomWaiters > 0) return CUT.room
  const cap = state.oldestAt + settings.writeTimeoutMs / 2
  return cap < state.gather.until ? cutAt(cap, now, 'cap') : cutAt(state.gather.until, now, 'window')
}

/**
 * The gather after a flush of `units` units, begun at `startedAt`, returned
 * at `returnedAt`: → { units, until } the next cut waits for. The units
 * queued when it first answered (`queuedWhenAnswered`; null: it answered
 * none before returning, so `queuedUnits`, those queued now) plus its own:
 * a watchdog answers long before the driver lets the flush return, and the
 * senders back meanwhile are not waited for twice. A positive
 * FLUSH_INTERVAL_MS gathers nothing.
 */
export function gatherAfter ({ units, startedAt, returnedAt, queuedWhenAnswered, queuedUnits }, settings) {
  if (!gathers(settings)) return NO_GATHER
  return { units: (queuedWhenAnswered ?? queuedUnits) + units, until: returnedAt + (returnedAt - startedAt) / 2 }
}

/**
 * A sender was refused or turned away for room: the senders a gather waits
 * for may not fit, so it ends. → the gather now (NO_GATHER; ask nextCut
 * again), or null: nothing gathers, nothing changes.
 */
export const afterRefusal = settings => gathers(settings) ? NO_GATHER : null
