// `npm run check [-- --repair]` as a real process on a database seeded with
// documents built by brute force (test/helpers/bucket-docs.js), corrupted in
// every way the contract names: each is reported by id and field (exit 1),
// repaired (exit 0), and the documents end with the exact values.
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { documentsFor, seed } from '../helpers/bucket-docs.js'
import { directDb, mongodbUri, uniqueDbName } from '../helpers/test-app.js'
import { collectionNames } from '../../src/db/collections.js'

const CHECK = fileURLToPath(new URL('../../src/jobs/check-command.js', import.meta.url))
const D1 = Date.UTC(2026, 9, 30) // Oct 30
const D2 = Date.UTC(2026, 9, 31)
const D3 = Date.UTC(2026, 10, 1) // a new month
let client, db, dbName

beforeAll(async () => { dbName = uniqueDbName('check'); ({ client, db } = await directDb(dbName)) })
afterAll(async () => { await db?.dropDatabase().catch(() => {}); await client?.close() })

function check (args, env = {}) {
  return new Promise(resolve => {
    execFile(process.execPath, [CHECK, ...args], {
      env: { PATH: process.env.PATH, MONGODB_URI: mongodbUri(), MONGODB_DB: dbName, WRITE_TIMEOUT_MS: '100', ...env },
      timeout: 60_000
    }, (error, stdout, stderr) => resolve({ code: error ? error.code : 0, stdout, stderr }))
  })
}

function eventsFor (metric, days) {
  const events = []
  for (const day of days) {
    for (let i = 0; i < 30; i++) events.push({ metric, value: (i % 7) + 1, time: day + i * 47 * 60_000 + 13_000 })
  }
  return events
}

const all = name => db.collection(name).find().sort({ _id: 1 }).toArray()
const sorted = docs => [...docs].sort((a, b) => (a._id < b._id ? -1 : 1))

