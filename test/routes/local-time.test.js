// GET …/series and …/ytd with `tz`: points at local boundaries read from the
// database, against an independent computation (the wall clock read from
// Intl, test/helpers/intl-local-time.js) and the sums of the events sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { directDb, testApp } from '../helpers/test-app.js'
import { intlBoundaries, intlMonthStarts } from '../helpers/intl-local-time.js'

const NOW = Date.UTC(2026, 11, 30, 12) // late in the year: every 2026 DST change is in the past
const MIN = 60_000
const HOUR = 60 * MIN
const DAY = 24 * HOUR
const ZONES = ['UTC', 'America/New_York', 'Europe/London', 'Australia/Lord_Howe', 'Asia/Kolkata', 'Asia/Kathmandu', 'Pacific/Chatham']
// around each zone's 2026 changes (or a plain day): [from, to) for hour points
const CHANGE_DAYS = {
  UTC: Date.UTC(2026, 5, 1),
  'America/New_York': Date.UTC(2026, 10, 1),
  'Europe/London': Date.UTC(2026, 2, 29),
  'Australia/Lord_Howe': Date.UTC(2026, 9, 3),
  'Asia/Kolkata': Date.UTC(2026, 11, 1),
  'Asia/Kathmandu': Date.UTC(2026, 5, 30),
  'Pacific/Chatham': Date.UTC(2026, 3, 4)
}

const events = []
let seed = 11
const rand = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648 }
// spread over the year, denser around the change days and month ends
for (let i = 0; i < 2000; i++) events.push({ metric: 'lt.a', value: 1 + Math.floor(rand() * 20), ts: Date.UTC(2026, 0, 1) - 2 * DAY + Math.floor(rand() * 365 * DAY) })
for (const day of Object.values(CHANGE_DAYS)) {
  for (let i = 0; i < 300; i++) events.push({ metric: 'lt.a', value: 1 + Math.floor(rand() * 9), ts: day - DAY + Math.floor(rand() * 3 * DAY) })
}
const sumOf = (from, to) => events.filter(e => e.ts >= from && e.ts < to).reduce((s, e) => s + e.value, 0)
/**
 * What a point [from, to) answers: the sum of its events, or null where no
 * document holds its time — no event on any UTC day it touches (days are
 * documents; preallocation is off)
 */
const pointOf = (from, to) => {
  const firstDay = Math.floor(from / DAY) * DAY
  const lastDay = Math.ceil(to / DAY) * DAY
  return events.some(e => e.ts >= firstDay && e.ts < lastDay) ? sumOf(from, to) : null
}

let app
beforeAll(async () => {
  app = await testApp('localtime', { clock: manualClock(NOW), env: { PREALLOC_PROBABILITY: '0' } })
  for (let i = 0; i < events.length; i += 1000) {
    const res = await app.inject({ method: 'POST', url: '/v1/events', payload: events.slice(i, i + 1000) })
    expect(res.statusCode, res.body).toBe(200)
  }
})
afterAll(async () => { await app?.close() })

const get = async (url) => {
  const res = await app.inject(url)
  expect(res.statusCode, `${url}: ${res.body}`).toBe(200)
  return res.json()
}
const series = (query) => get(`/v1/metrics/lt.a/series?${query}`)
/** The oracle's boundaries of step covering [from, to), from the first at or before from to the first at or after to */
function expectedBoundaries (all, from, to) {
  return all.filter(b => b >= all.filter(x => x <= from).at(-1) && b <= all.find(x => x >= to))
}

