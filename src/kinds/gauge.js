// The gauge (docs/kinds/gauge.md): a level (a queue depth) kept per tier as
// count, sum, min, max and the last level by event time (an older write
// never replaces a newer `last`). JSON `kind: 'gauge'`, StatsD `g`. Pure.
import { addGaugeUpdate, buildGaugeUnit } from '../bucket/gauge-increments.js'
import { GAUGE, GAUGE_KIND } from '../bucket/metric-kinds.js'
import { findInvalidGaugeEvent } from '../bucket/gauge-rules.js'
import { QUARTER_HOUR_DETAIL } from '../bucket/increments.js'
import { GAUGE_STAT_NAMES } from '../bucket/gauge-stats.js'
import { gaugeUpdate } from './document-updates.js'
import {
  compareGaugeDay, gaugeDayGuard, gaugeMinutesVouched, gaugeVouchProjection, holdsWholeGaugeDay, sameGaugeStored,
  verifyGaugeDaily, verifyGaugeMonthly
} from './consistency/gauge.js'

const toOperation = (id, doc) => gaugeUpdate(id, doc)

export const gauge = Object.freeze({
  name: GAUGE_KIND,
  statsdTypes: Object.freeze(['g']),
  json: Object.freeze({ defaultValue: null, valueMissing: 'a gauge\'s event needs its value (the level at ts, e.g. a queue depth)' }),
  askedKind: () => GAUGE,
  // not preallocated: a level is written where it falls (docs/kinds/gauge.md)
  preallocated: false,
  findInvalidEvents: findInvalidGaugeEvent,
  unitProblem: () => null,
  collections: Object.freeze({ daily: 'gaugeDaily', monthly: 'gaugeMonthly' }),
  parts: Object.freeze([
    Object.freeze({ collection: 'gaugeDaily', prefix: 'gd:', add: addGaugeUpdate, toOperation }),
    Object.freeze({ collection: 'gaugeMonthly', prefix: 'gm:', add: addGaugeUpdate, toOperation })
  ]),
  buildPart (events, { keepsMinutes }) {
    const part = buildGaugeUnit(events, { keepsMinutes })
    for (const seen of part.metrics.values()) seen.kind = GAUGE
    return { docs: { gaugeDaily: part.daily, gaugeMonthly: part.monthly }, metrics: part.metrics }
  },
  stats: Object.freeze({ names: GAUGE_STAT_NAMES, percentiles: false, default: 'last' }),
  /**
   * How a stat's points consolidate over a span: `last` is the span's last
   * level, min and max its extremes, count and sum add, and mean is merged
   * again (Σ sum ÷ Σ count over the span), averaged only where a function
   * made new values. Never a sum of levels.
   */
  consolidation: Object.freeze({ last: 'last', min: 'min', max: 'max', count: 'sum', sum: 'sum', mean: 'average' }),
  merged: Object.freeze(['mean']),
  reads: Object.freeze({ series: true, total: false, ytd: false, quantiles: false }),
  refusals: Object.freeze({
    stat: (name) => `it keeps no histogram, so stat=${name} is a distribution's; use ${GAUGE_STAT_NAMES.join(', ')}`,
    total: 'a gauge has no total (its levels do not add up); read …/series?stat=last, min, max, mean, count or sum, with step=day or step=month for long ranges',
    ytd: 'a gauge has no year-to-date total (its levels do not add up); read …/series?stat=last, min, max, mean, count or sum, with step=day or step=month for long ranges',
    quantiles: 'quantiles are kept for distributions only (values sent with "kind": "distribution", or StatsD ms, h and d)'
  }),
  /** The dashboard: what a point of its default series (last) is */
  dashboard: Object.freeze({ point: 'level' }),
  /** Graphite: the name is a leaf of its default stat (last), and a branch of its stat leaves */
  graphite: Object.freeze({ nameIsLeaf: true, statLeaves: Object.freeze(['count', 'last', 'max', 'mean', 'min', 'sum']) }),
  check: Object.freeze({
    // as a distribution's: a gauge's day has carried the `detail` marker since its first write
    verifyDaily: (doc) => verifyGaugeDaily(doc, { minutesComplete: doc.detail !== QUARTER_HOUR_DETAIL }),
    verifyMonthly: verifyGaugeMonthly,
    dayTotal: (doc, verifyDay) => verifyDay(doc).dayTier ?? {},
    compareDay: compareGaugeDay,
    dayRepair: (now, mismatch) => mismatch.repair,
    same: sameGaugeStored
  }),
  retention: Object.freeze({ name: GAUGE_KIND, vouched: gaugeMinutesVouched, guard: gaugeDayGuard, holdsWholeDay: holdsWholeGaugeDay, projection: gaugeVouchProjection() })
})
