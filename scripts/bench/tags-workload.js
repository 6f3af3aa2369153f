// What the tags section (./bench-tags.js) stores and asks: its series, the
// documents seeded in the writer's stored shape (eventIncrements, the
// oracle of the write path), and the queries. Pure.
import { eventIncrements } from '../../src/bucket/increments.js'
import { DAY_MS, HOUR_MS, MINUTE_MS, addMonths, bucketId, monthKey, startOfMonth, utcParts } from '../../src/bucket/time.js'
import { nestIncrements } from './bench-reads.js'
import { indexSeries } from './tag-index-memory.js'

export const INDEX_PREFIX = 'bench.idx.n'
/** The name with `busySeries` series and a busy last hour: the tag= filter's and autoComplete's */
export const BUSY_NAME = 'bench.busy'
/** The name with `topSeries` series and a year of days: top's */
export const TOP_NAME = 'bench.top'
// The ingest names: `bench.<one part>`, as the rollup rule's glob `bench.*` matches them
export const INGEST_PREFIXES = { untagged: 'bench.plain', wide: 'bench.wide', tagged: 'bench.tagged', rollup: 'bench.rolled' }
/** The declared rollup of the third ingest variant (ROLLUP_RULES: a Graphite glob over the name, the tag-key subsets kept) */
export const ROLLUP_RULES = [{ match: 'bench.*', by: [['route']] }]

/** The index's series: `names` names × `combinations` tag combinations (tag-index-memory.js's shape) */
export function * indexSeriesNames ({ names, combinations }) {
  for (let n = 0; n < names; n++) {
    for (let c = 0; c < combinations; c++) yield indexSeries(String(n).padStart(4, '0'), c, INDEX_PREFIX)
  }
}

/** Series i of a name of many series: 100 customers × the routes, in canonical order */
export const wideSeries = (name, i) => `${name};customer=c${i % 100};route=/r${Math.floor(i / 100)}`

/**
 * The three tags of event k of bodies of `batch` events over 100 names
 * (bench-ingest.js taggedBodies): one of 120 combinations (10 routes × 3
 * statuses × 4 regions), the same for a name's events in one body, as an
 * untagged body repeats its names; another in the next body.
 */
export function ingestTags (k, batch = 1000) {
  const c = ingestCombination(k, batch)
  return { route: `/r${c % 10}`, status: ['200', '404', '500'][Math.floor(c / 10) % 3], region: `r${Math.floor(c / 30)}` }
}

/** The combination (0–119) of event k's tags (ingestTags) */
const ingestCombination = (k, batch) => (Math.floor(k / batch) * 7 + (k % 100)) % 120

/**
 * Event k's untagged name over as many names as the tagged bodies have
 * series: its name and its tags' combination as one plain name (the same
 * events and bodies, each series a name of its own)
 */
export const wideIngestName = (name, k, batch = 1000) => `${name}.c${ingestCombination(k, batch)}`

/** A value that differs by series and time, 1–13 */
const valueOf = (i, t) => 1 + ((i * 7 + Math.floor(t / MINUTE_MS)) % 13)

/** Adds an event's increments of `part` ('daily' or 'monthly') to docs (Map id → { _id, metric, date, inc }) */
function addTo (docs, part, metric, e) {
  const p = e[part]
  let doc = docs.get(p.id)
  if (!doc) docs.set(p.id, (doc = { _id: p.id, metric, date: new Date(p.date), inc: {} }))
  for (const [f, v] of Object.entries(p.inc)) doc.inc[f] = (doc.inc[f] ?? 0) + v
}

const stored = (docs) => [...docs.values()].map(({ inc, ...doc }) => ({ ...doc, ...nestIncrements(inc) }))

/**
 * The busy hour: each of the busy name's series an event a minute in
 * [hourStart, hourStart + 1 h), and its name the same events (a tagged event
 * counts toward both) → { daily: [documents], total }
 */
export function busyHourDocuments ({ series, hourStart }) {
  const docs = new Map()
  let total = 0
  // the name's documents of each minute (its increments are its series', under its own ids)
  const ofName = Array.from({ length: 60 }, (_, m) => eventIncrements({ metric: BUSY_NAME, value: 0, time: hourStart + m * MINUTE_MS }).daily)
  for (let i = 0; i < series; i++) {
    const s = wideSeries(BUSY_NAME, i)
    for (let m = 0; m < 60; m++) {
      const time = hourStart + m * MINUTE_MS
      const value = valueOf(i, time)
      const e = eventIncrements({ metric: s, value, time })
      addTo(docs, 'daily', s, e)
      addTo(docs, 'daily', BUSY_NAME, { daily: { ...ofName[m], inc: e.daily.inc } })
      total += value
    }
  }
  return { daily: stored(docs), total }
}

/** The `months` whole UTC months before the one holding now: the top query's window */
export function topWindow (now, months) {
  const to = startOfMonth(now)
  return { from: addMonths(to, -months), to }
}

