// From StatsD text to the ingest service, for one transport: parse, count
// what is dropped, turn gauge deltas into levels in arrival order
// (gauge-levels.js), merge (a counter summed per metric per minute, a
// distribution's values per metric, minute and value, a gauge's levels per
// metric and minute: aggregator.js), and
// submit the merged events at most every flushIntervalMs (or as soon as
// maxEvents are held). One submit at a time. `lossless` (TCP): when full, the
// caller stops reading (whenRoom tells it when to read on) and a batch the
// database did not take is retried; else (UDP) what does not fit is dropped
// and counted (docs/statsd.md). A distinct distribution value takes a place
// in the batch as a distinct counter name does, so many distinct values meet
// the same bound; so does a gauge value parked while its stored level is read.
import { createAggregator, ingestEvents } from './aggregator.js'
import { createGaugeLevels, createGaugeResolver } from './gauge-levels.js'
import { parseLine } from './line-parser.js'
import { nameOfSeries } from '../tags/series-name.js'
import { APPLIED, NOT_APPLIED, REJECTED, UNKNOWN } from '../writer/write-outcomes.js'

/** Why values accepted by the parser were lost later (besides the parser's DROP_REASONS) */
export const PIPELINE_DROP_REASONS = Object.freeze([
  'overload', // UDP: the batch was full while the writer was busy
  'line_too_long', // TCP: a line longer than the limit without a newline
  'registry_full', // the ingest service refused new metrics or series (MAX_METRICS, STATSD_REGISTRY_SHARE, MAX_SERIES_PER_NAME)
  'new_metrics_rate', // more new metrics and series in a minute than STATSD_NEW_METRICS_PER_MINUTE
  'kind_mismatch', // a metric of another kind: a timer's values on a counter's name, a count on a timer's, a level on either
  'too_many_buckets', // a timer whose values of one batch fall in more than 2,000 histogram buckets of a day
  'invalid_event', // the ingest service refused an event (a time outside the accepted window)
  NOT_APPLIED, // the database did not take the batch (UDP, or TCP while closing)
  UNKNOWN // the database may or may not have applied the batch
])

const RETRY_MS = 1000

// a pipeline given no levels (tests of counters and timers): its own, every stored level unknown
const ownLevels = () => createGaugeLevels({ maxNames: 100_000, storedLevel: async () => null })

/**
 * ingest: { submit, hasRoom, waitForRoom }; clock: { now() }; timers: { setTimeout, clearTimeout }
 * onReceived(values) per accept(); onDrop(reason, values, example) (example: a line
 * or a metric name that shows it); log: { warn } for failed batches;
 * gaugeLevels: the instance's gauge levels (gauge-levels.js createGaugeLevels), shared by its doors
 */
