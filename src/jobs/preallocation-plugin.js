// Preallocation: the probabilistic preallocator and the sweep on
// PREALLOC_CRON (src/jobs/preallocator.js, src/jobs/prealloc-sweep.js), both
// stopped on close.
import fp from 'fastify-plugin'
import { scheduleInUtc } from './cron-schedule.js'
import { createPreallocSweep } from './prealloc-sweep.js'
import { createPreallocator } from './preallocator.js'
import { horizonsFor } from '../bucket/retention-horizons.js'
import { isRollupSeries } from '../tags/rollups.js'
import { isTagged } from '../tags/series-name.js'

/**
 * What a metric's day is preallocated with, in order (an event's draw, the
 * sweep's busy metric): a series with its name and rollups; a rollup, or a
 * name with series (known here, or learnt from another instance's writes by
 * the tag index), nothing alone: their days come with a series'
 * (docs/adr/0081-preallocate-a-series-with-its-name-and-rollups.md)
 */
export function preallocationGroupOf ({ rollups, registry, nameIndex }) {
  return (name) => {
    if (isRollupSeries(name)) return []
    if (isTagged(name)) return rollups.writtenTo(name)
    return registry.seriesCount(name) > 0 || nameIndex.tags.count(name) > 0 ? [] : [name]
  }
}

/** options: random (() => [0, 1)), sweepSchedule (start the cron job; default true), timers (the sweep's pace: src/clock.js) */
async function preallocation (app, { random, sweepSchedule = true, timers } = {}) {
  const { config, clock, collections, telemetry } = app
  const log = app.log.child({ component: 'preallocation' })
  const groupOf = preallocationGroupOf(app)
  const preallocator = createPreallocator(collections, {
    clock, random, probability: config.preallocProbability, logger: log, telemetry, horizons: horizonsFor(config), groupOf
  })
  const sweep = createPreallocSweep({
    metrics: collections.metrics,
    daily: collections.daily,
    monthly: collections.monthly,
    preallocator,
    clock,
    rate: config.preallocSweepRate,
    logger: log,
    timers,
    groupOf
  })
  app.decorate('preallocator', preallocator)
  app.decorate('sweep', sweep)
  if (sweepSchedule) scheduleInUtc(app, { expression: config.preallocCron, name: 'prealloc-sweep', run: () => sweep.runOnce() })
  app.addHook('onClose', async () => {
    await sweep.stop()
    await preallocator.close()
  })
}

export default fp(preallocation, { name: 'preallocation', dependencies: ['collections', 'telemetry', 'registry'] })