/** The value of series i on the day starting at `day`, 1–13 */
const dayValue = (i, day) => 1 + ((i * 7 + Math.floor(day / DAY_MS)) % 13)

/**
 * A year of the top name's series, an event a day each (at noon), as the
 * monthly documents a whole-month window reads, and the name's own months;
 * built as eventIncrements' monthly parts add up (test/scripts/bench/bench-tags.test.js
 * holds it equal to them). → { monthly: [documents], byCustomer: Map customer → total, days }
 */
export function topYearDocuments ({ series, from, to }) {
  const monthly = []
  const byCustomer = new Map()
  let days = 0
  for (let month = from; month < to; month = addMonths(month, 1)) {
    const end = Math.min(addMonths(month, 1), to)
    const key = monthKey(month)
    const name = { _id: bucketId(TOP_NAME, key), metric: TOP_NAME, date: new Date(month), monthly: 0, daily: {} }
    for (let i = 0; i < series; i++) {
      const s = wideSeries(TOP_NAME, i)
      const doc = { _id: bucketId(s, key), metric: s, date: new Date(month), monthly: 0, daily: {} }
      for (let day = month; day < end; day += DAY_MS) {
        const value = dayValue(i, day)
        const d = utcParts(day).day
        doc.daily[d] = value
        doc.monthly += value
        name.daily[d] = (name.daily[d] ?? 0) + value
      }
      name.monthly += doc.monthly
      monthly.push(doc)
      byCustomer.set(`c${i % 100}`, (byCustomer.get(`c${i % 100}`) ?? 0) + doc.monthly)
    }
    monthly.push(name)
    days += (end - month) / DAY_MS
  }
  return { monthly, byCustomer, days }
}

/** The same year through eventIncrements (the write path's oracle), an event a day per series: small inputs only */
export function topYearByIncrements ({ series, from, to }) {
  const docs = new Map()
  for (let day = from; day < to; day += DAY_MS) {
    for (let i = 0; i < series; i++) {
      const s = wideSeries(TOP_NAME, i)
      const value = dayValue(i, day)
      addTo(docs, 'monthly', s, eventIncrements({ metric: s, value, time: day + 12 * HOUR_MS }))
      addTo(docs, 'monthly', TOP_NAME, eventIncrements({ metric: TOP_NAME, value, time: day + 12 * HOUR_MS }))
    }
  }
  return stored(docs)
}

/** A registry entry as the writer leaves a counter's (metrics collection) */
export const registryEntry = (name, now) => ({ _id: name, firstSeen: new Date(now - DAY_MS), lastSeen: new Date(now), added: new Date(now) })

/** The read queries of the section: random per request → [{ name, label, kind, make(random) → path }] */
export function tagQueries ({ busySeries, hourStart }) {
  const window = `from=${hourStart}&to=${hourStart + HOUR_MS}&step=minute`
  const routes = Math.ceil(busySeries / 100)
  const customer = random => `c${Math.floor(random() * 100)}`
  const route = random => `/r${Math.floor(random() * routes)}`
  const per = busySeries / 100
  return [
    { name: 'untagged', kind: 'beside', label: `\`${BUSY_NAME}\` itself (untagged: the name's own documents), the hour at minute step`, make: () => `/v1/metrics/${BUSY_NAME}/series?${window}` },
    { name: 'filter-one', kind: 'filter', label: `\`tag=customer=c<random>&tag=route=/r<random>\` of \`${BUSY_NAME}\` (1 of its ${busySeries} series), the hour at minute step`, make: random => `/v1/metrics/${BUSY_NAME}/series?${window}&tag=customer=${customer(random)}&tag=route=${encodeURIComponent(route(random))}` },
    { name: 'filter', kind: 'filter', label: `\`tag=customer=c<random>\` of \`${BUSY_NAME}\` (${per} of its ${busySeries} series read and summed), the hour at minute step`, make: random => `/v1/metrics/${BUSY_NAME}/series?${window}&tag=customer=${customer(random)}` },
    { name: 'filter-regex', kind: 'filter', label: `\`tag=customer=~c<random>$\` of \`${BUSY_NAME}\` (a regex: each of its ${busySeries} series tested, ${per} read and summed), the hour at minute step`, make: random => `/v1/metrics/${BUSY_NAME}/series?${window}&tag=${encodeURIComponent(`customer=~${customer(random)}$`)}` },
    { name: 'autocomplete-name', kind: 'autocomplete', label: `\`/tags/autoComplete/values?expr=name=${BUSY_NAME}&tag=route&valuePrefix=/r<random>\` (its ${busySeries} series searched)`, make: random => `/tags/autoComplete/values?expr=name%3D${BUSY_NAME}&tag=route&valuePrefix=${encodeURIComponent(`/r${Math.floor(random() * routes)}`)}` },
    { name: 'autocomplete-all', kind: 'autocomplete', label: '`/tags/autoComplete/values?tag=customer&valuePrefix=c<random>` (every name\'s values)', make: random => `/tags/autoComplete/values?tag=customer&valuePrefix=${customer(random)}` }
  ]
}
