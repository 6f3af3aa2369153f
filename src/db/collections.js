// The collections of a statbucket database, by the name the services use:
// the service's plugin and the commands (check, retention) take them from
// here, so both see the same ones.
export function collectionsOf (db) {
  return {
    daily: db.collection('daily'),
    monthly: db.collection('monthly'),
    // distributions: the same day and month documents, each tier a histogram (docs/architecture.md, "Documents")
    distributionDaily: db.collection('distributionDaily'),
    distributionMonthly: db.collection('distributionMonthly'),
    // a distribution's minute histograms, one document per metric-hour (bucket/distribution-increments.js)
    distributionMinutes: db.collection('distributionMinutes'),
    // gauges: the same day and month documents, each tier { count, sum, min, max, last }
    // (docs/decisions.md, "Gauges: a level per minute, `last` by event time")
    gaugeDaily: db.collection('gaugeDaily'),
    gaugeMonthly: db.collection('gaugeMonthly'),
    metrics: db.collection('metrics')
  }
}
