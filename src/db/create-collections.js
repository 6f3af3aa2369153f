// How statbucket creates its collections (docs/adr/0055-zstd-by-default.md):
// each one missing is created with the WiredTiger block compressor
// COLLECTION_COMPRESSOR names; one that exists is left as it is, and what
// the server tells of its compressor is reported. A mongod keeps the option
// and lists it (listCollections' `options.storageEngine`); mongo-java-server
// accepts it and ignores it (it has no WiredTiger), lists every collection
// with empty options and ignores listCollections' filter. Both answer
// NamespaceExists to a create of a collection that exists.

/** COLLECTION_COMPRESSOR's values, the default first */
export const COMPRESSORS = Object.freeze(['zstd', 'snappy', 'none'])

const NAMESPACE_EXISTS = 48

/** The createCollection options that give a new collection `compressor` */
export function creationOptions (compressor) {
  if (!COMPRESSORS.includes(compressor)) {
    throw new TypeError(`creationOptions: compressor must be one of ${COMPRESSORS.join(', ')}, got ${JSON.stringify(compressor)}`)
  }
  return { storageEngine: { wiredTiger: { configString: `block_compressor=${compressor}` } } }
}

/**
 * The block compressor a listCollections entry was created with, or null
 * when its options name none (it got the server's default, or the server
 * keeps no such options). WiredTiger reads an empty value as none.
 */
export function compressorOf (entry) {
  const configString = entry?.options?.storageEngine?.wiredTiger?.configString
  if (typeof configString !== 'string') return null
  const m = /(?:^|,)\s*block_compressor\s*=\s*"?([\w-]*)"?\s*(?:,|$)/.exec(configString)
  return m ? (m[1] || 'none') : null
}

/**
 * Creates each of `names` that `db` lacks with `compressor`, one at a time,
 * and leaves the others as they are. → { compressor, created: [name],
 * existing: [{ name, compressor (null: not named), meanwhile? (another
 * process created it between the listing and the create) }] }. A create the
 * server refuses throws its error, marked { collection: { name, compressor } }.
 */
export async function createCollections (db, names, compressor) {
  const wanted = new Set(names)
  // filtered here too: mongo-java-server answers every collection whatever the filter
  const listed = (await db.listCollections({ name: { $in: [...wanted] } }).toArray()).filter(c => wanted.has(c.name))
  const found = new Map(listed.map(c => [c.name, c]))
  const created = []
  const existing = []
  for (const name of wanted) {
    if (found.has(name)) {
      existing.push({ name, compressor: compressorOf(found.get(name)) })
      continue
    }
    try {
      await db.createCollection(name, creationOptions(compressor))
      created.push(name)
    } catch (err) {
      if (err?.code !== NAMESPACE_EXISTS) throw Object.assign(err, { collection: { name, compressor } })
      existing.push({ name, compressor: null, meanwhile: true })
    }
  }
  return { compressor, created, existing }
}

/**
 * The one line said at boot: what was created with which compressor, and
 * that existing collections keep theirs, with what the server tells of it.
 * backend: 'mongod' | 'mongo-java-server' | 'unknown' (db/capabilities.js).
 */
export function describeCollections ({ compressor, created, existing }, backend) {
  const parts = []
  if (created.length > 0) parts.push(`created ${created.join(', ')} with block_compressor=${compressor} (COLLECTION_COMPRESSOR)`)
  if (existing.length > 0) {
    const groups = new Map()
    for (const e of existing) {
      const label = backend === 'mongo-java-server'
        ? 'not told'
        : e.meanwhile ? 'created meanwhile by another process' : e.compressor ?? 'the server\'s default when created'
      groups.set(label, [...(groups.get(label) ?? []), e.name])
    }
    parts.push(`existing collections keep their compressor: ${[...groups].map(([label, ns]) => `${ns.join(', ')} (${label})`).join('; ')}`)
  }
  if (backend === 'mongo-java-server') parts.push('mongo-java-server has no WiredTiger and ignores the compressor')
  return `collections: ${parts.join('; ') || 'none to create'}`
}
