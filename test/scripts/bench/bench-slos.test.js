// The SLO section: what it stores (pure, against the write path's
// eventIncrements), the SLO file it writes (against the definitions'
// parser), its judged figures, and a quick-scale run against the suite's
// server whose reports equal the model. No duration is asserted: the
// figures are `npm run bench -- --only slos`'s.
import { describe, expect, it } from 'vitest'
import { BSON, MongoClient } from 'mongodb'
import { mongodbUri, uniqueDbName } from '../../helpers/test-app.js'
import { serverLacks } from '../../helpers/server-gaps.js'
import { benchEnv } from '../../helpers/bench-env.js'
import { buildCounterUnit, eventIncrements } from '../../../src/bucket/increments.js'
import { createZonedDays } from '../../../src/bucket/zoned-days.js'
import { timeZone } from '../../../src/bucket/time-zone.js'
import { parseSloFile } from '../../../src/slos/definitions.js'
import { SCALES } from '../../../scripts/bench/bench-args.js'
import { nestIncrements } from '../../../scripts/bench/bench-reads.js'
import { benchSlos } from '../../../scripts/bench/bench-slos.js'
import { evaluateTargets, renderMarkdown } from '../../../scripts/bench/bench-report.js'
import { SLOS_TARGETS, slosFigures, slosTable } from '../../../scripts/bench/slos-report.js'
import { monthlyBytes, monthlyIncrement } from '../../../scripts/bench/slo-shape-variants.js'
import { SLO_GROUPS, modelSum, seriesDocuments, sloFile, sloList, sources } from '../../../scripts/bench/slos-workload.js'

const MINUTE = 60_000
const DAY = 86_400_000
const byId = docs => [...docs].sort((a, b) => (a._id < b._id ? -1 : 1))

/** A series' documents event by event through eventIncrements, minutes kept from `minutesFrom` */
function byIncrements ({ metric, value }, from, upTo, minutesFrom) {
  const docs = { daily: new Map(), monthly: new Map() }
  for (let t = from; t < upTo; t += MINUTE) {
    const e = eventIncrements({ metric, value: value(t / MINUTE), time: t }, { keepsMinutes: (_, day) => day >= minutesFrom })
    for (const part of ['daily', 'monthly']) {
      const p = e[part]
      const doc = docs[part].get(p.id) ?? { _id: p.id, metric, date: new Date(p.date), inc: {}, ...(p.detail ? { detail: p.detail } : {}) }
      for (const [f, v] of Object.entries(p.inc)) doc.inc[f] = (doc.inc[f] ?? 0) + v
      docs[part].set(p.id, doc)
    }
  }
  const stored = m => [...m.values()].map(({ inc, ...doc }) => ({ ...doc, ...nestIncrements(inc) }))
  return { daily: stored(docs.daily), monthly: stored(docs.monthly) }
}

