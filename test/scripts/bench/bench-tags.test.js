// The tags section: what it stores (pure, against the write path's
// eventIncrements), what it asks, and a quick-scale run against the suite's
// server whose report holds real numbers. No duration is asserted: the
// figures are `npm run bench -- --only tags`'s.
import { describe, expect, it } from 'vitest'
import { MongoClient } from 'mongodb'
import { mongodbUri, uniqueDbName } from '../../helpers/test-app.js'
import { benchEnv } from '../../helpers/bench-env.js'
import { serverLacks } from '../../helpers/server-gaps.js'
import { HOUR_MS } from '../../../src/bucket/time.js'
import { parseTagFilter } from '../../../src/tags/tag-filter.js'
import { parseSeriesName, tagsOfSeries } from '../../../src/tags/series-name.js'
import { SCALES } from '../../../scripts/bench/bench-args.js'
import { benchTags } from '../../../scripts/bench/bench-tags.js'
import { evaluateTargets, renderMarkdown } from '../../../scripts/bench/bench-report.js'
import { TAGS_TARGETS, tagsTable } from '../../../scripts/bench/tags-report.js'
import {
  BUSY_NAME, TOP_NAME, busyHourDocuments, indexSeriesNames, ingestTags, tagQueries, topWindow, topYearByIncrements, topYearDocuments, wideSeries
} from '../../../scripts/bench/tags-workload.js'
import { seededRandom } from '../../../scripts/shared/workload.js'

const byId = docs => [...docs].sort((a, b) => (a._id < b._id ? -1 : 1))

describe('what the tags section stores', () => {
  it('names canonical series: the index\'s names × combinations, and the wide names\' customers × routes', () => {
    const index = [...indexSeriesNames({ names: 3, combinations: 200 })]
    expect(new Set(index).size).toBe(600)
    const wide = Array.from({ length: 1000 }, (_, i) => wideSeries(BUSY_NAME, i))
    expect(new Set(wide).size).toBe(1000)
    for (const s of [...index, ...wide]) expect(parseSeriesName(s).series).toBe(s)
    expect(tagsOfSeries(wideSeries(TOP_NAME, 250))).toEqual([['customer', 'c50'], ['route', '/r2']])
  })

  it('writes a year of monthly documents as eventIncrements adds them up, and ranks the customers by them', () => {
    const window = topWindow(Date.UTC(2026, 10, 28, 21), 12)
    expect(window).toEqual({ from: Date.UTC(2025, 10, 1), to: Date.UTC(2026, 10, 1) })
    const fast = topYearDocuments({ series: 150, ...window })
    expect(byId(fast.monthly)).toEqual(byId(topYearByIncrements({ series: 150, ...window })))
    expect(fast.monthly).toHaveLength(151 * 12)
    expect(fast.days).toBe(365)
    const total = fast.monthly.filter(d => d.metric === TOP_NAME).reduce((n, d) => n + d.monthly, 0)
    expect([...fast.byCustomer.values()].reduce((a, b) => a + b, 0)).toBe(total)
  })

  it('writes the busy hour as the day documents of each series and of its name, the name the sum', () => {
    const hourStart = Date.UTC(2026, 10, 28, 20)
    const { daily, total } = busyHourDocuments({ series: 200, hourStart })
    expect(daily).toHaveLength(201)
    const name = daily.find(d => d.metric === BUSY_NAME)
    expect(name.daily).toBe(total)
    expect(daily.filter(d => d.metric !== BUSY_NAME).reduce((n, d) => n + d.daily, 0)).toBe(total)
    expect(Object.keys(name.minute['20'])).toHaveLength(60)
    expect(name.date.getTime()).toBe(hourStart - 20 * HOUR_MS)
  })

  it('tags a body\'s events of a name with one combination, another in the next body, 120 in all', () => {
    const body = k => Array.from({ length: 1000 }, (_, i) => ingestTags(k * 1000 + i))
    const first = body(0)
    for (let i = 0; i < 1000; i++) expect(first[i]).toEqual(first[i % 100])
    expect(body(1)[0]).not.toEqual(first[0])
    const all = new Set()
    for (let k = 0; k < 120_000; k += 7) all.add(JSON.stringify(ingestTags(k)))
    expect(all.size).toBe(120)
  })

  it('asks filters and autocompletes the tag filter parser takes, inside the busy hour', () => {
    const hourStart = Date.UTC(2026, 10, 28, 20)
    const queries = tagQueries({ busySeries: 10_000, hourStart })
    expect(queries.map(q => q.kind)).toEqual(['beside', 'filter', 'filter', 'filter', 'autocomplete', 'autocomplete'])
    const random = seededRandom(1)
    for (const q of queries) {
      const url = new URL(q.make(random), 'http://x')
      if (url.pathname.startsWith('/tags/')) {
        expect(url.searchParams.get('tag')).toMatch(/^(route|customer)$/)
        for (const expr of url.searchParams.getAll('expr')) expect(parseTagFilter(expr, { byName: true }).problem ?? null).toBeNull()
        continue
      }
      for (const tag of url.searchParams.getAll('tag')) expect(parseTagFilter(tag).problem ?? null).toBeNull()
      expect(Number(url.searchParams.get('to')) - Number(url.searchParams.get('from'))).toBe(HOUR_MS)
    }
  })
})

