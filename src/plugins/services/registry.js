// The metric registry (src/store/metric-registry.js), loaded at boot.
import fp from 'fastify-plugin'
import { createMetricRegistry } from '../../store/metric-registry.js'

async function registry (app) {
  const instance = createMetricRegistry({ collection: app.collections.metrics, maxMetrics: app.config.maxMetrics })
  await instance.load()
  app.decorate('registry', instance)
}

export default fp(registry, { name: 'registry', dependencies: ['collections'] })
