// `npm run check -- --repair` while a real statbucket process takes a load of
// increments to the very documents it repairs: no acknowledged
// increment is lost or doubled. Documents are corrupted under load in every
// tier the repair restores (a day's total and an hour inside a daily
// document, a day of a monthly document), the repair runs during the load,
// and the totals end equal to the client's own tally of acknowledged events.
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { MongoClient } from 'mongodb'
import { describe, expect, it } from 'vitest'
import { documentsFor } from '../helpers/bucket-docs.js'
import { createTally, describeLogs, onCleanup, runLoad, startStatbucket, storedTotals, total, uniqueDb, useDatabase, waitFor } from './harness.js'

const CHECK = fileURLToPath(new URL('../../src/jobs/check-command.js', import.meta.url))
const WRITE_TIMEOUT_MS = 5000
const DAY = 86_400_000
const metrics = ['rl.a', 'rl.b']
const server = useDatabase({ heap: '512m' })

function check (dbName, args) {
  return new Promise(resolve => {
    execFile(process.execPath, [CHECK, ...args], {
      env: { PATH: process.env.PATH, MONGODB_URI: server.uri, MONGODB_DB: dbName, WRITE_TIMEOUT_MS: String(WRITE_TIMEOUT_MS) },
      timeout: 120_000
    }, (error, stdout, stderr) => resolve({ code: error ? error.code : 0, stdout, stderr }))
  })
}

describe('repair under load', () => {
  it('repairs documents that are being incremented without losing or doubling an acknowledged event', async () => {
    const dbName = uniqueDb('repair')
    const client = await new MongoClient(server.uri).connect()
    onCleanup(() => client.close())
    const db = client.db(dbName)
    // yesterday: documents no one writes any more (their monthly day can be confirmed while today's cannot)
    const today = Date.now() - (Date.now() % DAY)
    const yesterday = today - DAY
    const old = documentsFor(metrics.map(metric => ({ metric, value: 40, time: yesterday + 7 * 3_600_000 })))
    await db.collection('daily').insertMany(old.daily)
    for (const m of old.monthly) {
      await db.collection('monthly').updateOne({ _id: m._id }, { $inc: { monthly: m.monthly, ...Object.fromEntries(Object.entries(m.daily).map(([d, v]) => [`daily.${d}`, v])) }, $setOnInsert: { metric: m.metric, date: m.date } }, { upsert: true })
    }

    const sb = await startStatbucket({ MONGODB_URI: server.uri, MONGODB_DB: dbName, WRITE_TIMEOUT_MS: String(WRITE_TIMEOUT_MS), MAX_EVENTS_PER_REQUEST: '50' })
    onCleanup(() => sb.stop())
    const tally = createTally()
    const load = runLoad(sb.port, { metrics, tally, concurrency: 4, maxBatch: 10, keepAlive: true, durationMs: 90_000, timeoutMs: 15_000, pauseMs: 5 })
    await waitFor(() => (tally.statuses[200] ?? 0) >= 50, { timeoutMs: 30_000, what: '50 acknowledged requests' })

    // corruption while the load runs: each $inc is atomic, ingest's increments keep landing around it
    const dayOfMonth = new Date(today).getUTCDate()
    const monthOf = ms => `${new Date(ms).toISOString().slice(0, 7).replace('-', '')}`
    const dayKey = ms => new Date(ms).toISOString().slice(0, 10).replaceAll('-', '')
    for (const m of metrics) {
      await db.collection('daily').updateOne({ _id: `${m}/${dayKey(today)}` }, { $inc: { daily: 7, 'hourly.0': 11 } })
      await db.collection('monthly').updateOne({ _id: `${m}/${monthOf(today)}` }, { $inc: { [`daily.${dayOfMonth}`]: 5, monthly: 5 } })
      await db.collection('daily').updateOne({ _id: `${m}/${dayKey(yesterday)}` }, { $inc: { daily: -3 } })
      await db.collection('monthly').updateOne({ _id: `${m}/${monthOf(yesterday)}` }, { $inc: { [`daily.${new Date(yesterday).getUTCDate()}`]: 2, monthly: 2 } })
    }
    const during = await check(dbName, ['--repair', '--prefix', 'rl.'])
    const stillRunning = tally.requests
    await waitFor(() => tally.requests > stillRunning + 20, { timeoutMs: 30_000, what: 'the load to go on after the repair' })
    await load.stop()
    expect(sb.alive(), describeLogs(sb)).toBe(true)
    for (const status of Object.keys(tally.statuses)) expect(['200', '503']).toContain(status)
    expect(tally.errors).toEqual({})

    // repaired during the load: each daily document's total from its minutes, yesterday's month from its day
    expect(during.stdout).toMatch(/rl\.a\/\d{8} daily: expected .* \[repaired\]/)
    expect(during.stdout).toMatch(new RegExp(`rl\\.a/${monthOf(yesterday)} daily\\.${new Date(yesterday).getUTCDate()}: .*\\[repaired\\]`))
    const afterLoad = await storedTotals(server.uri, dbName)
    for (const m of metrics) expect(afterLoad.daily[m], m).toBe((tally.acked[m] ?? 0) + 40)

    // quiet now: what was still moving (today's monthly day) settles and is repaired
    const quiet = await check(dbName, ['--repair'])
    expect(quiet.code, quiet.stdout + quiet.stderr).toBe(0)
    const final = await check(dbName, [])
    expect(final.code, final.stdout).toBe(0)
    const stored = await storedTotals(server.uri, dbName)
    for (const m of metrics) {
      expect(stored.daily[m], m).toBe((tally.acked[m] ?? 0) + 40)
      expect(stored.monthly[m], m).toBe((tally.acked[m] ?? 0) + 40)
    }
    console.log(`repair under load: ${tally.requests} requests ${JSON.stringify(tally.statuses)}; acknowledged ${total(tally.acked)} events; during the load the repair said:\n${during.stdout}`)
  }, 240_000)
})
