// SLO definitions stored through PUT /v1/slos/:name (docs/slos.md#stored-slos):
// one document per SLO, the OpenSLO document kept as JSON text (its labels'
// keys may hold dots and dollars), read on every use so that every instance
// answers with the same definitions. A stored document this version no
// longer reads is skipped and named by `refused`.
import { MAX_SLOS, SloDefinitionError, parseSlo } from './definitions.js'

/** collection: the slos collection (db/collections.js) */
export function createStoredSlos (collection) {
  return {
    /** → { slos: [definition], refused: [{ name, error }] }, by name */
    async all () {
      const docs = await collection.find({}, { sort: { _id: 1 }, limit: MAX_SLOS }).toArray()
      const slos = []
      const refused = []
      for (const doc of docs) {
        try {
          slos.push({ ...parseSlo(JSON.parse(doc.text)), stored: true })
        } catch (err) {
          if (!(err instanceof SloDefinitionError) && !(err instanceof SyntaxError)) throw err
          refused.push({ name: doc._id, error: err.message })
        }
      }
      return { slos, refused }
    },

    /** How many are stored */
    count: () => collection.countDocuments({}),

    /** Store `document` (already read by parseSlo) under its name → { created } */
    async put (name, document, now) {
      const result = await collection.replaceOne({ _id: name }, { text: JSON.stringify(document), updatedAt: new Date(now) }, { upsert: true })
      return { created: result.upsertedCount === 1 }
    },

    /** → whether there was one */
    async delete (name) {
      return (await collection.deleteOne({ _id: name })).deletedCount === 1
    }
  }
}
