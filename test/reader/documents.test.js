// The reader alone (src/reader/documents.js) against the suite's database server,
// in a database of its own: which documents each read returns.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { IDS_PER_REQUEST, createDocumentReader as createReader, readInBatches } from '../../src/reader/documents.js'
import { directDb, uniqueDbName } from '../helpers/test-app.js'

let client, db, reader

beforeAll(async () => {
  const dbName = uniqueDbName('reader')
  ;({ client, db } = await directDb(dbName))
  const daily = db.collection('daily')
  const monthly = db.collection('monthly')
  await daily.insertMany([
    { _id: 'a/20261120', metric: 'a', date: new Date(Date.UTC(2026, 10, 20)), daily: 1, hourly: { 0: 1 }, quarterHourly: { 0: { 0: 1 } }, minute: { 0: { 0: 1 } } },
    { _id: 'a/20261121', metric: 'a', date: new Date(Date.UTC(2026, 10, 21)), daily: 2, hourly: { 1: 2 }, quarterHourly: { 1: { 0: 2 } }, minute: { 1: { 0: 2 } } },
    { _id: 'ab/20261121', metric: 'ab', date: new Date(Date.UTC(2026, 10, 21)), daily: 7, hourly: { 1: 7 } },
    // no quarterHourly: a shape no release writes (docs/adr/0048-no-upgrade-paths-before-the-first-release.md)
    { _id: 'old/20261122', metric: 'old', date: new Date(Date.UTC(2026, 10, 22)), daily: 10, hourly: { 10: 10 }, minute: { 10: { 0: 2, 14: 3, 15: 5 } } }
  ])
  await monthly.insertMany([
    { _id: 'a/202601', metric: 'a', date: new Date(Date.UTC(2026, 0, 1)), monthly: 4, daily: { 1: 4 } },
    { _id: 'a/202611', metric: 'a', date: new Date(Date.UTC(2026, 10, 1)), monthly: 3, daily: { 20: 1, 21: 2 } },
    { _id: 'a/202512', metric: 'a', date: new Date(Date.UTC(2025, 11, 1)), monthly: 99, daily: { 31: 99 } }
  ])
  reader = createReader({ collections: { daily, monthly } })
})

afterAll(async () => {
  await db?.dropDatabase().catch(() => {})
  await client?.close()
})

describe('reader', () => {
  it('seriesDocs reads the days of the window for that metric only (not a metric sharing its prefix)', async () => {
    const { docs, monthlyDocs } = await reader.seriesDocs('a', 'hour', Date.UTC(2026, 10, 20), Date.UTC(2026, 10, 22))
    expect(docs.map(d => d._id).sort()).toEqual(['a/20261120', 'a/20261121'])
    expect(monthlyDocs).toEqual([])
  })

  it('a day series of any length reads monthly documents only: at most 13 ids asked for a year, one request', async () => {
    const asked = []
    const counting = name => ({ find: (filter, options) => { asked.push([name, filter._id.$in.length]); return db.collection(name).find(filter, options) } })
    const counted = createReader({ collections: { daily: counting('daily'), monthly: counting('monthly') } })
    const { docs, monthlyDocs } = await counted.seriesDocs('a', 'day', Date.UTC(2025, 10, 21), Date.UTC(2026, 10, 21))
    expect(asked).toEqual([['monthly', 13]])
    expect(docs).toEqual([])
    expect(monthlyDocs.map(d => d._id).sort()).toEqual(['a/202512', 'a/202601', 'a/202611'])
    expect(monthlyDocs.every(d => d.monthly === undefined && d.daily)).toBe(true) // projected to the days
    asked.length = 0
    await counted.seriesDocs('a', 'day', Date.UTC(2026, 10, 20), Date.UTC(2026, 10, 23))
    expect(asked).toEqual([['monthly', 1]])
  })

  it('a document without the quarter-hour tier is read as stored: one request, no quarter-hours made from its minutes', async () => {
    const asked = []
    const counted = createReader({ collections: { daily: { find: (filter, options) => { asked.push(options.projection); return db.collection('daily').find(filter, options) } }, monthly: db.collection('monthly') } })
    const { docs } = await counted.seriesDocs('old', 'quarter-hour', Date.UTC(2026, 10, 22), Date.UTC(2026, 10, 23))
    expect(asked).toEqual([{ quarterHourly: 1 }])
    expect(docs).toEqual([{ _id: 'old/20261122' }])
  })

  it('ytdDocs reads the monthly documents of January up to asOf of that year only', async () => {
    const docs = await reader.ytdDocs('a', 2026, Date.UTC(2026, 10, 22, 12))
    expect(docs.map(d => d._id).sort()).toEqual(['a/202601', 'a/202611'])
  })

  it('planDocs fetches the ids a plan names, one request per collection, and none for an empty list', async () => {
    const out = await reader.planDocs({
      reads: {
        daily: { ids: ['a/20261121', 'a/20261130'], projection: { daily: 1 } },
        monthly: { ids: [], projection: { monthly: 1 } }
      }
    })
    expect(out).toEqual({ daily: [{ _id: 'a/20261121', daily: 2 }], monthly: [] })
  })
  it('plansDocs reads several plans with one request per collection and gives each plan its own documents', async () => {
    const asked = []
    const counting = name => ({ find: (filter, options) => { asked.push([name, filter._id.$in.length]); return db.collection(name).find(filter, options) } })
    const counted = createReader({ collections: { daily: counting('daily'), monthly: counting('monthly') } })
    const plan = (daily, monthly) => ({ reads: { daily: { ids: daily, projection: { daily: 1 } }, monthly: { ids: monthly, projection: { monthly: 1 } } } })
    const out = await counted.plansDocs([plan(['a/20261121'], ['a/202611']), plan(['ab/20261121', 'ab/20261122'], [])])
    expect(asked.sort()).toEqual([['daily', 3], ['monthly', 1]])
    expect(out).toEqual([
      { daily: [{ _id: 'a/20261121', daily: 2 }], monthly: [{ _id: 'a/202611', monthly: 3 }] },
      { daily: [{ _id: 'ab/20261121', daily: 7 }], monthly: [] }
    ])
  })
})

describe('readInBatches', () => {
  it('cuts the reads where a batch would ask for more than IDS_PER_REQUEST ids, never a read, and uses each batch before the next is fetched', async () => {
    const events = []
    const sizes = [IDS_PER_REQUEST / 2, IDS_PER_REQUEST / 2, 1, IDS_PER_REQUEST * 2, 3]
    const results = await readInBatches(sizes.map((size, i) => ({ i, size })), r => r.size, async batch => {
      events.push(['fetch', batch.map(r => r.i)])
      return batch.map(r => `docs ${r.i}`)
    }, async (r, docs) => { events.push(['use', r.i]); return docs })
    expect(results).toEqual(['docs 0', 'docs 1', 'docs 2', 'docs 3', 'docs 4'])
    expect(events).toEqual([['fetch', [0, 1]], ['use', 0], ['use', 1], ['fetch', [2]], ['use', 2], ['fetch', [3]], ['use', 3], ['fetch', [4]], ['use', 4]])
  })
})
