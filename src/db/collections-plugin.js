// The collections the services share and the bucket layout in force.
import fp from 'fastify-plugin'
import { LAYOUTS } from '../bucket/layouts.js'

async function collections (app) {
  const layout = LAYOUTS[app.config.bucketLayout]
  const { db } = app.mongo
  app.decorate('layout', layout)
  app.decorate('collections', {
    daily: db.collection(layout.collection),
    monthly: db.collection('monthly'),
    // distributions: the same day and month documents, each tier a histogram (docs/architecture.md#documents)
    distributionDaily: db.collection('distributionDaily'),
    distributionMonthly: db.collection('distributionMonthly'),
    // a distribution's minute histograms, one document per metric-hour (bucket/distribution-increments.js)
    distributionMinutes: db.collection('distributionMinutes'),
    // gauges: the same day and month documents, each tier { count, sum, min, max, last }
    // (docs/adr/0044-gauges-last-by-event-time.md)
    gaugeDaily: db.collection('gaugeDaily'),
    gaugeMonthly: db.collection('gaugeMonthly'),
    metrics: db.collection('metrics')
  })
}

export default fp(collections, { name: 'collections', dependencies: ['database'] })
