// Calendar SLOs against a real server (docs/slos.md): the issue's example —
// an availability SLO (good: web.requests with status!=~5.., total:
// web.requests) in Europe/Berlin — answers exact reports for October (a
// 25-hour day) and March (a 23-hour day), equal to a count of the events
// sent; the listing, the burn rates, a rolling window, the refusals, and
// SLO_FILE read again.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { manualClock } from '../../src/clock.js'
import { seededRandom } from '../../scripts/shared/workload.js'
import { testApp } from '../helpers/test-app.js'
import { intlWall } from '../helpers/intl-local-time.js'
import { until } from '../statsd/helpers.js'

const HOUR = 3_600_000
const MINUTE = 60_000
const NOW = Date.UTC(2026, 10, 28, 12, 0, 30)
const clock = manualClock(NOW)
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'slo-reports-'))
const file = path.join(dir, 'slos.yaml')

const source = (metric, tags, threshold) => `
          metricSource:
            type: statbucket
            spec:
              metric: ${metric}${tags ? `\n              tags: ${JSON.stringify(tags)}` : ''}${threshold ? `\n              threshold: ${threshold}` : ''}`
const slo = ({ name, good, bad, total, window, target = 0.999 }) => `apiVersion: openslo/v1
kind: SLO
metadata:
  name: ${name}
spec:
  service: web
  indicator:
    metadata:
      name: ${name}-sli
    spec:
      ratioMetric:
        counter: true
${good ? `        good:${good}` : `        bad:${bad}`}
        total:${total}
  timeWindow:
${window}
  budgetingMethod: Occurrences
  objectives:
    - target: ${target}
`
const BERLIN_MONTH = '    - duration: 1M\n      isRolling: false\n      calendar:\n        timeZone: Europe/Berlin'
const AVAILABILITY = slo({ name: 'availability', good: source('web.requests', ['status!=~5..']), total: source('web.requests'), window: BERLIN_MONTH })
const LATENCY = slo({ name: 'latency', good: source('web.latency', null, 300), total: source('web.latency'), window: BERLIN_MONTH })
const ERRORS = slo({ name: 'login-errors', bad: source('web.requests', ['route=/login', 'status=~5..']), total: source('web.requests', ['route=/login']), window: '    - duration: 28d\n      isRolling: true', target: 0.9 })

let app
const events = []
const get = async url => { const res = await app.inject(url); return { status: res.statusCode, body: res.json() } }

/** The model: the events' count in Berlin's local dates (read from Intl), by a predicate */
const berlinDate = t => { const w = intlWall('Europe/Berlin', t); return `${w.y}-${String(w.mo).padStart(2, '0')}-${String(w.d).padStart(2, '0')}` }
const count = (pick, when) => events.filter(e => pick(e) && when(e)).reduce((n, e) => n + e.value, 0)
const isGood = e => !e.status.startsWith('5')

beforeAll(async () => {
  fs.writeFileSync(file, [AVAILABILITY, ERRORS].join('---\n'))
  app = await testApp('slo_reports', { clock, random: () => 0.99, env: { SLO_FILE: file }, sloReloadOnHangup: false })
  const random = seededRandom(29)
  // October and March, with the hours around each month's edges and the clock changes, and the last days up to now
  const spans = [
    [Date.UTC(2026, 8, 30, 20), Date.UTC(2026, 9, 1, 2)], [Date.UTC(2026, 9, 24, 20), Date.UTC(2026, 9, 26, 2)], [Date.UTC(2026, 9, 31, 20), Date.UTC(2026, 10, 1, 2)],
    [Date.UTC(2026, 1, 28, 20), Date.UTC(2026, 2, 1, 2)], [Date.UTC(2026, 2, 28, 20), Date.UTC(2026, 2, 30, 2)], [Date.UTC(2026, 2, 31, 20), Date.UTC(2026, 3, 1, 2)],
    [Date.UTC(2026, 9, 1), Date.UTC(2026, 9, 31)], [Date.UTC(2026, 2, 1), Date.UTC(2026, 2, 31)], [NOW - 30 * 24 * HOUR, NOW]
  ]
  for (const [from, to] of spans) {
    for (let i = 0; i < 150; i++) {
      const status = ['200', '200', '200', '404', '500', '503'][Math.floor(random() * 6)]
      const route = ['/login', '/home'][Math.floor(random() * 2)]
      events.push({ time: from + Math.floor(random() * (to - from)), status, route, value: 1 + Math.floor(random() * 3) })
    }
  }
  for (let i = 0; i < events.length; i += 1000) {
    const res = await app.inject({ method: 'POST', url: '/v1/events', payload: events.slice(i, i + 1000).map(e => ({ metric: 'web.requests', tags: { status: e.status, route: e.route }, value: e.value, ts: e.time })) })
    expect(res.json()).toEqual({ accepted: Math.min(1000, events.length - i) })
  }
})
// every test starts from the file the app first read (tests below write others and read them again): any order passes
beforeEach(() => {
  fs.writeFileSync(file, [AVAILABILITY, ERRORS].join('---\n'))
  app.slos.reload()
})
afterAll(async () => {
  await app?.close()
  fs.rmSync(dir, { recursive: true, force: true })
})

