// The shape of a daily document's minute counters, as one small strategy
// object shared by writer, preallocator and reader (docs/architecture.md#documents).
//
// hierarchical (default): minute.H.M — an update walks at most 24 + 60 keys.
// flat (the talk's v1, for the experiment only): minute.0..1439 — an update
// of a late minute walks up to 1440 keys; lives in its own collection.

const HOURS = Array.from({ length: 24 }, (_, h) => h)
const MINUTES = Array.from({ length: 60 }, (_, m) => m)

function dayTotalsZero () {
  const inc = { daily: 0 }
  for (const h of HOURS) {
    inc[`hourly.${h}`] = 0
    for (let q = 0; q < 4; q++) inc[`quarterHourly.${h}.${q}`] = 0
  }
  return inc
}

// Field names built once: the ingest loop looks them up instead of concatenating.
const HIERARCHICAL_MINUTE_FIELDS = Array.from({ length: 1440 }, (_, i) => `minute.${Math.floor(i / 60)}.${i % 60}`)
const FLAT_MINUTE_FIELDS = Array.from({ length: 1440 }, (_, i) => `minute.${i}`)

export const hierarchicalLayout = Object.freeze({
  name: 'hierarchical',
  collection: 'daily',
  minuteField: (hour, minute) => HIERARCHICAL_MINUTE_FIELDS[hour * 60 + minute],
  /** $inc map setting every counter of a day to +0 (preallocation); minutes false: the tiers above minutes only */
  zeroIncrements (minutes = true) {
    const inc = dayTotalsZero()
    if (minutes) for (const h of HOURS) for (const m of MINUTES) inc[`minute.${h}.${m}`] = 0
    return inc
  },
  /** The 1440 minute counters of a day document, 0 where absent */
  minutesOfDay (doc) {
    const out = new Array(1440).fill(0)
    const minute = doc.minute ?? {}
    for (const h in minute) {
      const hour = minute[h]
      for (const m in hour) out[Number(h) * 60 + Number(m)] = hour[m]
    }
    return out
  }
})

export const flatLayout = Object.freeze({
  name: 'flat',
  collection: 'daily_flat',
  minuteField: (hour, minute) => FLAT_MINUTE_FIELDS[hour * 60 + minute],
  zeroIncrements (minutes = true) {
    const inc = dayTotalsZero()
    if (minutes) for (let i = 0; i < 1440; i++) inc[`minute.${i}`] = 0
    return inc
  },
  minutesOfDay (doc) {
    const out = new Array(1440).fill(0)
    const minute = doc.minute ?? {}
    for (const i in minute) out[Number(i)] = minute[i]
    return out
  }
})

export const LAYOUTS = { hierarchical: hierarchicalLayout, flat: flatLayout }
