// The retention job in the service: a pass on RETENTION_CRON
// (UTC), never two at once in this process (node-cron noOverlap) nor across
// instances (the `retention` lease), stopped on close before the database.
import fp from 'fastify-plugin'
import { scheduleInUtc } from './cron-schedule.js'
import { createRetentionForDb } from './retention-service.js'

async function retention (app, { schedule = true, sleep } = {}) {
  const { config, clock, mongo, telemetry } = app
  const job = createRetentionForDb({
    db: mongo.db,
    collections: app.collections,
    config,
    clock,
    sleep,
    bulkUpdates: mongo.bulkUpdates,
    logger: app.log.child({ component: 'retention' })
  })
  const runOnce = () => job.runOnce().then(pass => { telemetry.publish('retention', pass); return pass })
  if (schedule) scheduleInUtc(app, { expression: config.retentionCron, name: 'retention', run: runOnce })

  app.decorate('retention', { runOnce })
  app.addHook('onClose', async () => {
    await job.stop()
  })
}

export default fp(retention, { name: 'retention', dependencies: ['database', 'collections', 'telemetry'] })
