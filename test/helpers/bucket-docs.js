// Documents as the contract describes them, built by brute force
// from a list of events for tests that seed a database directly: every tier
// summed on its own, no code of the service involved.
const DAY = 86_400_000
const pad = (n, w) => String(n).padStart(w, '0')

export function dayKeyOf (ms) {
  const d = new Date(ms)
  return `${pad(d.getUTCFullYear(), 4)}${pad(d.getUTCMonth() + 1, 2)}${pad(d.getUTCDate(), 2)}`
}

/** events: [{ metric, value, time }] → { daily: [docs], monthly: [docs] } */
export function documentsFor (events, { quarterHourly = true, minute = true } = {}) {
  const daily = new Map()
  const monthly = new Map()
  for (const { metric, value, time } of events) {
    const d = new Date(time)
    const dayStart = time - (time % DAY)
    const h = d.getUTCHours(); const m = d.getUTCMinutes(); const q = Math.floor(m / 15)
    const dayId = `${metric}/${dayKeyOf(time)}`
    let doc = daily.get(dayId)
    if (!doc) {
      doc = { _id: dayId, metric, date: new Date(dayStart), daily: 0, hourly: {} }
      if (quarterHourly) doc.quarterHourly = {}
      if (minute) doc.minute = {}
      daily.set(dayId, doc)
    }
    doc.daily += value
    doc.hourly[h] = (doc.hourly[h] ?? 0) + value
    if (quarterHourly) {
      doc.quarterHourly[h] ??= {}
      doc.quarterHourly[h][q] = (doc.quarterHourly[h][q] ?? 0) + value
    }
    if (minute) {
      doc.minute[h] ??= {}
      doc.minute[h][m] = (doc.minute[h][m] ?? 0) + value
    }
    const monthId = `${metric}/${dayKeyOf(time).slice(0, 6)}`
    let month = monthly.get(monthId)
    if (!month) {
      month = { _id: monthId, metric, date: new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)), monthly: 0, daily: {} }
      monthly.set(monthId, month)
    }
    month.monthly += value
    month.daily[d.getUTCDate()] = (month.daily[d.getUTCDate()] ?? 0) + value
  }
  return { daily: [...daily.values()], monthly: [...monthly.values()] }
}

/** Seeds the daily, monthly and metrics collections of db with the documents of events */
export async function seed (db, events, options) {
  const { daily, monthly } = documentsFor(events, options)
  if (daily.length) await db.collection('daily').insertMany(daily)
  if (monthly.length) await db.collection('monthly').insertMany(monthly)
  const names = [...new Set(events.map(e => e.metric))]
  await db.collection('metrics').bulkWrite(names.map(name => ({
    updateOne: { filter: { _id: name }, update: { $setOnInsert: { firstSeen: new Date(0), lastSeen: new Date(0) } }, upsert: true }
  })))
  return { daily, monthly }
}
