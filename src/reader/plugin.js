// The reader (src/reader/reader.js): series, total and ytd for the JSON
// routes and the Graphite API, at the detail each metric keeps today.
import fp from 'fastify-plugin'
import { horizonsFor } from '../bucket/retention-horizons.js'
import { createReader } from './reader.js'

async function reader (app) {
  const { config, clock, collections, registry } = app
  const horizonsOf = horizonsFor(config)
  app.decorate('reader', createReader({
    collections,
    registry,
    horizonsOf: metric => horizonsOf(metric, clock.now()),
    maxPoints: config.maxPoints,
    maxReadBuckets: config.maxReadBuckets
  }))
}

export default fp(reader, { name: 'reader', dependencies: ['collections', 'registry'] })
