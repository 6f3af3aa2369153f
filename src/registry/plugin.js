// The metric registry (src/registry/metric-registry.js), loaded at boot, and the
// Graphite name index of its names (src/registry/name-index.js), kept fresh
// across instances by a periodic look through the `added` index.
import fp from 'fastify-plugin'
import { createMetricRegistry } from './metric-registry.js'
import { createNameIndex } from './name-index.js'
import { createNameIndexRefresh } from './name-index-refresh.js'
import { realTimers } from '../clock.js'
import { createRollups } from '../tags/rollups.js'
import { recordRollups } from './rollup-records.js'
import { recordThresholds } from './threshold-records.js'
import { createThresholds } from '../bucket/distribution-thresholds.js'
import { createDeclaredZones } from './zone-records.js'

/** options: nameIndexRefresh (start the periodic look; default true), timers */
async function registry (app, { nameIndexRefresh = true, timers = realTimers } = {}) {
  const { metrics } = app.collections
  // what the name index's look reads by (the registry's recently added), and the sweep (today's busy metrics, by name)
  await metrics.createIndex({ added: 1 }, { name: 'added' })
  await metrics.createIndex({ lastWrite: 1 }, { name: 'lastWrite' }) // what 0.1.0 instances move (name-index-refresh.js addedSince)
  await metrics.createIndex({ busyDay: 1, _id: 1 }, { name: 'busyDay' })
  const names = createNameIndex()
  const instance = createMetricRegistry({ collection: metrics, maxMetrics: app.config.maxMetrics, maxSeriesPerName: app.config.maxSeriesPerName, statsdNewPerMinute: app.config.statsdNewMetricsPerMinute, statsdShare: app.config.statsdRegistryPercent / 100, names })
  const refresh = createNameIndexRefresh({ index: names, metrics, clock: app.clock, timers, logger: app.log.child({ component: 'graphite-names' }) })
  // one read of the registry fills both: a boot's cost grows with its entries (docs/operations.md#boot)
  await refresh.load(visit => instance.load(visit))
  if (nameIndexRefresh) refresh.start()
  // declared rollups (docs/tags.md#declared-rollups): each read only from when it began
  // each from MAX_FUTURE_MS after: an event stored before it began may be dated that far ahead
  const lead = app.config.maxFutureMs
  const sinceOf = await recordRollups(app.collections.rollups, app.config.rollupRules ?? [], app.clock.now(), lead)
  app.decorate('rollups', createRollups(app.config.rollupRules ?? [], sinceOf))
  // declared distribution thresholds (docs/kinds/distribution.md#thresholds): each exact only from when it began
  const thresholdRules = app.config.thresholdRules ?? []
  app.decorate('thresholds', createThresholds(thresholdRules, await recordThresholds(app.collections.thresholds, thresholdRules, app.clock.now(), lead)))
  // local days of the SLOs' zones in the month documents (docs/adr/0073-local-days-in-the-month.md): declared by the SLOs plugin
  app.decorate('zones', createDeclaredZones(app.collections.zones, { leadMs: lead }))
  app.decorate('registry', instance)
  app.decorate('nameIndex', Object.assign(names, { refresh: refresh.refresh }))
  app.addHook('onClose', () => refresh.stop())
}

export default fp(registry, { name: 'registry', dependencies: ['collections'] })
