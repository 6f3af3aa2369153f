// The two minute layouts of the 2012 talk's experiment, for the load
// generator's reproduction of it (never the service's: it writes
// minute.H.M only, src/bucket/minute-fields.js).
//
// hierarchical: minute.H.M, the service's documents, in `daily`.
// flat (the talk's v1): minute.0..1439 in `daily_flat` — an update of a late
// minute walks up to 1440 keys. The experiment's flat writer is the
// service's code behind a collection that renames the minute fields of
// every update it is given (flatCollection), so both layouts run the same
// writer, preallocator and naive path.

const HIERARCHICAL_MINUTE = /^minute\.(\d+)\.(\d+)$/

/** A day document's $inc map in the flat layout: minute.H.M → minute.(60H + M) */
export function flatIncrements (inc) {
  const out = {}
  for (const [field, value] of Object.entries(inc)) {
    const m = HIERARCHICAL_MINUTE.exec(field)
    out[m ? `minute.${Number(m[1]) * 60 + Number(m[2])}` : field] = value
  }
  return out
}

const flatUpdate = (update) => (update.$inc ? { ...update, $inc: flatIncrements(update.$inc) } : update)

function flatOperation (op) {
  if (op.updateOne) return { updateOne: { ...op.updateOne, update: flatUpdate(op.updateOne.update) } }
  if (op.updateMany) return { updateMany: { ...op.updateMany, update: flatUpdate(op.updateMany.update) } }
  return op
}

/** A collection whose updates write flat minute fields (the talk's v1) */
export function flatCollection (collection) {
  return {
    updateOne: (filter, update, options) => collection.updateOne(filter, flatUpdate(update), options),
    bulkWrite: (operations, options) => collection.bulkWrite(operations.map(flatOperation), options),
    find: (...args) => collection.find(...args),
    drop: () => collection.drop()
  }
}

export const LAYOUTS = Object.freeze({
  hierarchical: Object.freeze({ name: 'hierarchical', collection: 'daily', dailyCollection: (db) => db.collection('daily') }),
  flat: Object.freeze({ name: 'flat', collection: 'daily_flat', dailyCollection: (db) => flatCollection(db.collection('daily_flat')) })
})
