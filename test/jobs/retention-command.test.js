// `npm run retention -- --once` as a real process: usage and exit codes, one
// pass with the service's settings and per-metric rules, and a pass killed
// with SIGKILL half-way that the next run finishes.
import { execFile, spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { documentsFor, seed } from '../helpers/bucket-docs.js'
import { directDb, mongodbUri, uniqueDbName } from '../helpers/test-app.js'
import { collectionNames } from '../../src/db/collections.js'

const SCRIPT = fileURLToPath(new URL('../../src/jobs/retention-command.js', import.meta.url))
const DAY = 86_400_000
// the script reads the wall clock: documents are laid out from the real today
const TODAY = Date.now() - (Date.now() % DAY)
let client, db, dbName

beforeAll(async () => { dbName = uniqueDbName('retcli'); ({ client, db } = await directDb(dbName)) })
afterAll(async () => { await db?.dropDatabase().catch(() => {}); await client?.close() })
beforeEach(async () => { for (const c of ['daily', 'monthly', 'metrics', 'jobs']) await db.collection(c).deleteMany({}) })

const baseEnv = extra => ({ PATH: process.env.PATH, MONGODB_URI: mongodbUri(), MONGODB_DB: dbName, ...extra })

function run (args, env = {}) {
  return new Promise(resolve => {
    execFile(process.execPath, [SCRIPT, ...args], { env: baseEnv(env), timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? error.code : 0, stdout, stderr }))
  })
}

function eventsOver (metric, daysBack) {
  const events = []
  for (let back = 0; back <= daysBack; back++) {
    events.push({ metric, value: back + 1, time: TODAY - back * DAY + 5 * 3_600_000 + 7 * 60_000 })
  }
  return events
}

const daysBack = doc => Math.round((TODAY - doc.date.getTime()) / DAY)
const all = () => db.collection('daily').find().sort({ _id: 1 }).toArray()

