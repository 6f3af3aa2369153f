// What a read by tag sends to the database: the documents of all the series
// of a read come in one `$in` per collection (and, for a percentile, one more
// for the minute histograms), however many series the read groups (before:
// one request per series and collection, 101 to 303 for these reads), and
// the name's own documents are not read (its answer only gives the shape).
// A find answers all its documents in its first batch (no getMore). The
// commands are counted by the driver's command monitor.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MongoClient } from 'mongodb'
import { manualClock } from '../../src/clock.js'
import { IDS_PER_REQUEST } from '../../src/reader/documents.js'
import { mongodbUri, testApp } from '../helpers/test-app.js'

const NOW = Date.UTC(2026, 10, 21, 12, 0)
const HOUR = 3_600_000
const SERIES = 100
let app
let client
let finds = []

beforeAll(async () => {
  client = new MongoClient(mongodbUri(), { monitorCommands: true })
  await client.connect()
  client.on('commandStarted', (e) => {
    if (e.commandName === 'find') finds.push({ collection: e.command.find, ids: e.command.filter?._id?.$in ?? [], batchSize: e.command.batchSize })
    if (e.commandName === 'getMore') finds.push({ collection: e.command.collection, getMore: true, ids: [] })
  })
  app = await testApp('tagged_reads_io', { client, clock: manualClock(NOW), env: { PREALLOC_PROBABILITY: '0' } })
  const body = []
  for (let i = 0; i < SERIES; i++) {
    const tags = { host: `h${String(i).padStart(3, '0')}`, az: ['a', 'b', 'c', 'd'][i % 4] }
    for (const [metric, kind] of [['io.requests', undefined], ['io.latency', 'distribution'], ['io.level', 'gauge']]) {
      body.push({ metric, ...(kind ? { kind } : {}), tags, value: 1 + (i % 7), ts: NOW - 2 * 24 * HOUR + i * 60_000 })
      body.push({ metric, ...(kind ? { kind } : {}), tags, value: 2 + (i % 5), ts: NOW - 30 * 60_000 + i * 1_000 })
    }
  }
  for (let i = 0; i < body.length; i += 200) {
    const res = await app.inject({ method: 'POST', url: '/v1/events', payload: body.slice(i, i + 200) })
    expect(res.statusCode, res.body).toBe(200)
  }
})
afterAll(async () => {
  await app?.close()
  await client?.close()
})

/** The finds (and getMores) of the documents a read sends (the registry's left out: its cache may be cold) → [{ collection, ids, getMore? }] */
async function findsOf (url) {
  finds = []
  const res = await app.inject(url)
  expect(res.statusCode, res.body).toBe(200)
  return finds.filter(f => f.collection !== 'metrics')
}

const window = `from=${NOW - 3 * 24 * HOUR}&to=${NOW}`
// [label, url, finds per collection at most]: one, or as many as IDS_PER_REQUEST cuts a read into
const READS = [
  ['counter series by=host, hour points', `/v1/metrics/io.requests/series?${window}&step=hour&by=host`],
  ['counter series by=az, minutes', `/v1/metrics/io.requests/series?from=${NOW - HOUR}&to=${NOW}&step=minute&by=az`],
  ['counter series by=host, day points in a zone', `/v1/metrics/io.requests/series?${window}&step=day&tz=Asia/Kathmandu&by=host`],
  ['counter total by=host', `/v1/metrics/io.requests/total?from=${NOW - 2 * 24 * HOUR - 15 * 60_000}&to=${NOW}&by=host`],
  ['counter top by=host', `/v1/metrics/io.requests/top?${window}&by=host&k=5`],
  ['counter ytd by=host', '/v1/metrics/io.requests/ytd?by=host'],
  // a local year's months read 23 documents a series: 2,300 ids, two requests of at most IDS_PER_REQUEST
  ['counter ytd by=host in a zone', '/v1/metrics/io.requests/ytd?by=host&tz=Asia/Kathmandu', 2],
  ['distribution series p99 by=host', `/v1/metrics/io.latency/series?from=${NOW - HOUR}&to=${NOW}&step=minute&stat=p99&by=host`],
  ['distribution series count by=az', `/v1/metrics/io.latency/series?${window}&step=hour&by=az`],
  ['distribution total by=host', `/v1/metrics/io.latency/total?${window}&by=host`],
  ['distribution ytd by=host', '/v1/metrics/io.latency/ytd?by=host'],
  ['gauge series by=host', `/v1/metrics/io.level/series?${window}&step=hour&by=host`]
]

describe(`a by= read of ${SERIES} series`, () => {
  it.each(READS)('%s: the documents of all series in one request per collection, none of the name\'s', async (label, url, most = 1) => {
    const sent = await findsOf(url)
    // a find's first batch may hold every document its ids name (mongod's default is 101): no getMore
    expect(sent.filter(f => f.getMore)).toEqual([])
    for (const f of sent) expect(f.batchSize).toBe(f.ids.length)
    const collections = new Set(sent.map(f => f.collection))
    for (const collection of collections) expect(sent.filter(f => f.collection === collection).length, collection).toBeLessThanOrEqual(most)
    const ids = sent.flatMap(f => f.ids)
    expect(ids.every(id => id.includes(';'))).toBe(true) // a series' id; the name's (io.requests/…) is never asked for
    expect(sent.every(f => f.ids.length <= IDS_PER_REQUEST)).toBe(true)
    expect(new Set(ids.map(id => id.slice(0, id.lastIndexOf('/')))).size).toBe(SERIES)
  })
})
