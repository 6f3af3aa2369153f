// Keeps the Graphite name index (./name-index.js) fresh across instances
// (docs/adr/0024-graphite-read-budget.md): names added to the registry
// anywhere since the last look are read every `intervalMs` through its
// `added` index, and the whole index is rebuilt every `rebuildEveryMs`
// (which also drops metrics deleted through another instance). A new metric
// is findable within `intervalMs`. Only an entry's making changes what the
// index holds (its name and kind; a kind never changes), so the entries
// written again each minute are not read again
// (docs/adr/0086-name-index-reads-what-was-added.md).
import { kindOfEntry } from '../bucket/metric-kinds.js'

// The entries added since `since`, and those a 0.1.0 instance wrote (it moved `lastWrite` at each
// write): during a rolling upgrade their names are learnt as before; after it, `lastWrite` never moves
export const addedSince = (since) => ({ $or: [{ added: { $gte: since } }, { lastWrite: { $gte: since } }] })

export const MARGIN_MS = 120_000 // a flush in flight when the last look ran, and clocks a little apart
// Names read per round trip. The driver hands a batch's documents over in
// microtasks, so a batch is one stretch the event loop cannot interrupt: a
// rebuild of 1,000,000 names in 16 MB batches, then one synchronous build,
// held it for a second (docs/benchmarks.md#cardinality).
export const READ_BATCH = 1000
// a name and its kind (metric-kinds.js kindOfEntry reads both fields): a distribution is a Graphite branch of stat leaves
const PROJECTION = { _id: 1, kind: 1, accuracy: 1 }

export function createNameIndexRefresh ({ index, metrics, clock, timers, intervalMs = 10_000, rebuildEveryMs = 3_600_000, logger }) {
  let lastLook = null
  let lastRebuild = null
  let timer = null
  let running = null
  let stopped = false

  /** Every entry of the registry to visit(entry), a batch at a time */
  async function readAll (visit) {
    for await (const entry of metrics.find({}, { projection: PROJECTION, batchSize: READ_BATCH })) visit(entry)
  }

  /** scan(visit): every registry entry to visit (default: read here) */
  async function rebuild (scan = readAll) {
    const started = clock.now()
    // built beside the one in use, a batch at a time, and swapped in whole with what changed here meanwhile
    await index.rebuildFrom(add => scan(entry => add(entry._id, kindOfEntry(entry).kind)))
    lastLook = started
    lastRebuild = started
  }

  async function look () {
    const started = clock.now()
    if (lastRebuild === null || started - lastRebuild >= rebuildEveryMs) return rebuild()
    const since = new Date(lastLook - MARGIN_MS)
    // a metric deleted here while the look reads stays deleted (readInto)
    await index.readInto(async (add) => {
      for await (const entry of metrics.find(addedSince(since), { projection: PROJECTION, batchSize: READ_BATCH })) add(entry._id, kindOfEntry(entry).kind)
    })
    lastLook = started
  }

  function tick () {
    if (stopped || running) return
    running = look()
      .catch(err => logger.warn({ err }, 'graphite name index: refresh failed; retried on the next tick'))
      .finally(() => {
        running = null
        if (!stopped) timer = timers.setTimeout(tick, intervalMs)
        timer?.unref?.() // a background look never keeps a process alive
      })
  }

  return {
    /**
     * The first full load (at boot); scan(visit) hands every registry entry
     * over, so the boot reads the registry once (./plugin.js)
     */
    load: (scan) => rebuild(scan),
    start () {
      timer = timers.setTimeout(tick, intervalMs)
      timer?.unref?.()
    },
    /** One look now (tests) */
    refresh: look,
    async stop () {
      stopped = true
      timers.clearTimeout(timer)
      await running
    }
  }
}