export function createStatsdPipeline ({ ingest, clock, timers, flushIntervalMs, maxEvents, lossless, onReceived, onDrop, log, gaugeLevels = ownLevels() }) {
  // a gauge's events get strictly later times than the ones before, whichever door gave those
  const batch = createAggregator({ stampGauge: (metric, time) => gaugeLevels.stamp(metric, time) })
  let timer = null
  let flushing = null
  let closing = false
  let roomWaiters = []
  const gauges = createGaugeResolver({
    levels: gaugeLevels,
    // a parked value, its level known now: into the batch at the time it arrived
    release: (sample, time) => { batch.add([sample], time); schedule() },
    drop: (reason, values, example) => { onDrop(reason, values, example); wakeRoomWaiters() },
    log
  })

  // values parked for a stored gauge level hold places too: they join the batch once it is read
  const full = () => batch.size + gauges.parked >= maxEvents

  function wakeRoomWaiters () {
    if (full() || roomWaiters.length === 0) return
    const waiters = roomWaiters
    roomWaiters = []
    for (const resolve of waiters) resolve()
  }

  function schedule () {
    if (closing || flushing || batch.size === 0) return
    if (full()) { flush(); return }
    if (timer === null) timer = timers.setTimeout(() => { timer = null; flush() }, flushIntervalMs)
  }

  const sleep = (ms) => new Promise(resolve => { timers.setTimeout(resolve, ms) })

  async function submitChunk (events, values) {
    for (;;) {
      if (!ingest.hasRoom(events.length)) await ingest.waitForRoom(events.length)
      // per name: a full registry turns away the lines of new names, never a known metric's in the same batch
      const result = await ingest.submit(ingestEvents(events), { admitPerName: true, statsd: true })
      const refused = result.refusedMetrics ?? []
      const rateLimited = result.rateLimited ?? []
      const conflicts = result.kindConflicts ?? []
      if (refused.length || conflicts.length || rateLimited.length) {
        // the names and series turned away (and a name's values of the kind it is not) lose their events, no other;
        // a tagged series' events go with its name's
        const full = new Set(refused)
        const limited = new Set(rateLimited)
        const turnedAway = (set) => (e) => set.has(e.metric) || set.has(nameOfSeries(e.metric))
        const kindOf = (e) => `${nameOfSeries(e.metric)}\n${e.kind ?? 'counter'}`
        const wrong = new Set(conflicts.filter(c => !c.reason).map(c => `${c.metric}\n${c.asked}`))
        const wide = new Set(conflicts.filter(c => c.reason === 'too_many_buckets').map(c => `${c.metric}\n${c.asked}`))
        for (const [reason, lostHere, example] of [
          ['registry_full', turnedAway(full), refused[0]],
          ['new_metrics_rate', turnedAway(limited), rateLimited[0]],
          ['kind_mismatch', e => wrong.has(kindOf(e)), conflicts.find(c => !c.reason)?.metric],
          ['too_many_buckets', e => wide.has(kindOf(e)), conflicts.find(c => c.reason)?.metric]
        ]) {
          const lost = events.filter(lostHere)
          if (lost.length === 0) continue
          const n = lost.reduce((sum, e) => sum + e.values, 0)
          onDrop(reason, n, example)
          values -= n
          events = events.filter(e => !lostHere(e)) // a retry sends the rest only
        }
        if (result.outcome === REJECTED) return
      }
      if (result.outcome === APPLIED) return
      if (lossless && result.outcome === NOT_APPLIED && !closing) {
        log?.warn({ reason: result.reason, events: events.length }, 'StatsD batch not applied; retrying (TCP reading is paused meanwhile)')
        await sleep(RETRY_MS)
        continue
      }
      const reason = result.outcome === REJECTED ? result.reason : result.outcome
      log?.warn({ outcome: result.outcome, reason: result.reason, message: result.message, values }, 'StatsD batch dropped')
      onDrop(PIPELINE_DROP_REASONS.includes(reason) ? reason : NOT_APPLIED, values)
      return
    }
  }

  async function run () {
    if (timer !== null) { timers.clearTimeout(timer); timer = null }
    const { events } = batch.take()
    wakeRoomWaiters()
    for (let i = 0; i < events.length; i += maxEvents) {
      const chunk = events.slice(i, i + maxEvents)
      await submitChunk(chunk, chunk.reduce((n, e) => n + e.values, 0))
    }
  }

  /** Submits what is held; resolves when this and any flush before it ended */
  function flush () {
    if (flushing) return flushing
    flushing = run().finally(() => {
      flushing = null
      if (closing && batch.size > 0) return flush()
      schedule()
    })
    return flushing
  }

  return {
    /** text: one or more lines, separated by \n */
    accept (text) {
      const now = clock.now()
      let received = 0
      for (const line of text.split('\n')) {
        const { samples, problems, values, kept } = parseLine(line)
        received += values
        // a lost value counts 1; lost tags count 1 per line (the line's values are kept)
        for (const p of problems) onDrop(p.reason, 1, line)
        // a packed line's values all go in, or (UDP, full) are all dropped
        if (samples.length === 0) continue
        // full and no submit in flight: submit now (the batch is taken at once) and read on
        if (full() && !flushing && !closing) flush()
        // a new counter name, a new distribution value, a new gauge name or a parked one takes a place in the batch
        if (!lossless && full() && samples.some(s => gauges.wouldPark(s) || batch.adds(s, now))) {
          onDrop('overload', kept, line)
          continue
        }
        // gauge deltas become levels in arrival order (a name whose level is not held waits for its stored one)
        const ready = gauges.resolve(samples, now)
        if (ready.length) batch.add(ready, now)
      }
      if (received) onReceived?.(received)
      schedule()
    },
    /** Whether the batch holds maxEvents (TCP: stop reading) */
    full,
    /** Resolves once the batch has room again */
    whenRoom () {
      if (!full()) return Promise.resolve()
      return new Promise(resolve => roomWaiters.push(resolve))
    },
    /** Events held, not yet submitted */
    get held () { return batch.size },
    /** Values parked, waiting for a gauge's stored level */
    get parked () { return gauges.parked },
    /** Submits everything held (and retries no more); for close */
    async close () {
      closing = true
      await gauges.idle() // parked gauge values join the batch first
      await flush()
      const waiters = roomWaiters
      roomWaiters = []
      for (const resolve of waiters) resolve()
    }
  }
}
