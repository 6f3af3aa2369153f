// The zones whose local days the month documents keep
// (docs/adr/0073-local-days-in-the-month.md): the SLOs' zones outside UTC, at
// most 8. A ninth is refused by name (SLO_FILE at boot, PUT with a 400 that
// stores nothing); each zone is recorded per name its selectors count, from
// the next whole minute, ZONE_LEAD_MS (by when every instance writes it: each
// declares the zones again every minute) and MAX_FUTURE_MS (how far ahead an
// event stored before may be dated) after it, and forgotten with
// its last SLO. A Kolkata year
// report reads its days from the month documents: from 13 of them a series,
// and the same figures as before the zone was declared (from day documents).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Writable } from 'node:stream'
import { manualClock } from '../../src/clock.js'
import { ConfigError, loadConfig } from '../../src/config.js'
import { ZONE_LEAD_MS } from '../../src/registry/zone-records.js'
import { fakeTimers } from '../helpers/fake-timers.js'
import { testApp } from '../helpers/test-app.js'

const MINUTE = 60_000
// a record's lead past the next whole minute: ZONE_LEAD_MS and MAX_FUTURE_MS (its default, 5 minutes)
const LEAD = ZONE_LEAD_MS + 300_000
const NOW = Date.UTC(2025, 11, 31, 12, 0, 30) // 31 December 2025, 17:30 in Kolkata
const FILE_ZONES = ['Europe/Berlin', 'Asia/Kolkata', 'Asia/Kathmandu', 'America/St_Johns', 'Australia/Lord_Howe', 'Pacific/Chatham', 'America/Santiago']
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'slo-zones-'))
const file = path.join(dir, 'slos.yaml')
const clock = manualClock(NOW)

const slo = (name, zone, metric = 'web.requests', duration = '1M') => ({
  apiVersion: 'openslo/v1',
  kind: 'SLO',
  metadata: { name },
  spec: {
    indicator: { spec: { ratioMetric: { good: { metricSource: { type: 'statbucket', spec: { metric, tags: ['status!=~5..'] } } }, total: { metricSource: { type: 'statbucket', spec: { metric } } } } } },
    timeWindow: [{ duration, isRolling: false, calendar: { timeZone: zone } }],
    budgetingMethod: 'Occurrences',
    objectives: [{ target: 0.99 }]
  }
})
const yamlOf = (slos) => slos.map(s => JSON.stringify(s)).join('\n---\n')

let app
beforeAll(async () => {
  fs.writeFileSync(file, yamlOf(FILE_ZONES.map((zone, i) => slo(`file-${i}`, zone))))
  app = await testApp('slo_zones', { clock, env: { SLO_FILE: file }, sloReloadOnHangup: false })
})
afterAll(async () => {
  await app?.close()
  fs.rmSync(dir, { recursive: true, force: true })
})

const put = (name, body) => app.inject({ method: 'PUT', url: `/v1/slos/${name}`, payload: body })
const records = async () => (await app.collections.zones.find({}).sort({ _id: 1 }).toArray()).map(r => [r._id, r.since.getTime()])

