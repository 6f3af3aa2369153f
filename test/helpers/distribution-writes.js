// Distribution values written to a real database as the writer writes them:
// buildDistributionUnit's one update per document (distributionUpdate: $inc,
// $min, $max, upsert; a minute-hour document's $inc), and the metric's
// registry entry a distribution's.
import { buildDistributionUnit } from '../../src/bucket/distribution-increments.js'
import { distributionUpdate, incrementUpdate } from '../../src/writer/write-operations.js'

/**
 * events: [{ metric, value, time, weight? }]; mapping: the metric's (createMapping);
 * parts: which documents to write ('daily', 'monthly', 'minutes': a flush half-way writes some only);
 * keepsMinutes and thresholdsOf (declared thresholds) as for buildDistributionUnit
 */
export async function writeDistributions (db, events, mapping, { parts = ['daily', 'monthly', 'minutes'], keepsMinutes, thresholdsOf } = {}) {
  const unit = buildDistributionUnit(events, mapping, { keepsMinutes, thresholdsOf })
  if (parts.includes('daily')) await db.collection('distributionDaily').bulkWrite([...unit.daily].map(([id, u]) => distributionUpdate(id, u)))
  if (parts.includes('monthly')) await db.collection('distributionMonthly').bulkWrite([...unit.monthly].map(([id, u]) => distributionUpdate(id, u)))
  if (parts.includes('minutes') && unit.minutes.size > 0) await db.collection('distributionMinutes').bulkWrite([...unit.minutes].map(([id, u]) => incrementUpdate(id, u)))
  await db.collection('metrics').bulkWrite([...unit.metrics.keys()].map(name => ({
    updateOne: { filter: { _id: name }, update: { $setOnInsert: { kind: 'distribution', accuracy: mapping.accuracy, firstSeen: new Date(0) } }, upsert: true }
  })))
  return unit
}
