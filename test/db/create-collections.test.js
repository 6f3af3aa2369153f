// How statbucket creates its collections (src/db/create-collections.js), on a
// stand-in database that records what it is asked: the options of each
// create for every COLLECTION_COMPRESSOR value, existing collections left
// alone, a create raced by another process, a refused create, and the line
// said at boot. The same against a real server, through the driver's
// command monitoring: test/db/collections-plugin.test.js.
import { describe, expect, it } from 'vitest'
import { COMPRESSORS, compressorOf, createCollections, creationOptions, describeCollections } from '../../src/db/create-collections.js'
import { collectionNames } from '../../src/db/collections.js'
import { KIND_COLLECTIONS } from '../../src/kinds/index.js'

/** listed: what listCollections answers (whatever the filter, as mongo-java-server does); fail: name → error its create throws */
function standInDb ({ listed = [], fail = new Map() } = {}) {
  const calls = []
  return {
    calls,
    listCollections (filter, options) {
      calls.push({ listCollections: filter, options })
      return { toArray: async () => structuredClone(listed) }
    },
    async createCollection (name, options) {
      calls.push({ create: name, options: structuredClone(options) })
      if (fail.has(name)) throw fail.get(name)
      return { collectionName: name }
    }
  }
}

const serverError = (code, message) => Object.assign(new Error(message), { name: 'MongoServerError', code })
const zstdOptions = { storageEngine: { wiredTiger: { configString: 'block_compressor=zstd' } } }
// a listCollections entry as a mongod answers it, and as mongo-java-server does
const mongodEntry = (name, options = {}) => ({ name, type: 'collection', options, info: { readOnly: false }, idIndex: { v: 2, key: { _id: 1 }, name: '_id_' } })
const javaEntry = name => ({ name, options: {}, info: { readOnly: false }, type: 'collection', idIndex: { key: { _id: 1 }, name: '_id_', v: 2 } })

describe('the collections statbucket creates', () => {
  it('are the registry, every kind\'s, the jobs\', the rollups\', the thresholds\' and the SLOs\'; Idempotency-Key\'s only where it is used', () => {
    expect(collectionNames({ keys: false })).toEqual(['metrics', ...KIND_COLLECTIONS, 'jobs', 'rollups', 'thresholds', 'zones', 'slos'])
    expect(collectionNames({ keys: true })).toEqual(['metrics', ...KIND_COLLECTIONS, 'jobs', 'rollups', 'thresholds', 'zones', 'slos', 'idempotency_keys'])
    expect(KIND_COLLECTIONS).toEqual(['daily', 'monthly', 'distributionDaily', 'distributionMonthly', 'distributionMinutes', 'gaugeDaily', 'gaugeMonthly'])
  })
})

describe('createCollections', () => {
  it.each(COMPRESSORS)('creates each missing collection with block_compressor=%s, and nothing else', async (compressor) => {
    const db = standInDb()
    const names = collectionNames({ keys: true })
    const report = await createCollections(db, names, compressor)
    expect(db.calls).toEqual([
      { listCollections: { name: { $in: names } }, options: undefined },
      ...names.map(name => ({ create: name, options: { storageEngine: { wiredTiger: { configString: `block_compressor=${compressor}` } } } }))
    ])
    expect(report).toEqual({ compressor, created: names, existing: [] })
  })

  it('zstd is the first value, the default', () => {
    expect(COMPRESSORS).toEqual(['zstd', 'snappy', 'none'])
  })

  it('leaves existing collections as they are, telling what their options name, and ignores collections it did not ask for', async () => {
    const db = standInDb({
      listed: [
        mongodEntry('daily', { storageEngine: { wiredTiger: { configString: 'block_compressor=snappy' } } }),
        mongodEntry('monthly'), // created by a write: the server's default
        javaEntry('metrics'),
        mongodEntry('someone.elses', { storageEngine: { wiredTiger: { configString: 'block_compressor=zlib' } } })
      ]
    })
    const report = await createCollections(db, ['metrics', 'daily', 'monthly', 'jobs'], 'zstd')
    expect(db.calls.filter(c => c.create)).toEqual([{ create: 'jobs', options: zstdOptions }])
    expect(report).toEqual({
      compressor: 'zstd',
      created: ['jobs'],
      existing: [{ name: 'metrics', compressor: null }, { name: 'daily', compressor: 'snappy' }, { name: 'monthly', compressor: null }]
    })
  })

  it('takes a collection another process created meanwhile (NamespaceExists) as existing, and goes on', async () => {
    const db = standInDb({ fail: new Map([['daily', serverError(48, 'Collection already exists. NS: s.daily')]]) })
    const report = await createCollections(db, ['daily', 'monthly'], 'snappy')
    expect(db.calls.filter(c => c.create).map(c => c.create)).toEqual(['daily', 'monthly'])
    expect(report).toEqual({ compressor: 'snappy', created: ['monthly'], existing: [{ name: 'daily', compressor: null, meanwhile: true }] })
  })

  it('stops at a create the server refuses, its error marked with the collection and the compressor', async () => {
    const refused = serverError(72, 'invalid option: block_compressor')
    const db = standInDb({ fail: new Map([['monthly', refused]]) })
    const err = await createCollections(db, ['daily', 'monthly', 'jobs'], 'zstd').catch(e => e)
    expect(err).toBe(refused)
    expect(err.collection).toEqual({ name: 'monthly', compressor: 'zstd' })
    expect(db.calls.filter(c => c.create).map(c => c.create)).toEqual(['daily', 'monthly'])
  })

  it('asks each collection once when a name is given twice', async () => {
    const db = standInDb()
    expect((await createCollections(db, ['jobs', 'jobs'], 'none')).created).toEqual(['jobs'])
    expect(db.calls.filter(c => c.create)).toHaveLength(1)
  })
})