describe('the availability SLO in Europe/Berlin', () => {
  it.each([['2026-10', 25], ['2026-03', 23]])('%s: every figure equals a count of the events sent; its clock-change day lasts %d hours', async (period, hours) => {
    const { status, body } = await get(`/v1/slos/availability/report?period=${period}`)
    expect(status).toBe(200)
    const inPeriod = e => berlinDate(e.time).startsWith(period)
    const good = count(isGood, inPeriod)
    const total = count(() => true, inPeriod)
    expect(total).toBeGreaterThan(500)
    expect(body).toMatchObject({ name: 'availability', period, timeZone: 'Europe/Berlin', good, total, attainment: good / total, target: 0.999, burnRates: null, projectedAttainment: good / total })
    const allowed = Math.floor(total / 1000) // ⌊(1 − 0.999) × total⌋
    expect(body.budget).toEqual({ allowed, consumed: total - good, remaining: allowed - (total - good), remainingRatio: allowed === 0 ? null : (allowed - (total - good)) / allowed })
    expect(body.days).toHaveLength(31)
    for (const d of body.days) {
      expect(d).toEqual({ day: d.day, good: count(isGood, e => berlinDate(e.time) === d.day), total: count(() => true, e => berlinDate(e.time) === d.day) })
    }
    const long = body.days.filter((d, i) => (i + 1 < body.days.length ? Date.parse(body.days[i + 1].day) : Date.parse(period === '2026-10' ? '2026-11-01' : '2026-04-01')) - Date.parse(d.day) !== 24 * HOUR)
    expect(long).toEqual([]) // labels are consecutive dates …
    expect(body.to - body.from).toBe((31 * 24 + hours - 24) * HOUR) // … and one of them is 23 or 25 hours
    expect(body.from).toBe(Date.UTC(2026, period === '2026-10' ? 8 : 1, period === '2026-10' ? 30 : 28, period === '2026-10' ? 22 : 23))
    // each selector once: the name (1 series) and the good filter's 4 series (2 routes × 200, 404), a daily
    // document per UTC day the local month touches (32: a Berlin day takes hours of two UTC days)
    expect(body.documents).toBeGreaterThan(0)
    expect(body.documents).toBeLessThanOrEqual(5 * 32)
  })

  it('the current period: burn rates over the windows ending with the current minute, and the attainment the month ends at if the last hour holds', async () => {
    const { status, body } = await get('/v1/slos/availability/report')
    expect(status).toBe(200)
    expect(body.period).toBe('2026-11')
    const end = Math.floor(NOW / MINUTE) * MINUTE + MINUTE
    const inPeriod = e => berlinDate(e.time).startsWith('2026-11')
    const [good, total] = [count(isGood, inPeriod), count(() => true, inPeriod)]
    expect([body.good, body.total]).toEqual([good, total])
    for (const [name, minutes] of [['5m', 5], ['30m', 30], ['1h', 60], ['6h', 360], ['1d', 1440], ['3d', 4320]]) {
      const within = e => e.time >= end - minutes * MINUTE && e.time < end
      const t = count(() => true, within)
      const bad = t - count(isGood, within)
      expect(body.burnRates[name], name).toBe(t === 0 ? null : (bad * 1000) / t)
    }
    const hour = e => e.time >= end - HOUR && e.time < end
    const left = body.to - end
    expect(body.projectedAttainment).toBe((good * HOUR + count(isGood, hour) * left) / (total * HOUR + count(() => true, hour) * left))
    expect(body.days.at(-1)).toEqual({ day: '2026-11-30', good: 0, total: 0 })
  })
})

