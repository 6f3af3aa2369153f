// The reproduction of a repair that deleted acknowledged counts,
// through the real app and the real `npm run check` process: backfilled
// events past the minute horizon with PREALLOC_PROBABILITY=1 (the event of
// day −100 preallocates day −99), then check and --repair. The day series
// must still answer [5, 7]. Also for data the old preallocator left behind
// (a day past the horizon zero-filled with 1,440 minutes and no `detail`).
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { dayZeroIncrements } from '../../src/bucket/minute-fields.js'
import { directDb, testApp, uniqueDbName } from '../helpers/test-app.js'
import { useDatabase } from './harness.js'

const CHECK = fileURLToPath(new URL('../../src/jobs/check-command.js', import.meta.url))
const DAY = 86_400_000
const NOW = Date.UTC(2026, 10, 21, 12)
const TODAY = NOW - (NOW % DAY)
const server = useDatabase()
let app, client, db, dbName

beforeAll(async () => {
  dbName = uniqueDbName('backfillrepair')
  app = await testApp('backfillrepair', { uri: server.uri, clock: manualClock(NOW), env: { MONGODB_DB: dbName, PREALLOC_PROBABILITY: '1' }, keepDatabase: true })
  ;({ client, db } = await directDb(dbName, server.uri))
})
afterAll(async () => { await app?.close(); await db?.dropDatabase().catch(() => {}); await client?.close() })

function check (args) {
  return new Promise(resolve => {
    // the check runs today (real time) while the app's clock says NOW: both far past the horizon of day −100
    execFile(process.execPath, [CHECK, ...args], {
      env: { PATH: process.env.PATH, MONGODB_URI: server.uri, MONGODB_DB: dbName, WRITE_TIMEOUT_MS: '100' },
      timeout: 60_000
    }, (error, stdout, stderr) => resolve({ code: error ? error.code : 0, stdout, stderr }))
  })
}

const daySeries = async (metric, firstDay, days) => {
  const res = await app.inject({ url: `/v1/metrics/${metric}/series?from=${firstDay}&to=${firstDay + days * DAY}&step=day` })
  expect(res.statusCode).toBe(200)
  return res.json().values
}

describe('check --repair after backfill past the minute horizon', () => {
  it('keeps [5, 7]: preallocation writes no minutes past the horizon, and check has nothing to repair', async () => {
    const d100 = TODAY - 100 * DAY
    const post = await app.inject({ method: 'POST', url: '/v1/events', payload: [{ metric: 'old.backfill', value: 5, ts: d100 + 3_600_000 }] })
    expect(post.statusCode).toBe(200)
    await app.preallocator.idle() // day −99 preallocated now, before its own event
    const prealloc = await db.collection('daily').findOne({ _id: `old.backfill/${new Date(d100 + DAY).toISOString().slice(0, 10).replaceAll('-', '')}` })
    expect(prealloc).toMatchObject({ daily: 0, detail: 'quarterHour' })
    expect(prealloc.minute).toBeUndefined()
    expect((await app.inject({ method: 'POST', url: '/v1/events', payload: [{ metric: 'old.backfill', value: 7, ts: d100 + DAY + 7_200_000 }] })).statusCode).toBe(200)
    await app.preallocator.idle()
    expect(await daySeries('old.backfill', d100, 2)).toEqual([5, 7])

    const found = await check(['--prefix', 'old.backfill'])
    expect(found.stdout).toMatch(/: 0 violations$/m)
    expect(found.code).toBe(0)
    expect((await check(['--repair', '--prefix', 'old.backfill'])).code).toBe(0)
    expect(await daySeries('old.backfill', d100, 2)).toEqual([5, 7])
  })

  it('leaves alone what the old preallocator wrote (1,440 zero minutes past the horizon, no detail) and ingest then wrote without minutes', async () => {
    const d99 = TODAY - 99 * DAY
    const id = `legacy.backfill/${new Date(d99).toISOString().slice(0, 10).replaceAll('-', '')}`
    // as the old preallocator left it: every counter zero-filled, minutes included, no `detail`
    const zero = dayZeroIncrements()
    await db.collection('daily').updateOne({ _id: id }, { $inc: zero, $setOnInsert: { metric: 'legacy.backfill', date: new Date(d99) } }, { upsert: true })
    // then an event written by ingest without its minute, as the old ingest did (no `detail` either)
    await db.collection('daily').updateOne({ _id: id }, { $inc: { daily: 7, 'hourly.2': 7, 'quarterHourly.2.0': 7 } })
    await db.collection('monthly').updateOne({ _id: id.slice(0, -2) }, { $inc: { monthly: 7, [`daily.${new Date(d99).getUTCDate()}`]: 7 }, $setOnInsert: { metric: 'legacy.backfill', date: new Date(Date.UTC(new Date(d99).getUTCFullYear(), new Date(d99).getUTCMonth(), 1)) } }, { upsert: true })
    await db.collection('metrics').updateOne({ _id: 'legacy.backfill' }, { $set: { firstSeen: new Date(d99), lastSeen: new Date(d99), added: new Date(NOW) } }, { upsert: true })

    const found = await check(['--prefix', 'legacy.'])
    expect(found.stdout).toMatch(/: 0 violations$/m) // the old check said "daily expected 0 found 7" and more
    expect(found.code).toBe(0)
    const repaired = await check(['--repair', '--prefix', 'legacy.'])
    expect(repaired.code).toBe(0)
    expect(await daySeries('legacy.backfill', d99, 1)).toEqual([7])
    const ytd = await app.inject({ url: `/v1/metrics/legacy.backfill/total?from=${d99}&to=${d99 + DAY}` })
    expect(ytd.json().total).toBe(7)
  })
})
