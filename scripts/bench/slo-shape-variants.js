// What a counter's monthly document would cost if it held what a local
// day outside UTC needs (docs/adr/0068-slo-reads-outside-utc.md), beside
// the stored shape: (a) each UTC day's hours `hourly.D.H` in the same $inc,
// (b) each local day's sum in declared zones `zoned.Z.YYYYMMDD`. BSON bytes of
// a full month, and the database's time per event applying the writer's
// monthly $inc of each variant, in turns on one database, on collections of
// their own (dropped after). A measurement of shapes not stored.
import { BSON } from 'mongodb'
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../src/bucket/time.js'
import { localParts } from '../../src/bucket/local-time.js'
import { timeZone } from '../../src/bucket/time-zone.js'

const ZONES = ['Europe/Berlin', 'Asia/Kolkata'].map(z => timeZone(z))
const pad = n => String(n).padStart(2, '0')

/** The monthly $inc of an event at time t, value v, for a variant: 'stored', 'hours' (a) or 'zones' (b) */
export function monthlyIncrement (variant, t, v) {
  const d = new Date(t)
  const inc = { monthly: v, [`daily.${d.getUTCDate()}`]: v }
  if (variant === 'hours') inc[`hourly.${d.getUTCDate()}.${d.getUTCHours()}`] = v
  if (variant === 'zones') {
    ZONES.forEach((zone, i) => {
      const p = localParts(zone, t)
      inc[`zoned.${i}.${p.year}${pad(p.month)}${pad(p.day)}`] = v
    })
  }
  return inc
}

/** A month's document of a variant with an event every minute (31 days) → BSON bytes */
export function monthlyBytes (variant, monthStart = Date.UTC(2026, 0, 1)) {
  const doc = { _id: 'web.requests/202601', metric: 'web.requests', date: new Date(monthStart) }
  for (let t = monthStart; t < monthStart + 31 * DAY_MS; t += HOUR_MS) {
    for (const [path, v] of Object.entries(monthlyIncrement(variant, t, 60))) {
      const keys = path.split('.')
      let node = doc
      for (const k of keys.slice(0, -1)) node = (node[k] ??= {})
      node[keys.at(-1)] = (node[keys.at(-1)] ?? 0) + v
    }
  }
  return BSON.calculateObjectSize(doc)
}

export const VARIANTS = ['stored', 'hours', 'zones']

/**
 * The database's time per event for each variant: `rounds` turns of
 * `batch` updates (an event a minute of a full month, one metric per
 * update, as a flush of many metrics writes them), variants alternating
 * → { [variant]: { bytes, usPerEvent } }
 */
export async function shapeVariants (db, { metrics = 100, batch = 1000, rounds = 5 } = {}) {
  const out = {}
  for (const v of VARIANTS) out[v] = { bytes: monthlyBytes(v), ms: 0, events: 0 }
  const monthStart = Date.UTC(2026, 0, 1)
  // each variant's month filled first (a full month document is what an event updates late in the month)
  for (const v of VARIANTS) {
    const c = db.collection(`bench_slo_shape_${v}`)
    const docs = []
    for (let m = 0; m < metrics; m++) {
      const doc = { _id: `m${m}/202601` }
      for (let t = monthStart; t < monthStart + 31 * DAY_MS; t += HOUR_MS) {
        for (const [path, n] of Object.entries(monthlyIncrement(v, t, 1))) {
          const keys = path.split('.')
          let node = doc
          for (const k of keys.slice(0, -1)) node = (node[k] ??= {})
          node[keys.at(-1)] = (node[keys.at(-1)] ?? 0) + n
        }
      }
      docs.push(doc)
    }
    await c.insertMany(docs)
  }
  let k = 0
  for (let r = 0; r < rounds; r++) {
    for (const v of VARIANTS) {
      const ops = Array.from({ length: batch }, (_, i) => {
        const t = monthStart + ((k + i) * 37 % (31 * 24 * 60)) * MINUTE_MS
        return { updateOne: { filter: { _id: `m${(k + i) % metrics}/202601` }, update: { $inc: monthlyIncrement(v, t, 1) } } }
      })
      const t0 = performance.now()
      await db.collection(`bench_slo_shape_${v}`).bulkWrite(ops, { ordered: false })
      out[v].ms += performance.now() - t0
      out[v].events += batch
    }
    k += batch
  }
  for (const v of VARIANTS) await db.collection(`bench_slo_shape_${v}`).drop().catch(() => {})
  return Object.fromEntries(VARIANTS.map(v => [v, { bytes: out[v].bytes, usPerEvent: out[v].ms * 1000 / out[v].events }]))
}