describe('declared zones', () => {
  it('SLO_FILE with a ninth zone outside UTC stops boot, naming the document, the field and the zones', () => {
    const nine = path.join(dir, 'nine.yaml')
    fs.writeFileSync(nine, yamlOf([...FILE_ZONES, 'Asia/Tokyo', 'UTC', 'Asia/Kolkata', 'Africa/Cairo'].map((zone, i) => slo(`s-${i}`, zone))))
    let error
    try { loadConfig({ SLO_FILE: nine }) } catch (err) { error = err }
    expect(error).toBeInstanceOf(ConfigError)
    expect(error.message).toMatch(/^SLO_FILE: document 11, spec\.timeWindow\[0\]\.calendar\.timeZone: Africa\/Cairo would be a 9th time zone outside UTC: SLOs may use at most 8 \(Europe\/Berlin, .*Asia\/Tokyo\)/)
  })

  it('each zone recorded per name from the next whole minute and the lead; a PUT may add an eighth, a ninth is a 400 storing nothing; a DELETE forgets its zone', async () => {
    clock.set(NOW)
    const since = Math.floor(NOW / MINUTE) * MINUTE + MINUTE + LEAD
    expect(await records()).toEqual(FILE_ZONES.map(z => [`${z} web.requests`, since]).sort())
    clock.set(NOW + 5 * MINUTE)
    expect((await put('tokyo', slo('tokyo', 'Asia/Tokyo', 'api.calls'))).statusCode).toBe(200)
    expect(await records()).toContainEqual(['Asia/Tokyo api.calls', since + 5 * MINUTE])
    const refused = await put('cairo', slo('cairo', 'Africa/Cairo'))
    expect(refused.statusCode, refused.body).toBe(400)
    expect(refused.json().details).toEqual([{ path: 'spec.timeWindow[0].calendar.timeZone', message: expect.stringMatching(/^spec\.timeWindow\[0\]\.calendar\.timeZone: Africa\/Cairo would be a 9th time zone outside UTC/) }])
    expect((await app.inject('/v1/slos')).json().slos.map(s => s.name)).not.toContain('cairo')
    expect((await records()).map(([id]) => id)).not.toContain('Africa/Cairo web.requests')
    // a zone already declared, and UTC, are no new zone
    expect((await put('berlin-api', slo('berlin-api', 'Europe/Berlin', 'api.calls'))).statusCode).toBe(200)
    expect((await put('utc', slo('utc', 'UTC'))).statusCode).toBe(200)
    expect((await app.inject({ method: 'DELETE', url: '/v1/slos/tokyo' })).statusCode).toBe(200)
    expect((await records()).map(([id]) => id)).not.toContain('Asia/Tokyo api.calls')
    expect((await put('cairo', slo('cairo', 'Africa/Cairo'))).statusCode).toBe(200)
    for (const name of ['cairo', 'berlin-api', 'utc']) await app.inject({ method: 'DELETE', url: `/v1/slos/${name}` })
  })

  it('SLO_FILE read again with a zone that makes a 9th with the stored SLOs: the SLO is logged once, its local days read from day documents', async () => {
    const lines = []
    const stream = new Writable({ write (chunk, _enc, done) { lines.push(JSON.parse(chunk)); done() } })
    const own = path.join(dir, 'own.yaml')
    fs.writeFileSync(own, yamlOf(FILE_ZONES.map((zone, i) => slo(`file-${i}`, zone))))
    const other = await testApp('slo_zones_ninth', { clock, env: { SLO_FILE: own }, sloReloadOnHangup: false, logger: { level: 'warn', stream } })
    try {
      clock.set(NOW)
      const stored = await other.inject({ method: 'PUT', url: '/v1/slos/tokyo', payload: slo('tokyo', 'Asia/Tokyo', 'api.calls') })
      expect(stored.statusCode, stored.body).toBe(200)
      // eight zones in the file alone (it parses), nine with the stored Tokyo
      fs.writeFileSync(own, yamlOf([...FILE_ZONES, 'Africa/Cairo'].map((zone, i) => slo(`file-${i}`, zone))))
      expect(other.slos.reload()).toHaveLength(8)
      await other.slos.zonesDeclared()
      other.slos.reload()
      await other.slos.zonesDeclared()
      const warned = lines.filter(l => /would be a 9th time zone/.test(l.msg))
      expect(warned.map(l => l.msg)).toEqual([expect.stringMatching(/^SLO tokyo: Asia\/Tokyo would be a 9th time zone outside UTC.*\(SLO_FILE and the stored SLOs together\): its local days are read from its day documents$/)])
      const declared = (await other.collections.zones.find({}).toArray()).map(r => r._id.split(' ')[0])
      expect(new Set(declared)).toEqual(new Set([...FILE_ZONES, 'Africa/Cairo']))
    } finally {
      await other.close()
    }
  })

  it('a Kolkata year: the same figures from day documents before the zone was declared as from 13 month documents after (which need no day document)', async () => {
    try {
      const metric = 'kol.requests'
      // events on local days that straddle UTC months and years: 1 January 00:10 local is 31 December 18:40 UTC
      const times = [Date.UTC(2025, 0, 1, 18, 29), Date.UTC(2024, 11, 31, 18, 40), Date.UTC(2025, 1, 28, 19, 0), Date.UTC(2025, 5, 30, 18, 29), Date.UTC(2025, 5, 30, 18, 30), Date.UTC(2025, 11, 31, 11)]
      const send = async () => {
        const res = await app.inject({ method: 'POST', url: '/v1/events', payload: times.flatMap((ts, i) => [{ metric, tags: { status: i % 2 ? '500' : '200' }, value: i + 1, ts }]) })
        expect(res.json()).toEqual({ accepted: times.length })
      }
      // declared a year before: every local day of 2025 begins after its record
      clock.set(Date.UTC(2024, 11, 1))
      expect((await put('kol-year', slo('kol-year', 'Asia/Kolkata', metric, '1y'))).statusCode).toBe(200)
      clock.set(NOW)
      await send()
      const zoned = (await app.inject('/v1/slos/kol-year/report?period=2025')).json()
      // read from the month documents: without day documents (as retention leaves a name), the same days
      const days = await app.collections.daily.find({ metric: { $regex: '^kol\\.requests' } }).toArray()
      await app.collections.daily.deleteMany({ metric: { $regex: '^kol\\.requests' } })
      const withoutDays = (await app.inject('/v1/slos/kol-year/report?period=2025')).json()
      // (the current period's burn rates read the last days' day documents)
      expect([withoutDays.good, withoutDays.total, withoutDays.days]).toEqual([zoned.good, zoned.total, zoned.days])
      await app.collections.daily.insertMany(days)
      // the same events, read from day documents: the zone forgotten (its SLO deleted and stored again now, after every day)
      await app.inject({ method: 'DELETE', url: '/v1/slos/kol-year' })
      expect((await put('kol-year', slo('kol-year', 'Asia/Kolkata', metric, '1y'))).statusCode).toBe(200)
      const fromDayDocuments = (await app.inject('/v1/slos/kol-year/report?period=2025')).json()
      const { documents: d1, ...figures } = zoned
      const { documents: d2, ...expected } = fromDayDocuments
      expect(figures).toEqual(expected)
      expect(figures.total).toBe(1 + 2 + 3 + 4 + 5 + 6) // each in Kolkata's 2025: from 2024-12-31 18:30 UTC to 2025-12-31 18:30 UTC
      expect(figures.days.find(d => d.day === '2025-01-01').total).toBe(2 + 1)
      // two series and the name: at most 13 month documents each (December 2024 to December 2025)
      expect(d1).toBeLessThanOrEqual(3 * 13)
      expect(d2).toBeGreaterThan(0)
    } finally {
      // the next tests see only the file's zones
      await app.inject({ method: 'DELETE', url: '/v1/slos/kol-year' })
    }
  })

  it('an event dated ahead (within MAX_FUTURE_MS) stored before its zone was declared counts in its local day', async () => {
    const metric = 'ahead.requests'
    try {
      // 23:56:30 in Tokyo; the event at 00:01 of the next day, stored before any SLO names Tokyo
      clock.set(Date.UTC(2026, 0, 5, 14, 56, 30))
      const res = await app.inject({ method: 'POST', url: '/v1/events', payload: [{ metric, tags: { status: '200' }, value: 1, ts: Date.UTC(2026, 0, 5, 15, 1) }] })
      expect(res.json()).toEqual({ accepted: 1 })
      expect((await put('ahead', slo('ahead', 'Asia/Tokyo', metric, '1d'))).statusCode).toBe(200)
      clock.set(Date.UTC(2026, 0, 6, 15, 30))
      const report = (await app.inject('/v1/slos/ahead/report?period=2026-01-06')).json()
      expect(report.days).toEqual([{ day: '2026-01-06', good: 1, total: 1 }])
    } finally {
      await app.inject({ method: 'DELETE', url: '/v1/slos/ahead' })
    }
  })

  it('a zone PUT through one instance: another writes its local days from its next refresh, before the record\'s since, so the month documents hold every event from then', async () => {
    const timers = fakeTimers(0)
    const other = await testApp('slo_zones_other', { clock, env: { MONGODB_DB: app.config.mongodbDb, SLO_FILE: file }, keepDatabase: true, sloReloadOnHangup: false, sloTimers: timers })
    const metric = 'osaka.requests'
    try {
      clock.set(NOW)
      expect((await put('osaka', slo('osaka', 'Asia/Tokyo', metric))).statusCode).toBe(200)
      const since = Math.floor(NOW / MINUTE) * MINUTE + MINUTE + LEAD
      expect(await records()).toContainEqual([`Asia/Tokyo ${metric}`, since])
      // the other instance's refresh, a minute on: it reads the stored SLO and writes Tokyo's local days of the name
      clock.set(NOW + MINUTE)
      await timers.advance(60_000)
      await other.slos.zonesDeclared()
      // 1 January 2026 in Tokyo (from 31 December 15:00 UTC, after since): events through the other instance only
      clock.set(Date.UTC(2026, 0, 1, 3))
      const times = [Date.UTC(2025, 11, 31, 15, 0), Date.UTC(2025, 11, 31, 23, 59), Date.UTC(2026, 0, 1, 2, 30)]
      const res = await other.inject({ method: 'POST', url: '/v1/events', payload: times.map((ts, i) => ({ metric, tags: { status: i === 1 ? '500' : '200' }, value: i + 1, ts })) })
      expect(res.json()).toEqual({ accepted: times.length })
      // the series the other instance made, known here (as its look every 10 s would)
      await app.nameIndex.refresh()
      const report = async () => (await app.inject('/v1/slos/osaka/report?period=2026-01')).json().days[0]
      expect(await report()).toEqual({ day: '2026-01-01', good: 1 + 3, total: 1 + 2 + 3 })
      // read from the month documents (the day begins after since): the same without a day document
      await app.collections.daily.deleteMany({ metric: { $regex: '^osaka\\.requests' } })
      expect(await report()).toEqual({ day: '2026-01-01', good: 1 + 3, total: 1 + 2 + 3 })
    } finally {
      await app.inject({ method: 'DELETE', url: '/v1/slos/osaka' })
      await other.close()
    }
  })
})