describe('local series', () => {
  for (const tz of ZONES) {
    it(`in ${tz}: hour points over its change day, day points over two months, month points over the year, each the sum of its events`, async () => {
      const q = encodeURIComponent(tz)
      const day = CHANGE_DAYS[tz]
      const hourFrom = day - 6 * HOUR
      const hourTo = day + 30 * HOUR
      const dayFrom = day - 30 * DAY
      const dayTo = day + 30 * DAY
      const oracle = intlBoundaries(tz, dayFrom - 2 * DAY, dayTo + 2 * DAY)
      const check = (body, boundaries, step) => {
        expect(body).toMatchObject({ metric: 'lt.a', step, tz, from: boundaries[0], to: boundaries.at(-1) })
        expect(body.timestamps).toEqual(boundaries.slice(0, -1))
        expect(body.values).toEqual(boundaries.slice(0, -1).map((b, i) => pointOf(b, boundaries[i + 1])))
      }
      check(await series(`from=${hourFrom}&to=${hourTo}&step=hour&tz=${q}`), expectedBoundaries(oracle.hour, hourFrom, hourTo), 'hour')
      check(await series(`from=${dayFrom}&to=${dayTo}&step=day&tz=${q}`), expectedBoundaries(oracle.day, dayFrom, dayTo), 'day')
      const months = intlMonthStarts(tz, 2026)
      check(await series(`from=${months[0]}&to=${months[12]}&step=month&tz=${q}`), months, 'month')
    }, 30_000)
  }

  it('in UTC answers exactly as without tz', async () => {
    for (const step of ['minute', 'quarter-hour', 'hour', 'day', 'month']) {
      const query = `from=${Date.UTC(2026, 10, 28, 20)}&to=${Date.UTC(2026, 10, 30, 3)}&step=${step}`
      expect(await series(`${query}&tz=UTC`)).toEqual(await series(query))
    }
    expect((await series('')).tz).toBe('UTC')
  })

  it('UTC by another name, and zones at UTC+0 (Abidjan; London in winter), answer days exactly as UTC, null and 0 alike', async () => {
    // tomorrow preallocated (zero-filled, and its field in its month), nothing written after it
    const monthly = app.mongo.db.collection('monthly')
    const monthBefore = await monthly.findOne({ _id: 'lt.a/202612' })
    await app.preallocator.preallocateDay('lt.a', Date.UTC(2026, 11, 31))
    try {
      const query = `from=${Date.UTC(2026, 11, 27)}&to=${Date.UTC(2027, 0, 2)}&step=day`
      const utc = await series(query)
      expect(utc.values.slice(-2)).toEqual([0, null])
      for (const [tz, echoed] of [['utc', 'UTC'], ['Etc/GMT', 'Etc/GMT'], ['Africa/Abidjan', 'Africa/Abidjan'], ['Europe/London', 'Europe/London']]) {
        const local = await series(`${query}&tz=${encodeURIComponent(tz)}`)
        expect(local, tz).toEqual({ ...utc, tz: echoed })
      }
    } finally {
      await app.mongo.db.collection('daily').deleteOne({ _id: 'lt.a/20261231' })
      if (monthBefore) await monthly.replaceOne({ _id: 'lt.a/202612' }, monthBefore)
      else await monthly.deleteOne({ _id: 'lt.a/202612' })
    }
  })

  it('minute and quarter-hour points are the UTC ones in every zone', async () => {
    const query = `from=${Date.UTC(2026, 11, 1, 17)}&to=${Date.UTC(2026, 11, 1, 20)}`
    for (const step of ['minute', 'quarter-hour']) {
      const utc = await series(`${query}&step=${step}`)
      const kathmandu = await series(`${query}&step=${step}&tz=Asia/Kathmandu`)
      expect(kathmandu).toEqual({ ...utc, tz: 'Asia/Kathmandu' })
    }
  })

  it('picks the finest step with at most MAX_POINTS points in the zone, and rounds the default window out in it', async () => {
    const year = await series(`from=${Date.UTC(2026, 0, 1)}&to=${Date.UTC(2026, 11, 1)}&tz=Asia/Kolkata`)
    expect(year.step).toBe('hour') // 8,016 hours; quarter-hours would be 32,064
    expect(new Set(year.timestamps.map(t => new Date(t).getUTCMinutes()))).toEqual(new Set([30]))
    const lastDay = await series('tz=Asia/Kathmandu')
    expect(lastDay).toMatchObject({ step: 'minute', from: NOW - DAY, to: NOW })
  })

  it('echoes the zone as the tz database spells it, in series, ytd and their messages', async () => {
    // any case of a name → its spelling; a name ICU files under an older one keeps its own
    // (Asia/Kolkata, not Asia/Calcutta); a link spelled otherwise → the zone it links to
    const spellings = [['europe/berlin', 'Europe/Berlin'], ['EUROPE/BERLIN', 'Europe/Berlin'], ['asia/kolkata', 'Asia/Kolkata'],
      ['Asia/Kathmandu', 'Asia/Kathmandu'], ['asia/calcutta', 'Asia/Calcutta'], ['america/argentina/buenos_aires', 'America/Argentina/Buenos_Aires'],
      ['etc/gmt+5', 'Etc/GMT+5'], ['UTC', 'UTC'], ['etc/utc', 'Etc/UTC'], ['us/eastern', 'America/New_York']]
    for (const [sent, echoed] of spellings) {
      const q = `tz=${encodeURIComponent(sent)}`
      expect((await series(`from=${Date.UTC(2026, 11, 1)}&to=${Date.UTC(2026, 11, 3)}&step=day&${q}`)).tz, sent).toBe(echoed)
      expect((await get(`/v1/metrics/lt.a/ytd?year=2026&asOf=${Date.UTC(2026, 5, 1)}&${q}`)).tz, sent).toBe(echoed)
    }
    const res = await app.inject(`/v1/metrics/lt.a/ytd?asOf=${Date.UTC(2025, 11, 31, 22, 30)}&year=2026&tz=europe%2Fberlin`)
    expect(res.statusCode).toBe(400)
    expect(res.json().message).toBe('asOf: must fall within the year 2026 in Europe/Berlin')
  })

  it('answers 400 naming an unknown zone, and changes nothing', async () => {
    for (const url of ['/v1/metrics/lt.a/series?tz=Mars/Olympus', '/v1/metrics/lt.a/ytd?tz=Mars/Olympus', '/v1/metrics/lt.a/series?tz=%2B05:30']) {
      const res = await app.inject(url)
      expect(res.statusCode, url).toBe(400)
      expect(res.json().message).toMatch(/^tz: unknown time zone ".+": use an IANA name such as UTC, Europe\/Berlin/)
    }
  })
})

