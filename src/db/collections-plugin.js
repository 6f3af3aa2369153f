// The collections the services share (db/collections.js), decorated once,
// after the missing ones are created with COLLECTION_COMPRESSOR and the
// existing ones left as they are; one line at boot says which were which
// (docs/adr/0055-zstd-by-default.md).
import fp from 'fastify-plugin'
import { collectionNames, collectionsOf } from './collections.js'
import { createCollections, describeCollections } from './create-collections.js'

async function collections (app) {
  const { mongo, config } = app
  const report = await createCollections(mongo.db, collectionNames({ keys: mongo.transactions }), config.collectionCompressor)
  const existing = Object.fromEntries(report.existing.map(e => [e.name, e.compressor]))
  app.log.info({ compressor: report.compressor, created: report.created, existing }, describeCollections(report, mongo.backend))
  app.decorate('collections', collectionsOf(mongo.db))
}

export default fp(collections, { name: 'collections', dependencies: ['database'] })
