// Preallocation: the probabilistic preallocator and the node-cron sweep
// (src/store/preallocator.js, src/store/prealloc-sweep.js), both stopped on close.
import fp from 'fastify-plugin'
import { createPreallocSweep } from '../../store/prealloc-sweep.js'
import { createPreallocator } from '../../store/preallocator.js'
import { horizonsFor } from '../../bucket/retention-horizons.js'

/** options: random (() => [0, 1)), sweepSchedule (start the cron job; default true) */
async function preallocation (app, { random, sweepSchedule = true } = {}) {
  const { config, clock, layout, collections, telemetry } = app
  const log = app.log.child({ component: 'preallocation' })
  const preallocator = createPreallocator(collections, {
    layout, clock, random, probability: config.preallocProbability, logger: log, telemetry, horizons: horizonsFor(config)
  })
  const sweep = createPreallocSweep({
    metrics: collections.metrics,
    daily: collections.daily,
    preallocator,
    clock,
    rate: config.preallocSweepRate,
    cronExpression: config.preallocCron,
    logger: log
  })
  app.decorate('preallocator', preallocator)
  app.decorate('sweep', sweep)
  if (sweepSchedule) sweep.start()
  app.addHook('onClose', async () => {
    await sweep.stop()
    await preallocator.close()
  })
}

export default fp(preallocation, { name: 'preallocation', dependencies: ['collections', 'telemetry'] })
