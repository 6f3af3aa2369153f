// Gauge levels written to a real database as the writer writes them:
// buildGaugeUnit's one update per document (gaugeUpdate: $inc, $min, $max,
// `last` { t, v } by $max, upsert), and the metric's registry entry a gauge's.
import { buildGaugeUnit } from '../../src/bucket/gauge-increments.js'
import { gaugeUpdate } from '../../src/writer/write-operations.js'

/**
 * events: [{ metric, value, time, summary? }];
 * parts: which documents to write ('daily', 'monthly': a flush half-way writes one only);
 * keepsMinutes as for buildGaugeUnit
 */
export async function writeGauges (db, events, { parts = ['daily', 'monthly'], keepsMinutes } = {}) {
  const unit = buildGaugeUnit(events, { keepsMinutes })
  if (parts.includes('daily')) await db.collection('gaugeDaily').bulkWrite([...unit.daily].map(([id, u]) => gaugeUpdate(id, u)))
  if (parts.includes('monthly')) await db.collection('gaugeMonthly').bulkWrite([...unit.monthly].map(([id, u]) => gaugeUpdate(id, u)))
  await db.collection('metrics').bulkWrite([...unit.metrics.keys()].map(name => ({
    updateOne: { filter: { _id: name }, update: { $setOnInsert: { kind: 'gauge', firstSeen: new Date(0) } }, upsert: true }
  })))
  return unit
}
