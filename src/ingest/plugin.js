// The ingest service (src/ingest/ingest.js): every door (POST /v1/events,
// and the StatsD doors) calls `app.ingest.submit`.
import fp from 'fastify-plugin'
import { createIngestService } from './ingest.js'

async function ingest (app) {
  const { config, clock, registry, writer, idempotency, preallocator, mongo, rollups, thresholds, zones } = app
  app.decorate('ingest', createIngestService({ config, clock, registry, writer, idempotency, preallocator, backend: mongo.backend, rollups, thresholds, zonedOf: zones.zonedOf }))
}

export default fp(ingest, { name: 'ingest', dependencies: ['collections', 'registry', 'writer', 'idempotency', 'preallocation'] })
