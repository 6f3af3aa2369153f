// The reader (src/reader/reader.js): series, total and ytd for the JSON
// routes and the Graphite API, at the detail each metric keeps today.
import fp from 'fastify-plugin'
import { horizonsFor } from '../bucket/retention-horizons.js'
import { createReader } from './reader.js'
import { createTaggedReads } from './tagged-reads.js'

async function reader (app) {
  const { config, clock, collections, registry } = app
  const horizonsOf = horizonsFor(config)
  const instance = createReader({
    collections,
    registry,
    horizonsOf: metric => horizonsOf(metric, clock.now()),
    maxPoints: config.maxPoints,
    maxReadBuckets: config.maxReadBuckets,
    thresholds: app.thresholds
  })
  app.decorate('reader', instance)
  // reads by tag: the name's series the tag index (registry/tag-index.js) finds, each read as above
  app.decorate('taggedReads', createTaggedReads({ reader: instance, registry, tags: app.nameIndex.tags, maxSeries: config.maxSeries, rollups: app.rollups }))
}

export default fp(reader, { name: 'reader', dependencies: ['collections', 'registry'] })
