// GET /healthz (the process runs), GET /readyz (the database answers a ping)
import { errorResponses } from '../schemas/common.js'

const readyBody = {
  type: 'object',
  properties: {
    status: { type: 'string' },
    backend: { type: 'string' },
    transactions: { type: 'boolean' },
    retention: {
      type: 'object',
      description: 'The retention in force (null days: forever); per-metric rules override the two defaults.',
      properties: {
        minuteDays: { type: ['integer', 'null'] },
        dailyDays: { type: ['integer', 'null'] },
        rules: { type: 'integer', description: 'how many RETENTION_RULES entries' },
        cron: { type: 'string' },
        rate: { type: 'integer' }
      }
    },
    error: { type: 'string' }
  }
}

export default async function healthRoutes (app) {
  const { mongo, config } = app
  const retention = {
    minuteDays: config.minuteRetentionDays,
    dailyDays: config.dailyRetentionDays,
    rules: config.retentionRules.length,
    cron: config.retentionCron,
    rate: config.retentionRate
  }

  app.get('/healthz', {
    schema: { summary: 'Liveness', tags: ['health'], response: { 200: { type: 'object', properties: { status: { type: 'string' } } } } }
  }, async () => ({ status: 'ok' }))

  app.get('/readyz', {
    schema: { summary: 'Readiness: the database answers a ping', tags: ['health'], response: { 200: readyBody, 503: readyBody, ...errorResponses(500) } }
  }, async (request, reply) => {
    const body = { backend: mongo.backend, transactions: mongo.transactions, retention }
    try {
      await mongo.db.command({ ping: 1 })
      return { status: 'ready', ...body }
    } catch (err) {
      request.log.warn({ err }, 'readiness ping failed')
      reply.code(503).header('retry-after', 1)
      return { status: 'unavailable', ...body, error: 'the database did not answer a ping' }
    }
  })
}