describe('creationOptions', () => {
  it('names WiredTiger\'s block compressor, and refuses a value outside COLLECTION_COMPRESSOR\'s', () => {
    expect(creationOptions('zstd')).toEqual(zstdOptions)
    expect(creationOptions('none')).toEqual({ storageEngine: { wiredTiger: { configString: 'block_compressor=none' } } })
    for (const bad of ['ZSTD', 'zlib', '', 'zstd,prefix_compression=false', undefined, '__proto__']) {
      expect(() => creationOptions(bad)).toThrow(/^creationOptions: compressor must be one of zstd, snappy, none, got /)
    }
  })
})

describe('compressorOf', () => {
  it('reads block_compressor from a listCollections entry\'s options, null where they name none', () => {
    const withConfig = configString => mongodEntry('c', { storageEngine: { wiredTiger: { configString } } })
    expect(compressorOf(withConfig('block_compressor=zstd'))).toBe('zstd')
    expect(compressorOf(withConfig('prefix_compression=true,block_compressor=snappy,leaf_page_max=64KB'))).toBe('snappy')
    expect(compressorOf(withConfig('block_compressor='))).toBe('none') // WiredTiger: empty is none
    expect(compressorOf(withConfig('block_compressor=none'))).toBe('none')
    expect(compressorOf(withConfig('leaf_page_max=64KB'))).toBeNull()
    expect(compressorOf(withConfig('xblock_compressor=zstd'))).toBeNull()
    expect(compressorOf(mongodEntry('c', { storageEngine: { wiredTiger: { configString: 42 } } }))).toBeNull()
    expect(compressorOf(mongodEntry('c'))).toBeNull()
    expect(compressorOf(javaEntry('c'))).toBeNull()
    expect(compressorOf({ name: 'c' })).toBeNull()
  })
})

describe('describeCollections: the line said at boot', () => {
  it('on a mongod: what was created with what, and what existing collections keep', () => {
    expect(describeCollections({ compressor: 'zstd', created: ['metrics', 'daily'], existing: [] }, 'mongod'))
      .toBe('collections: created metrics, daily with block_compressor=zstd (COLLECTION_COMPRESSOR)')
    expect(describeCollections({
      compressor: 'zstd',
      created: ['gaugeDaily'],
      existing: [{ name: 'metrics', compressor: 'zstd' }, { name: 'daily', compressor: null }, { name: 'monthly', compressor: null }, { name: 'jobs', compressor: 'snappy' }, { name: 'gaugeMonthly', compressor: null, meanwhile: true }]
    }, 'mongod')).toBe('collections: created gaugeDaily with block_compressor=zstd (COLLECTION_COMPRESSOR); existing collections keep their compressor: ' +
      'metrics (zstd); daily, monthly (the server\'s default when created); jobs (snappy); gaugeMonthly (created meanwhile by another process)')
    expect(describeCollections({ compressor: 'none', created: [], existing: [{ name: 'daily', compressor: 'zstd' }] }, 'unknown'))
      .toBe('collections: existing collections keep their compressor: daily (zstd)')
    expect(describeCollections({ compressor: 'zstd', created: [], existing: [] }, 'mongod')).toBe('collections: none to create')
  })

  it('on mongo-java-server: that it ignores the compressor and tells none', () => {
    expect(describeCollections({ compressor: 'zstd', created: ['jobs'], existing: [{ name: 'daily', compressor: null }] }, 'mongo-java-server'))
      .toBe('collections: created jobs with block_compressor=zstd (COLLECTION_COMPRESSOR); existing collections keep their compressor: daily (not told); ' +
        'mongo-java-server has no WiredTiger and ignores the compressor')
  })
})
