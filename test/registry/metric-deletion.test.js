// Deleting a metric (registry/metric-deletion.js) on a real database: a
// distribution's minute-hour documents (distributionMinutes) go with its day
// and month documents, in bounded batches, and no neighbour's (names sharing
// its prefix).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createMapping } from '../../src/bucket/distribution-sketch.js'
import { createMetricDeletion } from '../../src/registry/metric-deletion.js'
import { collectionsOf } from '../../src/db/collections.js'
import { writeDistributions } from '../helpers/distribution-writes.js'
import { hourIdsOfDay } from '../helpers/minute-histograms.js'
import { directDb, uniqueDbName } from '../helpers/test-app.js'

const DAY = 86_400_000
const D = Date.UTC(2026, 10, 29)
const MAPPING = createMapping(0.01)
let client, db

beforeAll(async () => { ({ client, db } = await directDb(uniqueDbName('metricdel'))) })
afterAll(async () => { await db?.dropDatabase().catch(() => {}); await client?.close() })
beforeEach(async () => {
  for (const collection of Object.values(collectionsOf(db))) await collection.deleteMany({})
  // every hour of three days across a month's end, for del.x and for names that share its prefix or sort next to it
  for (const metric of ['del.x', 'del.x.y', 'del.xy', 'del.x-']) {
    const events = []
    for (let back = 0; back < 3; back++) for (let h = 0; h < 24; h++) events.push({ metric, value: 10 + h, time: D + back * DAY + h * 3_600_000 + 60_000 * h })
    await writeDistributions(db, events, MAPPING)
  }
})

const collections = () => collectionsOf(db)
const idsOf = async name => (await db.collection(name).find({}, { projection: { _id: 1 } }).sort({ _id: 1 }).toArray()).map(d => d._id)

describe('deleting a distribution', () => {
  it('deletes its minute-hour documents with its day and month documents, a batch at a time, and none of its neighbours\'; again deletes nothing', async () => {
    const before = await idsOf('distributionMinutes')
    const mine = [D, D + DAY, D + 2 * DAY].flatMap(day => hourIdsOfDay('del.x', day))
    for (const id of mine) expect(before).toContain(id)
    const deletion = createMetricDeletion(collections(), { batchSize: 7 })
    expect(await deletion.deleteMetric('del.x')).toEqual({ registry: 1, daily: 3, monthly: 2, minuteHours: 72 })
    expect(await idsOf('distributionMinutes')).toEqual(before.filter(id => !mine.includes(id)))
    expect((await idsOf('distributionMinutes')).filter(id => id.startsWith('del.x/'))).toEqual([])
    expect(await idsOf('distributionMinutes')).toHaveLength(3 * 72)
    expect(await deletion.deleteMetric('del.x')).toEqual({ registry: 0, daily: 0, monthly: 0, minuteHours: 0 })
  })
})

describe('deleting a name\'s tagged series', () => {
  it('takes the series listed (rollups, values with / and %) in round trips per batch, not per series; a series written since, and every neighbour, stay', async () => {
    const series = [...Array.from({ length: 40 }, (_, i) => `del.x;host=h${i}`), 'del.x;route=/a%b', 'del.x;~host;host=h1']
    await writeDistributions(db, series.map((metric, i) => ({ metric, value: 5 + i, time: D + 60_000 })), MAPPING)
    // neighbours: a name it prefixes, a name's series that sorts after it; and a series of its own written after the listing
    await writeDistributions(db, ['del.x.y;host=h0', 'del.xy;host=h0', 'del.x;host=late'].map(metric => ({ metric, value: 3, time: D + 60_000 })), MAPPING)
    const deletion = createMetricDeletion(collections(), { batchSize: 1000 })
    const listed = (await deletion.seriesOf('del.x')).filter(s => s !== 'del.x;host=late')
    expect([...listed].sort()).toEqual([...series].sort())
    const before = { daily: await idsOf('distributionDaily'), metrics: await idsOf('metrics') }
    const calls = { find: 0, deleteMany: 0 }
    const counted = Object.fromEntries(Object.entries(collections()).map(([name, c]) => [name, new Proxy(c, {
      get: (target, key) => (key in calls ? (...args) => { calls[key]++; return target[key](...args) } : Reflect.get(target, key).bind?.(target) ?? Reflect.get(target, key))
    })]))
    expect(await createMetricDeletion(counted, { batchSize: 1000 }).deleteSeriesOf('del.x', listed)).toEqual({ registry: 42, daily: 42, monthly: 42, minuteHours: 42 })
    // per collection: a batch read, its deleteMany where it holds some, the read that finds no more; whatever the number of series
    expect(calls.find + calls.deleteMany).toBeLessThanOrEqual(3 * Object.keys(collections()).length)
    const gone = id => listed.some(s => id.startsWith(s.replace('/', '%2F').replace('%b', '%25b') + '/'))
    expect(await idsOf('distributionDaily')).toEqual(before.daily.filter(id => !gone(id)))
    expect(await idsOf('distributionDaily')).toEqual(expect.arrayContaining(['del.x;host=late/20261129', 'del.x.y;host=h0/20261129', 'del.xy;host=h0/20261129', 'del.x/20261129']))
    expect(await idsOf('metrics')).toEqual(before.metrics.filter(id => !listed.includes(id)))
    expect(await idsOf('metrics')).toEqual(expect.arrayContaining(['del.x', 'del.x;host=late', 'del.x.y', 'del.x.y;host=h0', 'del.xy', 'del.xy;host=h0']))
    expect(await deletion.deleteSeriesOf('del.x', listed)).toEqual({ registry: 0, daily: 0, monthly: 0, minuteHours: 0 })
    expect(await deletion.deleteSeriesOf('del.x.y;host=h0', ['del.x.y;host=h0'])).toEqual({ registry: 0, daily: 0, monthly: 0, minuteHours: 0 })
    expect(await idsOf('distributionDaily')).toContain('del.x.y;host=h0/20261129')
  })
})
