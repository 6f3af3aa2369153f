// The collections of a statbucket database, by name: every kind's
// (kinds/index.js) and the registry. The service's plugin and the commands
// (check, retention) take them from here, so both see the same ones.
import { KIND_COLLECTIONS } from '../kinds/index.js'

export function collectionsOf (db) {
  const collections = { metrics: db.collection('metrics') }
  for (const name of KIND_COLLECTIONS) collections[name] = db.collection(name)
  return collections
}