describe('check and repair', () => {
  it('usage: --help exits 0, a bad option or date exits 2', async () => {
    expect((await check(['--help'])).code).toBe(0)
    expect((await check(['--help'])).stdout).toMatch(/--repair/)
    const bad = await check(['--frm', 'x'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/frm/)
    expect((await check(['--from', '2026-13-45'])).code).toBe(2)
    expect((await check(['--rate', '-3'])).code).toBe(2)
  })

  it('on a database no statbucket ran on, the check creates no collection; a repair creates them as the service does and says so', async () => {
    const fresh = uniqueDbName('checkfresh')
    const freshDb = client.db(fresh)
    try {
      const checked = await check([], { MONGODB_DB: fresh })
      expect(checked.code, checked.stderr).toBe(0)
      expect(checked.stderr).not.toMatch(/collections:/)
      expect(await freshDb.listCollections().toArray()).toEqual([])
      const repaired = await check(['--repair'], { MONGODB_DB: fresh })
      expect(repaired.code, repaired.stderr).toBe(0)
      const names = collectionNames({ keys: false })
      expect(repaired.stderr).toMatch(new RegExp(`^check: collections: created ${names.join(', ')} with block_compressor=zstd \\(COLLECTION_COMPRESSOR\\)`, 'm'))
      expect((await freshDb.listCollections().toArray()).map(c => c.name).sort()).toEqual([...names].sort())
    } finally {
      await freshDb.dropDatabase().catch(() => {})
    }
  })

  it('reports every kind of violation by id and field, repairs them, and the values end exact', async () => {
    const events = [...eventsFor('c.a', [D1, D2, D3]), ...eventsFor('c.b', [D1, D2]), ...eventsFor('c.old', [D1])]
    const expected = documentsFor(events)
    await seed(db, events)
    // a downsampled document (no minute): its tiers are checked against quarterHourly
    await db.collection('daily').updateOne({ _id: 'c.old/20261030' }, { $unset: { minute: '' }, $set: { detail: 'quarterHour' } })
    expect((await check([])).code).toBe(0)

    const ops = [
      ['daily', 'c.a/20261030', { $inc: { 'hourly.3': 5 } }], // a tier inside a document
      ['daily', 'c.a/20261031', { $inc: { daily: -2 } }],
      ['daily', 'c.a/20261101', { $inc: { 'quarterHourly.1.2': 4 } }],
      ['daily', 'c.old/20261030', { $inc: { 'hourly.0': 1, daily: 1 } }], // downsampled: against quarterHourly
      ['monthly', 'c.a/202610', { $inc: { 'daily.31': 3, monthly: 3 } }], // a day against its daily document
      ['monthly', 'c.b/202610', { $inc: { monthly: 9 } }], // the month's total against its days
      ['monthly', 'c.b/202610', { $inc: { 'daily.29': 6, monthly: 6 } }], // a day with no daily document
      ['monthly', 'c.a/202611', 'delete'] // a daily document with no monthly document
    ]
    for (const [collection, _id, update] of ops) {
      if (update === 'delete') await db.collection(collection).deleteOne({ _id })
      else await db.collection(collection).updateOne({ _id }, update)
    }
    const found = await check([])
    expect(found.code, found.stderr).toBe(1)
    const lines = found.stdout.trim().split('\n')
    expect(lines, found.stdout).toHaveLength(10) // nine violations and the summary: nothing reported twice
    for (const [id, field] of [
      ['c.a/20261030', 'hourly.3'],
      ['c.a/20261031', 'daily'],
      ['c.a/20261101', 'quarterHourly.1.2'],
      ['c.old/20261030', 'hourly.0'], ['c.old/20261030', 'daily'],
      ['c.a/202610', 'daily.31'],
      ['c.b/202610', 'monthly'],
      ['c.b/202610', 'daily.29'],
      ['c.a/202611', 'daily.1']
    ]) {
      expect(lines.some(l => l.startsWith(`${id} ${field}: expected`)), `${id} ${field} in\n${found.stdout}`).toBe(true)
    }
    expect(lines.find(l => l.startsWith('c.a/20261030 hourly.3'))).toMatch(/expected \d+, found \d+/)
    expect(lines.at(-1)).toMatch(/violations/)

    // a prefix limits the check to those metrics
    const onlyOld = await check(['--prefix', 'c.old'])
    expect(onlyOld.stdout).not.toMatch(/^c\.a/m)
    expect(onlyOld.stdout).toMatch(/^c\.old\/20261030 hourly\.0/m)
    // a date range limits it to those days
    const onlyNov = await check(['--from', '2026-11-01'])
    expect(onlyNov.stdout).not.toMatch(/20261030|20261031|202610 /)
    expect(onlyNov.stdout).toMatch(/^c\.a\/20261101 quarterHourly\.1\.2/m)

    const repaired = await check(['--repair'])
    expect(repaired.code, repaired.stdout + repaired.stderr).toBe(0)
    expect(repaired.stdout).toMatch(/repaired, 0 left/)
    const again = await check([])
    expect(again.code, again.stdout).toBe(0)

    // exact values: the brute-force documents, but for what repair changed by design
    const daily = await all('daily')
    const wantDaily = sorted(expected.daily).map(d => {
      if (d._id !== 'c.old/20261030') return d
      const { minute, ...rest } = d
      return { ...rest, detail: 'quarterHour' }
    })
    expect(daily.map(normalize)).toEqual(wantDaily.map(normalize))
    const monthly = await all('monthly')
    const wantMonthly = sorted(expected.monthly).map(m => (m._id === 'c.b/202610' ? { ...m, daily: { ...m.daily, 29: 0 } } : m))
    expect(monthly.map(normalize)).toEqual(wantMonthly.map(normalize))
  })
})

/** Compare counters as numbers: a repaired field may be 0 where the brute force has none */
function normalize (doc) {
  const strip = v => {
    if (v instanceof Date || typeof v !== 'object' || v === null) return v
    const out = {}
    for (const [k, x] of Object.entries(v)) {
      const s = strip(x)
      if (s === 0 || (typeof s === 'object' && s !== null && !(s instanceof Date) && Object.keys(s).length === 0)) continue
      out[k] = s
    }
    return out
  }
  const { _id, metric, date, ...counters } = doc
  return { _id, metric, date: date?.getTime(), ...strip(counters) }
}