describe('what the SLO section stores', () => {
  it('writes each series\' days and months as eventIncrements adds its minutes up, minutes on the last days only', () => {
    const from = Date.UTC(2026, 0, 30)
    const upTo = Date.UTC(2026, 1, 2, 5, 17)
    for (const series of sources({ plain: 1, tagged: 1 }).flatMap(s => s.series)) {
      const fast = seriesDocuments(series, { from, upTo, minuteDays: 2 })
      const slow = byIncrements(series, from, upTo, Date.UTC(2026, 1, 1))
      expect(byId(fast.daily)).toEqual(byId(slow.daily))
      expect(byId(fast.monthly)).toEqual(byId(slow.monthly))
      expect(fast.daily.map(d => d.detail ?? 'minutes')).toEqual(['quarterHour', 'quarterHour', 'minutes', 'minutes'])
    }
  })

  it('writes each month document\'s local days of the declared zones as the write path adds the minutes up (Kolkata\'s and Kathmandu\'s days across a month\'s end)', () => {
    const from = Date.UTC(2026, 0, 30)
    const upTo = Date.UTC(2026, 1, 2, 5, 17)
    const [tagged] = sources({ plain: 0, tagged: 1 })
    const zonedOf = createZonedDays(['Asia/Kolkata', 'Asia/Kathmandu'].map(z => ({ zone: timeZone(z), metric: tagged.name })))
    for (const series of tagged.series) {
      const fast = seriesDocuments(series, { from, upTo, minuteDays: 2, zonedOf })
      const events = []
      for (let t = from; t < upTo; t += MINUTE) events.push({ metric: series.metric, value: series.value(t / MINUTE), time: t })
      const written = buildCounterUnit(events, { zonedOf }).monthly
      expect(fast.monthly.map(m => m._id)).toEqual([...written.keys()])
      for (const month of fast.monthly) expect(month.zoned).toEqual(nestIncrements(written.get(month._id).inc).zoned)
      expect(Object.keys(fast.monthly[1].zoned['Asia/Kolkata'])).toEqual(['20260201', '20260202'])
    }
  })

  it('writes 100 SLOs the definitions\' parser reads, in every group, the tagged ones filtering their series', () => {
    const slos = sloList(sources({ plain: 40, tagged: 5 }))
    expect(slos).toHaveLength(100)
    const parsed = parseSloFile(sloFile(slos))
    expect(parsed.map(s => s.name)).toEqual(slos.map(s => s.name))
    for (const g of SLO_GROUPS) {
      const of = parsed.filter((_, i) => slos[i].duration === g.duration && slos[i].zone === g.zone)
      expect(of).toHaveLength(g.count)
      for (const s of of) expect([s.window.duration, s.window.rolling ? null : s.window.zone]).toEqual([g.duration, g.zone])
    }
    const tagged = parsed.find(s => s.indicator.good.tags.length)
    expect(tagged.indicator.good.tags).toEqual(['status!=~5..'])
    expect(tagged.indicator.total.metric).toBe(tagged.indicator.good.metric)
  })

  it('models a selector\'s sum as its documents hold it: the name the sum of its series, good its 2xx and 4xx', () => {
    const [plain, tagged] = sources({ plain: 1, tagged: 1 })
    const day = { from: Date.UTC(2026, 2, 3), to: Date.UTC(2026, 2, 4) }
    const seeded = { seededFrom: day.from, upTo: day.to }
    const dailyOf = metric => seriesDocuments(tagged.series.find(s => s.metric === metric), { from: day.from, upTo: day.to, minuteDays: 1 }).daily[0].daily
    expect(modelSum(tagged, 'total', day, seeded)).toBe(dailyOf(tagged.name))
    expect(modelSum(tagged, 'good', day, seeded)).toBe(dailyOf(`${tagged.name};status=200`) + dailyOf(`${tagged.name};status=404`))
    expect(modelSum(plain, 'good', day, seeded)).toBeLessThan(modelSum(plain, 'total', day, seeded))
    // nothing outside what was seeded
    expect(modelSum(plain, 'total', { from: day.to, to: day.to + DAY }, seeded)).toBe(0)
  })

  it('sizes the month document\'s options by their fields: each day\'s 24 hours, or each local day of 2 zones', () => {
    expect(monthlyIncrement('hours', Date.UTC(2026, 0, 31, 23, 30), 2)).toEqual({ monthly: 2, 'daily.31': 2, 'hourly.31.23': 2 })
    // 23:30 UTC on the 31st is the 1st of February in Berlin and in Kolkata
    expect(monthlyIncrement('zones', Date.UTC(2026, 0, 31, 23, 30), 1)).toEqual({ monthly: 1, 'daily.31': 1, 'zoned.0.20260201': 1, 'zoned.1.20260201': 1 })
    const stored = monthlyBytes('stored')
    expect(stored).toBe(BSON.calculateObjectSize({ _id: 'web.requests/202601', metric: 'web.requests', date: new Date(0), monthly: 1, daily: Object.fromEntries(Array.from({ length: 31 }, (_, d) => [String(d + 1), 1])) }))
    expect(monthlyBytes('hours')).toBeGreaterThan(stored + 31 * 24 * 7) // a type, a key of 1–2 characters, its end and an int32 a field
    expect(monthlyBytes('zones')).toBeGreaterThan(stored + 2 * 31 * 14)
  })
})