describe('local year to date', () => {
  for (const tz of ZONES) {
    it(`in ${tz}: month by month the sums of the local months`, async () => {
      const months = intlMonthStarts(tz, 2026)
      const asOf = Date.UTC(2026, 8, 15, 9)
      const dayEnd = intlBoundaries(tz, asOf - DAY, asOf + DAY).day.find(b => b > asOf)
      const body = await get(`/v1/metrics/lt.a/ytd?year=2026&asOf=${asOf}&tz=${encodeURIComponent(tz)}`)
      const expected = months.slice(0, 9).map((start, i) => sumOf(start, Math.min(months[i + 1], dayEnd)))
      expect(body).toMatchObject({ metric: 'lt.a', year: 2026, tz, asOf })
      expect(body.months).toEqual(expected.map((total, i) => ({ month: `2026-${String(i + 1).padStart(2, '0')}`, total })))
      expect(body.total).toBe(expected.reduce((a, b) => a + b, 0))
    })
  }

  it('takes the year of asOf in the zone: 31 December 20:00 UTC is already 2027 in Kathmandu', async () => {
    const res = await app.inject(`/v1/metrics/lt.a/ytd?asOf=${Date.UTC(2026, 11, 31, 20)}&tz=Asia/Kathmandu`)
    expect(res.statusCode).toBe(400) // after this year (2026 in Kathmandu at NOW)
    expect(res.json().message).toMatch(/must not be after this year \(2026\)/)
    const body = await get(`/v1/metrics/lt.a/ytd?asOf=${Date.UTC(2026, 11, 31, 18)}&tz=Asia/Kathmandu`)
    expect(body.year).toBe(2026)
    expect(body.months).toHaveLength(12)
  })
})

describe('local points where only UTC days are kept', () => {
  let old
  const dbName = `t_localret_${Date.now().toString(36)}`
  beforeAll(async () => {
    old = await testApp('localret', { clock: manualClock(NOW), env: { PREALLOC_PROBABILITY: '0', MAX_AGE_DAYS: '20', MINUTE_RETENTION_DAYS: '10', DAILY_RETENTION_DAYS: '30', MONGODB_DB: dbName } })
    const { client, db } = await directDb(dbName)
    try {
      await db.collection('monthly').insertOne({ _id: 'lr.a/202606', metric: 'lr.a', date: new Date(Date.UTC(2026, 5, 1)), monthly: 12, daily: { 3: 5, 4: 7 } })
      await db.collection('metrics').insertOne({ _id: 'lr.a', firstSeen: new Date(Date.UTC(2026, 5, 3)), lastSeen: new Date(Date.UTC(2026, 5, 4)) })
    } finally {
      await client.close()
    }
  })
  afterAll(async () => { await old?.close() })

  it('answers UTC days, and refuses local days and local months with the horizon named', async () => {
    const range = `from=${Date.UTC(2026, 5, 2)}&to=${Date.UTC(2026, 5, 6)}`
    expect((await old.inject(`/v1/metrics/lr.a/series?${range}&step=day`)).json().values).toEqual([null, 5, 7, null])
    const series = await old.inject(`/v1/metrics/lr.a/series?${range}&step=day&tz=America/New_York`)
    expect(series.statusCode).toBe(400)
    expect(series.json().message).toBe('tz: step=day points in America/New_York need the hours at their edges (one at 2026-06-01T04:00:00.000Z), and daily documents are kept from 2026-11-30 on: start the window there or later, or ask in UTC (tz=UTC), whose days the monthly documents keep')
    // the default step: the coarsest refusal (month) is the one named
    const byDefault = await old.inject(`/v1/metrics/lr.a/series?${range}&tz=America/New_York`)
    expect(byDefault.statusCode).toBe(400)
    expect(byDefault.json().message).toMatch(/^tz: step=month points in America\/New_York need the hours at their edges .* daily documents are kept from 2026-11-30 on/)
    const ytd = await old.inject('/v1/metrics/lr.a/ytd?year=2026&tz=Europe/Berlin')
    expect(ytd.statusCode).toBe(400)
    expect(ytd.json().message).toBe('tz: the local months in Europe/Berlin need the hours at their edges (one at 2025-12-31T23:00:00.000Z), and daily documents are kept from 2026-11-30 on: ask in UTC (tz=UTC), whose days the monthly documents keep')
    expect((await old.inject('/v1/metrics/lr.a/ytd?year=2026&tz=Etc/GMT')).statusCode).toBe(200) // UTC by another name
  })
})