describe('a rolling window and a bad-events indicator', () => {
  it('the last 28 × 24 hours ending with the current minute, in UTC days; good is total − bad', async () => {
    const { status, body } = await get('/v1/slos/login-errors/report')
    expect(status).toBe(200)
    const end = Math.floor(NOW / MINUTE) * MINUTE + MINUTE
    const within = e => e.route === '/login' && e.time >= end - 28 * 24 * HOUR && e.time < end
    const total = count(() => true, within)
    const good = count(isGood, within)
    expect(body).toMatchObject({ period: 'last 28d', from: end - 28 * 24 * HOUR, to: end, good, total, target: 0.9 })
    expect(body.days).toHaveLength(29)
    expect(body.budget.allowed).toBe(Math.floor(total / 10))
    expect(body.days.reduce((n, d) => n + d.total, 0)).toBe(total)
    expect((await get('/v1/slos/login-errors/report?period=2026-11')).status).toBe(400)
  })
})

describe('the listing, refusals and SLO_FILE read again', () => {
  it('GET /v1/slos: every SLO with its status', async () => {
    const { status, body } = await get('/v1/slos')
    expect(status).toBe(200)
    expect(body.slos.map(s => s.name)).toEqual(['availability', 'login-errors'])
    for (const s of body.slos) expect(['met', 'at risk', 'breached']).toContain(s.status)
    expect(body.slos[0].status).toBe('breached') // 2 of 6 statuses are 5xx: far past a 99.9 % budget
    expect(body.documents).toBe(body.slos.reduce((n, s) => n + s.documents, 0))
  })

  it('a selector several SLOs share is read once a listing: the same figures, its documents counted once', async () => {
    // the same good and total, and a second SLO with only its total in common
    const TWIN = AVAILABILITY.replace('name: availability', 'name: twin')
    const CLIENT = slo({ name: 'client-errors', good: source('web.requests', ['status!=~4..']), total: source('web.requests'), window: BERLIN_MONTH })
    fs.writeFileSync(file, [AVAILABILITY, TWIN, CLIENT].join('---\n'))
    expect(app.slos.reload().map(s => s.name)).toEqual(['availability', 'twin', 'client-errors'])
    try {
      const listed = (await get('/v1/slos')).body.slos
      // each as its own report (read alone, day by day) says
      for (const s of listed) {
        const { good, total, attainment } = (await get(`/v1/slos/${s.name}/report`)).body
        expect({ good: s.good, total: s.total, attainment: s.attainment }, s.name).toEqual({ good, total, attainment })
      }
      const [availability, twin, client] = listed
      for (const field of ['good', 'total', 'attainment', 'budgetRemainingRatio', 'status']) expect(twin[field], field).toEqual(availability[field])
      expect(availability.total).toBeGreaterThan(0)
      expect(client.total).toBe(availability.total)
      expect(client.good).toBeGreaterThan(availability.good) // 4xx and 5xx differ in the events sent
      // listed alone, each reads both its selectors
      const aloneOf = async (definition) => {
        fs.writeFileSync(file, definition)
        app.slos.reload()
        return (await get('/v1/slos')).body.slos[0].documents
      }
      const alone = { availability: await aloneOf(AVAILABILITY), client: await aloneOf(CLIENT) }
      // the twin's selectors were read by availability's; the client SLO's total too, its good not
      expect(availability.documents).toBe(alone.availability)
      expect(twin.documents).toBe(0)
      expect(client.documents).toBeGreaterThan(0)
      expect(client.documents).toBeLessThan(alone.client)
    } finally {
      fs.writeFileSync(file, [AVAILABILITY, ERRORS].join('---\n'))
      app.slos.reload()
    }
  })

  it.each([
    ['/v1/slos/nope/report', 404, /no SLO named "nope"/],
    ['/v1/slos/availability/report?period=2026-13', 400, /period: "2026-13" is not a date/],
    ['/v1/slos/availability/report?period=2026-11-01', 400, /period: a 1M SLO's period is YYYY-MM/],
    ['/v1/slos/availability/report?period=2027-01', 400, /period: 2027-01 has not begun/],
    ['/v1/slos/availability/report?week=1', 400, /must NOT have additional properties|week/]
  ])('%s → %d', async (url, code, message) => {
    const { status, body } = await get(url)
    expect(status).toBe(code)
    expect(body.message).toMatch(message)
  })

  it('reload: a new file is in force; a broken one is logged and the definitions in force kept', async () => {
    fs.writeFileSync(file, [AVAILABILITY, LATENCY].join('---\n'))
    expect(app.slos.reload().map(s => s.name)).toEqual(['availability', 'latency'])
    expect((await get('/v1/slos/latency/report')).body).toMatchObject({ good: 0, total: 0, attainment: null, budget: { allowed: 0, remainingRatio: null } })
    fs.writeFileSync(file, AVAILABILITY.replace('Occurrences', 'Timeslices'))
    expect(app.slos.reload().map(s => s.name)).toEqual(['availability', 'latency'])
  })

  it('a gauge is refused by name, and a threshold on a counter is a 400 naming the field', async () => {
    const LEVEL = slo({ name: 'level', good: source('web.level'), total: source('web.level'), window: BERLIN_MONTH })
    const COUNTED = slo({ name: 'counted', good: source('web.requests', null, 300), total: source('web.requests'), window: BERLIN_MONTH })
    fs.writeFileSync(file, [AVAILABILITY, LEVEL, COUNTED].join('---\n'))
    expect(app.slos.reload().map(s => s.name)).toEqual(['availability', 'level', 'counted'])
    await app.inject({ method: 'POST', url: '/v1/events', payload: [{ metric: 'web.level', kind: 'gauge', value: 120, ts: NOW - HOUR }] })
    try {
      const { status, body } = await get('/v1/slos/level/report')
      expect(status).toBe(400)
      expect(body.message).toMatch(/"web.level" is a gauge: an SLO counts a counter's events or a distribution's values/)
      const counted = await get('/v1/slos/counted/report')
      expect(counted.status).toBe(400)
      expect(counted.body.details).toEqual([{ path: 'threshold', message: expect.stringMatching(/"web.requests" is a counter: a threshold counts a distribution's values/) }])
      const listed = (await get('/v1/slos')).body.slos
      expect(listed.map(s => s.status)).toEqual(['breached', 'refused', 'refused'])
      expect(listed[1]).toMatchObject({ name: 'level', error: body.message, documents: 0 })
    } finally {
      // the other tests read web.level as no metric yet
      expect((await app.inject({ method: 'DELETE', url: '/v1/metrics/web.level' })).statusCode).toBe(200)
    }
  })

  it('a good selector counting more than its total (a selector mistake) is refused naming both counts: never "met" past 100 %, nor a negative burn rate, in the report, the listing or /metrics', async () => {
    const OVER = slo({ name: 'over', good: source('over.good'), total: source('over.total'), window: BERLIN_MONTH })
    const BAD_OVER = slo({ name: 'bad-over', bad: source('over.good'), total: source('over.total'), window: BERLIN_MONTH })
    fs.writeFileSync(file, [OVER, BAD_OVER].join('---\n'))
    expect(app.slos.reload().map(s => s.name)).toEqual(['over', 'bad-over'])
    const sent = [...Array(10).fill('over.good'), ...Array(5).fill('over.total')].map(metric => ({ metric, ts: NOW - HOUR }))
    expect((await app.inject({ method: 'POST', url: '/v1/events', payload: sent })).json()).toEqual({ accepted: 15 })
    for (const [name, which] of [['over', 'good'], ['bad-over', 'bad']]) {
      const { status, body } = await get(`/v1/slos/${name}/report`)
      expect(status).toBe(400)
      expect(body.message).toBe(`the ${which} selector counts 10 events in 2026-11 and the total 5: it must count a subset of the total's events (check both selectors' metric and tags)`)
    }
    const listed = (await get('/v1/slos')).body.slos
    expect(listed.map(s => [s.name, s.status])).toEqual([['over', 'refused'], ['bad-over', 'refused']])
    const metrics = (await app.inject('/metrics')).body
    expect(metrics).not.toMatch(/statbucket_slo_attainment\{slo="(bad-)?over"\}/)
    expect(metrics).toMatch(/statbucket_slo_report_errors\{reason="refused"\} 2/)
  })

  it('SIGHUP reads SLO_FILE again, while an app that read one runs; its listener goes with it', async () => {
    fs.writeFileSync(file, ERRORS)
    const before = process.listenerCount('SIGHUP')
    const other = await testApp('slo_hangup', { clock, random: () => 0.99, env: { SLO_FILE: file } })
    try {
      expect(process.listenerCount('SIGHUP')).toBe(before + 1)
      expect((await other.slos.list()).map(s => s.name)).toEqual(['login-errors'])
      fs.writeFileSync(file, [AVAILABILITY, ERRORS].join('---\n'))
      process.kill(process.pid, 'SIGHUP')
      await until(async () => (await other.slos.list()).length === 2, 'the SLOs read again on SIGHUP')
      expect((await other.slos.list()).map(s => s.name)).toEqual(['availability', 'login-errors'])
    } finally {
      await other.close()
    }
    expect(process.listenerCount('SIGHUP')).toBe(before)
  })

  it('a rolling window past the minute retention is a 400 naming the horizon, never a count short of its first minutes', async () => {
    fs.writeFileSync(file, ERRORS)
    const short = await testApp('slo_short', { clock, random: () => 0.99, env: { SLO_FILE: file, MINUTE_RETENTION_DAYS: '7' }, sloReloadOnHangup: false })
    try {
      await short.inject({ method: 'POST', url: '/v1/events', payload: [{ metric: 'web.requests', tags: { route: '/login', status: '200' }, ts: NOW - HOUR }] })
      const res = await short.inject('/v1/slos/login-errors/report')
      expect(res.statusCode).toBe(400)
      expect(res.json().message).toMatch(/minute detail is kept from \d{4}-\d{2}-\d{2} on/)
    } finally {
      await short.close()
    }
  })
})

describe('stored SLOs: PUT and DELETE /v1/slos/:name', () => {
  const stored = (name, edit = () => {}) => {
    const doc = {
      apiVersion: 'openslo/v1',
      kind: 'SLO',
      metadata: { name, labels: { 'team.example/owner': 'web', $odd: 'kept as text' } },
      spec: {
        indicator: { spec: { ratioMetric: { good: { metricSource: { type: 'statbucket', spec: { metric: 'web.requests', tags: ['status!=~5..'] } } }, total: { metricSource: { type: 'statbucket', spec: { metric: 'web.requests' } } } } } },
        timeWindow: [{ duration: '1M', calendar: { timeZone: 'Europe/Berlin' } }],
        budgetingMethod: 'Occurrences',
        objectives: [{ target: 0.999 }]
      }
    }
    edit(doc)
    return doc
  }
  const put = (name, payload, headers = {}) => app.inject({ method: 'PUT', url: `/v1/slos/${name}`, payload, headers })

  it('stored, reported as the file\'s are, replaced, listed with its source, seen by another instance, deleted', async () => {
    let res = await put('stored-availability', stored('stored-availability'))
    expect([res.statusCode, res.json()]).toEqual([200, { name: 'stored-availability', created: true }])
    res = await put('stored-availability', stored('stored-availability'))
    expect(res.json()).toEqual({ name: 'stored-availability', created: false })
    const fromFile = (await get('/v1/slos/availability/report?period=2026-10')).body
    const fromStore = (await get('/v1/slos/stored-availability/report?period=2026-10')).body
    expect({ ...fromStore, name: 'availability' }).toEqual(fromFile)
    const listed = (await get('/v1/slos')).body.slos
    expect(listed.find(s => s.name === 'stored-availability')).toMatchObject({ source: 'stored', status: 'breached' })
    expect(listed.find(s => s.name === 'availability')).toMatchObject({ source: 'file' })

    const other = await testApp('slo_stored', { clock, random: () => 0.99, env: { MONGODB_DB: app.config.mongodbDb }, keepDatabase: true, sloReloadOnHangup: false })
    try {
      expect((await other.inject('/v1/slos/stored-availability/report?period=2026-10')).json()).toEqual(fromStore)
      expect((await other.inject({ method: 'DELETE', url: '/v1/slos/stored-availability' })).json()).toEqual({ name: 'stored-availability', deleted: true })
    } finally {
      await other.close()
    }
    expect((await get('/v1/slos/stored-availability/report')).status).toBe(404)
    expect((await app.inject({ method: 'DELETE', url: '/v1/slos/stored-availability' })).statusCode).toBe(404)
  })

  it.each([
    ['a field outside the subset, named', 'x', stored('x', d => { d.spec.budgetingMethod = 'Timeslices' }), {}, 400, /^spec.budgetingMethod: only Occurrences/],
    ['an unknown zone, named', 'x', stored('x', d => { d.spec.timeWindow[0].calendar.timeZone = 'Europe/Berlim' }), {}, 400, /^spec.timeWindow\[0\].calendar.timeZone: unknown time zone/],
    ['another kind', 'x', stored('x', d => { d.kind = 'Service' }), {}, 400, /^kind: "Service" is not supported/],
    ['a name other than the path\'s', 'y', stored('x'), {}, 400, /^metadata.name: must be the name in the path, "y"/],
    ['a name SLO_FILE defines', 'availability', stored('availability'), {}, 409, /is defined in SLO_FILE/],
    ['neither JSON nor YAML', 'x', 'kind: SLO', { 'content-type': 'text/plain' }, 415, /Content-Type: application\/json or application\/yaml/],
    ['a __proto__ key', 'x', '{"__proto__":{"a":1}}', { 'content-type': 'application/json' }, 400, /holds a __proto__ key \(refused anywhere\); send one OpenSLO SLO document as JSON or YAML$/],
    ['not JSON', 'x', '{"apiVersion":', { 'content-type': 'application/json' }, 400, /^the body is not valid JSON.*send one OpenSLO SLO document/],
    ['a JSON array, not a document', 'x', '[]', { 'content-type': 'application/json' }, 400, /^\(document\): must be object$/],
    ['labels nested 16,000 deep (as deep as 32 KiB holds)', 'x', JSON.stringify(stored('x', d => { d.metadata.labels = { team: 'DEEP' } })).replace('"DEEP"', `${'['.repeat(16_000)}"x"${']'.repeat(16_000)}`), { 'content-type': 'application/json' }, 400, /^metadata\.labels\.team\[0\]: must be a string/],
    ['over 32 KiB', 'x', JSON.stringify(stored('x', d => { d.metadata.annotations = { a: 'x'.repeat(33_000) } })), { 'content-type': 'application/json' }, 413, /^the body is larger than 32768 bytes/]
  ])('refused: %s', async (what, name, payload, headers, status, message) => {
    const res = await put(name, payload, headers)
    expect(res.statusCode, res.body).toBe(status)
    expect(res.json().message).toMatch(message)
    expect((await get(`/v1/slos/${name}/report`)).status).toBe(name === 'availability' ? 200 : 404)
  })

  it('a name SLO_FILE defines cannot be deleted; a stored document this version cannot read is listed as refused', async () => {
    expect((await app.inject({ method: 'DELETE', url: '/v1/slos/availability' })).statusCode).toBe(409)
    await app.mongo.db.collection('slos').insertOne({ _id: 'broken', text: JSON.stringify(stored('broken', d => { d.spec.extra = 1 })) })
    try {
      const broken = (await get('/v1/slos')).body.slos.find(s => s.name === 'broken')
      expect(broken).toMatchObject({ source: 'stored', status: 'refused', documents: 0 })
      expect(broken.error).toMatch(/^spec.extra: is not supported/)
      expect((await get('/v1/slos/broken/report')).status).toBe(404)
    } finally {
      await app.mongo.db.collection('slos').deleteOne({ _id: 'broken' })
    }
  })
})

describe('tokens', () => {
  it('reports take a read token; PUT and DELETE a write token', async () => {
    fs.writeFileSync(file, ERRORS)
    const [read, write] = ['r'.repeat(20), 'w'.repeat(20)]
    const guarded = await testApp('slo_tokens', { clock, env: { SLO_FILE: file, READ_TOKENS: read, WRITE_TOKENS: write }, sloReloadOnHangup: false })
    const bearer = token => ({ authorization: `Bearer ${token}` })
    try {
      const ask = async (method, url, token, payload) => (await guarded.inject({ method, url, headers: token ? bearer(token) : {}, payload })).statusCode
      expect(await ask('GET', '/v1/slos')).toBe(401)
      expect(await ask('GET', '/v1/slos/login-errors/report', read)).toBe(200)
      const doc = { apiVersion: 'openslo/v1', kind: 'SLO', metadata: { name: 'x' }, spec: { indicator: { spec: { ratioMetric: { bad: { metricSource: { type: 'statbucket', spec: { metric: 'a.b' } } }, total: { metricSource: { type: 'statbucket', spec: { metric: 'a.c' } } } } } }, timeWindow: [{ duration: '1d' }], budgetingMethod: 'Occurrences', objectives: [{ target: 0.5 }] } }
      expect(await ask('PUT', '/v1/slos/x', undefined, doc)).toBe(401)
      expect(await ask('PUT', '/v1/slos/x', read, doc)).toBe(403)
      expect(await ask('PUT', '/v1/slos/x', write, doc)).toBe(200)
      expect(await ask('DELETE', '/v1/slos/x', read)).toBe(403)
      expect(await ask('DELETE', '/v1/slos/x', write)).toBe(200)
    } finally {
      await guarded.close()
    }
  })
})

describe('documents read', () => {
  it('a UTC year reads each selector from its monthly documents and the days the burn windows touch: at most 13 + 4 a selector', async () => {
    const YEAR = slo({ name: 'year', bad: source('year.errors'), total: source('year.requests'), window: '    - duration: 1y\n      isRolling: false' })
    fs.writeFileSync(file, YEAR)
    expect(app.slos.reload().map(s => s.name)).toEqual(['year'])
    const random = seededRandom(64)
    const sent = []
    for (let i = 0; i < 400; i++) sent.push({ metric: random() < 0.1 ? 'year.errors' : 'year.requests', ts: Date.UTC(2026, 0, 1) + Math.floor(random() * (NOW - Date.UTC(2026, 0, 1))) })
    sent.push(...sent.filter(e => e.metric === 'year.errors').map(e => ({ ...e, metric: 'year.requests' }))) // an error is a request too
    expect((await app.inject({ method: 'POST', url: '/v1/events', payload: sent })).json()).toEqual({ accepted: sent.length })
    const { body } = await get('/v1/slos/year/report')
    expect(body).toMatchObject({ period: '2026', total: sent.filter(e => e.metric === 'year.requests').length, days: expect.any(Array) })
    expect(body.good).toBe(body.total - sent.filter(e => e.metric === 'year.errors').length)
    expect(body.days).toHaveLength(365)
    expect(body.documents).toBeLessThanOrEqual(2 * (13 + 4))
  })

  it('a Berlin year: the report reads the day documents its local days need; the listing reads the year from its months, the same figures', async () => {
    const YEAR = slo({ name: 'berlin-year', bad: source('berlin.errors'), total: source('berlin.requests'), window: '    - duration: 1y\n      isRolling: false\n      calendar:\n        timeZone: Europe/Berlin' })
    fs.writeFileSync(file, YEAR)
    expect(app.slos.reload().map(s => s.name)).toEqual(['berlin-year'])
    const random = seededRandom(68)
    // the year's first and last local hours (UTC's previous day) too
    const from = Date.UTC(2025, 11, 31, 23)
    const sent = []
    for (let i = 0; i < 600; i++) sent.push({ metric: random() < 0.1 ? 'berlin.errors' : 'berlin.requests', ts: from + Math.floor(random() * (NOW - from)) })
    sent.push(...sent.filter(e => e.metric === 'berlin.errors').map(e => ({ ...e, metric: 'berlin.requests' })))
    expect((await app.inject({ method: 'POST', url: '/v1/events', payload: sent })).json()).toEqual({ accepted: sent.length })
    const requests = sent.filter(e => e.metric === 'berlin.requests').length
    const errors = sent.filter(e => e.metric === 'berlin.errors').length
    const { body: report } = await get('/v1/slos/berlin-year/report')
    expect([report.period, report.total, report.good, report.days.length]).toEqual(['2026', requests, requests - errors, 365])
    const utcDays = new Set(sent.map(e => new Date(e.ts).toISOString().slice(0, 10))).size
    expect(report.documents).toBeGreaterThan(utcDays) // a day document a UTC day with events, beside the months
    const listed = (await get('/v1/slos')).body.slos.find(s => s.name === 'berlin-year')
    expect([listed.total, listed.good, listed.attainment, listed.budgetRemainingRatio]).toEqual([report.total, report.good, report.attainment, report.budget.remainingRatio])
    expect(listed.documents).toBeLessThanOrEqual(2 * (13 + 2 + 4))
  })
})