describe('the SLO section\'s targets', () => {
  const report = (name, kind, p99Ms, max) => ({ name, kind, p99Ms, documentsPerSelectorMax: max, failed: 0 })
  const figures = { checks: { wrong: 0 }, reports: [report('1y UTC', 'year', 12, 17), report('1y Europe/Berlin', 'year', 30, 380), report('1M UTC', 'other', 99, 5)], metrics: { p99Ms: 40, failed: 0 } }

  it('judges the worst year report and its documents a selector, and /metrics', () => {
    expect(slosFigures(figures)).toEqual({ sloYearReportP99: 30, sloYearDocuments: 380, sloMetricsP99: 40 })
    const judged = evaluateTargets({ slos: figures }).filter(t => SLOS_TARGETS.some(x => x.key === t.key))
    expect(judged.map(t => t.met)).toEqual([false, false, true])
  })

  it('judges no report figure when a report disagreed with the model', () => {
    expect(slosFigures({ ...figures, checks: { wrong: 1 } })).toMatchObject({ sloYearReportP99: null, sloYearDocuments: null })
    expect(Object.values(slosFigures({})).every(v => v === null)).toBe(true)
  })
})

const isNumber = v => typeof v === 'number' && Number.isFinite(v)
const QUICK_RUN = 'a quick-scale run against the suite\'s server'
describe.skipIf(serverLacks('scale', QUICK_RUN))(QUICK_RUN, () => {
  it('reports equal the model in every group, every figure measured, its database goes', async () => {
    const dbName = uniqueDbName('slos')
    const s = await benchSlos({ uri: mongodbUri(), dbName, scale: SCALES.quick.slos })
    expect(s.checks).toMatchObject({ wrong: 0 })
    expect(s.checks.reports).toBe(100 + 33)
    expect(s.reports.map(r => r.name)).toEqual(expect.arrayContaining(['1y UTC', '1y Europe/Berlin', '1y Asia/Kolkata', `1y Europe/Berlin ${s.population.previousYear}`]))
    for (const r of s.reports) {
      expect(r.failed).toBe(0)
      expect(isNumber(r.p99Ms) && isNumber(r.documentsPerSelector)).toBe(true)
    }
    const of = name => s.reports.find(r => r.name === name)
    const year = `1y UTC ${s.population.previousYear}`
    // a year reads its months in any zone: outside UTC each local day from the zoned fields of the months it spans
    expect(of(year).days).toBeGreaterThanOrEqual(365)
    expect(of(year).documentsPerSelectorMax).toBeLessThanOrEqual(2 * 13)
    for (const zone of ['Europe/Berlin', 'Asia/Kolkata']) expect(of(`1y ${zone} ${s.population.previousYear}`).documentsPerSelectorMax).toBeLessThanOrEqual(2 * 13 + 4)
    expect(s.zoned).toBe(true)
    expect(s.list).toMatchObject({ slos: 100, failed: 0 })
    expect(s.list.documents).toBeLessThan(100 * 2 * (13 + 2 + 4) * 2)
    expect(isNumber(s.metrics.p99Ms) && Number.isInteger(s.metrics.sloSeries)).toBe(true)
    expect(Object.keys(s.shapes)).toEqual(['stored', 'hours', 'zones'])
    const judged = evaluateTargets({ slos: s }).filter(x => SLOS_TARGETS.some(y => y.key === x.key))
    for (const x of judged) expect(isNumber(x.value)).toBe(true)
    expect(renderMarkdown({ env: benchEnv({ command: 'npm run bench -- --only slos --scale quick' }), slos: s, notes: [] })).toMatch(/\*\*SLOs\*\*/)
    expect(slosTable(s).join('\n')).toMatch(/\| 1y Kolkata \|/)
    const client = await new MongoClient(mongodbUri()).connect()
    try {
      const { databases } = await client.db('admin').admin().listDatabases()
      expect(databases.map(d => d.name).filter(n => n.startsWith(dbName))).toEqual([])
    } finally {
      await client.close()
    }
  }, 300_000)
})