describe('the tags section\'s targets', () => {
  const reads = [
    { name: 'untagged', kind: 'beside', p99Ms: 3, failed: 0 },
    { name: 'filter-one', kind: 'filter', p99Ms: 12, failed: 0 },
    { name: 'filter', kind: 'filter', p99Ms: 40, failed: 0 },
    { name: 'autocomplete-name', kind: 'autocomplete', p99Ms: 9, failed: 0 },
    { name: 'autocomplete-all', kind: 'autocomplete', p99Ms: 25, failed: 0 }
  ]
  const ingest = { untagged: { eventsPerS: 10_000, cpuUsPerEvent: 10 }, tagged: { eventsPerS: 6000, cpuUsPerEvent: 25 }, rollup: { eventsPerS: 4000, cpuUsPerEvent: 15 } }
  const judged = tags => Object.fromEntries(evaluateTargets({ tags }).filter(t => TAGS_TARGETS.some(x => x.key === t.key)).map(t => [t.key, [t.value, t.met]]))

  it('judges the worst read of each kind and the ratios to untagged', () => {
    expect(judged({ memory: { rssBytesPerSeries: 234 }, reads, ingest })).toEqual({
      tagIndexRssPerSeries: [234, true],
      tagFilterP99: [40, true],
      autoCompleteP99: [25, false],
      taggedIngestRatio: [0.6, true],
      taggedCpuRatio: [0.4, false],
      rollupIngestRatio: [0.4, false],
      rollupCpuRatio: [10 / 15, true]
    })
  })

  it('judges no read of a kind where one of its requests failed, and nothing not measured', () => {
    const failing = reads.map(r => (r.name === 'filter-one' ? { ...r, failed: 2 } : r))
    expect(judged({ memory: { rssBytesPerSeries: 234 }, reads: failing, ingest }).tagFilterP99).toEqual([null, null])
    expect(Object.values(judged({})).every(([value, met]) => value === null && met === null)).toBe(true)
  })
})

const isNumber = v => typeof v === 'number' && Number.isFinite(v)
const QUICK_RUN = 'a quick-scale run against the suite\'s server'
describe.skipIf(serverLacks('scale', QUICK_RUN))(QUICK_RUN, () => {
  it('measures every figure of the section, reads answer what was seeded, and its databases go', async () => {
    const dbName = uniqueDbName('tags')
    const scale = SCALES.quick.tags
    const t = await benchTags({ uri: mongodbUri(), dbName, scale })
    expect(t.memory).toMatchObject({ series: scale.names * scale.combinations, names: scale.names })
    expect(isNumber(t.memory.rssBytesPerSeries) && t.memory.bytesPerSeries > 0).toBe(true)
    expect(t.population.registryEntries).toBe(scale.names * scale.combinations + 2 + scale.busySeries + scale.topSeries)
    expect(t.service.rssBytes).toBeGreaterThan(0)
    expect(t.reads.map(r => r.name)).toEqual(['untagged', 'filter-one', 'filter', 'filter-regex', 'autocomplete-name', 'autocomplete-all'])
    for (const r of t.reads) {
      expect(r.requests).toBeGreaterThan(0)
      expect(isNumber(r.p99Ms)).toBe(true)
    }
    expect(t.checks.filter(c => !c.ok)).toEqual([])
    expect(t.checks.find(c => c.what.startsWith('filter:')).series).toBe(scale.busySeries / 100)
    expect(t.checks.find(c => c.what.startsWith('filter-one:')).series).toBe(1)
    // the whole-month window reads the monthly documents only: 12 a series
    expect(t.top).toMatchObject({ check: 'yes', of: 100, groups: 10, documents: scale.topSeries * scale.topMonths })
    expect(t.top.requests).toBeGreaterThanOrEqual(5)
    for (const variant of ['untagged', 'wide', 'tagged', 'rollup']) {
      const r = t.ingest[variant]
      expect(r.check).toMatch(/^yes/)
      expect(r.sentEvents).toBeGreaterThan(0)
      expect(isNumber(r.cpuUsPerEvent)).toBe(true)
      expect(r.tagged).toBe(variant === 'tagged' || variant === 'rollup')
    }
    // the wide untagged run: a name per series of the tagged bodies (100 names × 16 bodies' combinations)
    expect(t.ingest.wideNames).toBe(1600)
    const judged = evaluateTargets({ tags: t }).filter(x => TAGS_TARGETS.some(y => y.key === x.key))
    expect(judged).toHaveLength(TAGS_TARGETS.length)
    for (const x of judged.filter(x => !x.key.endsWith('IngestRatio'))) expect(isNumber(x.value)).toBe(true)
    expect(renderMarkdown({ env: ENV, tags: t, notes: [] })).toMatch(/\*\*Tags\*\* — the tag index alone/)
    expect(tagsTable(t).join('\n')).toMatch(/\| 3 tags \+ rollup \|/)
    expect(tagsTable(t).join('\n')).toMatch(/\| untagged, 1,600 names \(one a series\) \|/)
    const client = await new MongoClient(mongodbUri()).connect()
    try {
      const { databases } = await client.db('admin').admin().listDatabases()
      expect(databases.map(d => d.name).filter(n => n.startsWith(dbName))).toEqual([])
    } finally {
      await client.close()
    }
  }, 240_000)
})

const ENV = benchEnv({ date: '2026-11-28T22:00:00Z', command: 'npm run bench -- --only tags --scale quick', backend: { description: 'test' }, scale: { description: 'quick' } })
