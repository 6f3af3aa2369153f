// The retention job in the service: a pass on RETENTION_CRON
// (UTC), never two at once in this process (node-cron noOverlap) nor across
// instances (the `retention` lease), stopped on close before the database.
import fp from 'fastify-plugin'
import cron from 'node-cron'
import { createRetentionForDb } from '../../store/retention-service.js'

async function retention (app, { schedule = true, sleep } = {}) {
  const { config, clock, mongo } = app
  const { daily, monthly, metrics } = app.collections
  const job = createRetentionForDb({
    db: mongo.db,
    collections: { daily, monthly, metrics },
    config,
    clock,
    sleep,
    logger: app.log.child({ component: 'retention' })
  })
  const task = schedule
    ? cron.schedule(config.retentionCron, () => job.runOnce(), { timezone: 'Etc/UTC', noOverlap: true, name: 'retention' })
    : null

  app.decorate('retention', { runOnce: job.runOnce })
  app.addHook('onClose', async () => {
    await task?.destroy()
    await job.stop()
  })
}

export default fp(retention, { name: 'retention', dependencies: ['database', 'collections'] })
