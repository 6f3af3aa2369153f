// The collections the services share (db/collections.js), decorated once.
import fp from 'fastify-plugin'
import { collectionsOf } from './collections.js'

async function collections (app) {
  app.decorate('collections', collectionsOf(app.mongo.db))
}

export default fp(collections, { name: 'collections', dependencies: ['database'] })
