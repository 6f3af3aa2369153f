// The reader of the queries (src/store/reader.js).
import fp from 'fastify-plugin'
import { createReader } from '../../store/reader.js'

async function reader (app) {
  app.decorate('reader', createReader({ collections: app.collections }))
}

export default fp(reader, { name: 'reader', dependencies: ['collections'] })