describe('npm run retention', () => {
  it('usage: --help exits 0; no --once, an unknown option or a bad setting exits 2', async () => {
    const help = await run(['--help'])
    expect(help.code).toBe(0)
    expect(help.stdout).toMatch(/--once/)
    const noOnce = await run([])
    expect(noOnce.code).toBe(2)
    expect(noOnce.stderr).toMatch(/--once is required/)
    expect((await run(['--once', '--fast'])).code).toBe(2)
    const badRate = await run(['--once'], { RETENTION_RATE: 'fast' })
    expect(badRate.code).toBe(2)
    expect(badRate.stderr).toMatch(/RETENTION_RATE/)
    const badDaily = await run(['--once'], { DAILY_RETENTION_DAYS: '30', MAX_AGE_DAYS: '400' })
    expect(badDaily.code).toBe(2)
    expect(badDaily.stderr).toMatch(/DAILY_RETENTION_DAYS.*MAX_AGE_DAYS/)
    const badCompressor = await run(['--once'], { COLLECTION_COMPRESSOR: 'lz4' })
    expect(badCompressor.code).toBe(2)
    expect(badCompressor.stderr).toMatch(/COLLECTION_COMPRESSOR: must be one of zstd, snappy, none, got "lz4"/)
  })

  it('on a database no statbucket ran on, creates the collections as the service does (COLLECTION_COMPRESSOR) and says so; once', async () => {
    const fresh = uniqueDbName('retfresh')
    const freshDb = client.db(fresh)
    try {
      const first = await run(['--once'], { MONGODB_DB: fresh, COLLECTION_COMPRESSOR: 'snappy' })
      expect(first.code, first.stderr).toBe(0)
      const names = collectionNames({ keys: false })
      expect(first.stderr).toMatch(new RegExp(`^retention: collections: created ${names.join(', ')} with block_compressor=snappy \\(COLLECTION_COMPRESSOR\\)`, 'm'))
      // filtered here: mongo-java-server ignores listCollections' filter
      expect((await freshDb.listCollections().toArray()).map(c => c.name).sort()).toEqual([...names].sort())
      const again = await run(['--once'], { MONGODB_DB: fresh })
      expect(again.code, again.stderr).toBe(0)
      expect(again.stderr).not.toMatch(/collections:/)
    } finally {
      await freshDb.dropDatabase().catch(() => {})
    }
  })

  it('--once applies each metric its rule (RETENTION_RULES) and the variables to the rest; again changes nothing', async () => {
    await seed(db, [...eventsOver('web.hits', 20), ...eventsOver('debug.trace.x', 20)])
    const rulesFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'statbucket-rules-')), 'rules.json')
    fs.writeFileSync(rulesFile, JSON.stringify([{ match: 'debug.**', minuteDays: 1, dailyDays: 12 }]))
    const env = { MINUTE_RETENTION_DAYS: '7', MAX_AGE_DAYS: '5', RETENTION_RULES: rulesFile }
    const first = await run(['--once'], env)
    expect(first.code, first.stderr).toBe(0)
    expect(first.stdout).toMatch(/retention done: 2 metrics, 30 documents downsampled, 8 deleted, 0 kept/)
    const docs = await all()
    const web = docs.filter(d => d.metric === 'web.hits')
    const debug = docs.filter(d => d.metric === 'debug.trace.x')
    expect(web).toHaveLength(21)
    expect(web.filter(d => d.minute).map(daysBack).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8])
    expect(debug.map(daysBack).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
    expect(debug.filter(d => d.minute).map(daysBack).sort((a, b) => a - b)).toEqual([0, 1, 2])
    const again = await run(['--once'], env)
    expect(again.code).toBe(0)
    expect(again.stdout).toMatch(/0 documents downsampled, 0 deleted/)
    expect(await all()).toEqual(docs)
  })

  it('a pass killed with SIGKILL half-way is finished by the next run once the lease expired', async () => {
    const metrics = ['k.a', 'k.b', 'k.c']
    const events = metrics.flatMap(m => eventsOver(m, 40))
    await seed(db, events)
    // 3 × 38 documents to downsample at 15 a second: about 8 s, killed after the first batches
    const env = { MINUTE_RETENTION_DAYS: '1', RETENTION_RATE: '15' }
    const child = spawn(process.execPath, [SCRIPT, '--once', '--lease-ms', '2000'], { env: baseEnv(env), stdio: 'ignore' })
    const exited = new Promise(resolve => child.once('exit', (code, signal) => resolve({ code, signal })))
    const downsampled = () => db.collection('daily').countDocuments({ detail: 'quarterHour' })
    for (let i = 0; i < 600 && await downsampled() < 15; i++) await new Promise(resolve => setTimeout(resolve, 50))
    child.kill('SIGKILL')
    expect((await exited).signal).toBe('SIGKILL')
    const partial = await downsampled()
    expect(partial).toBeGreaterThanOrEqual(15)
    expect(partial).toBeLessThan(114)
    expect((await db.collection('jobs').findOne({ _id: 'retention' }))?.owner).toBeDefined() // the dead pass's lease

    // the next run: refused while the dead pass's lease lasts, then it completes the work
    let result
    for (let i = 0; i < 100; i++) {
      result = await run(['--once', '--lease-ms', '2000'], { ...env, RETENTION_RATE: '10000' })
      if (result.code === 0) break
      expect(result.stderr).toMatch(/holds the lease/)
      await new Promise(resolve => setTimeout(resolve, 300))
    }
    expect(result.code, result.stderr).toBe(0)
    expect(await downsampled()).toBe(114)
    const expected = documentsFor(events).daily
      .map(({ minute, ...rest }) => (daysBack(rest) >= 3 ? { ...rest, detail: 'quarterHour' } : { ...rest, minute }))
      .sort((a, b) => (a._id < b._id ? -1 : 1))
    expect(await all()).toEqual(expected)
  }, 90_000)
})
