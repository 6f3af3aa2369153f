// The tags section's targets and markdown (bench-report.js joins them to
// the report; docs/benchmarks-tags-otlp-slos.md#tags keeps its table). Pure: a figure not
// measured prints as n/a.
import { bytes, fmt } from './bench-format.js'

export const TAGS_TARGETS = [
  { key: 'tagIndexRssPerSeries', label: 'Tags: the tag index\'s RSS per series, alone in a process (issue 28)', op: '≤', limit: 500, unit: ' B' },
  { key: 'tagFilterP99', label: 'Tags: `tag=` filters of a name of 10,000 series, p99 over HTTP (worst of the three)', op: '≤', limit: 50, unit: ' ms' },
  { key: 'autoCompleteP99', label: 'Tags: `/tags/autoComplete/values` p99 over HTTP (worst of the two queries)', op: '≤', limit: 20, unit: ' ms' },
  { key: 'taggedIngestRatio', label: 'Tags: batched ingest with 3 tags ÷ untagged (events/s)', op: '≥', limit: 0.5, unit: '' },
  { key: 'taggedCpuRatio', label: 'Tags: untagged ÷ 3-tag service CPU per event', op: '≥', limit: 0.5, unit: '' },
  { key: 'rollupIngestRatio', label: 'Tags: batched ingest with 3 tags and a declared rollup ÷ untagged (events/s)', op: '≥', limit: 0.5, unit: '' },
  { key: 'rollupCpuRatio', label: 'Tags: untagged ÷ 3 tags and a rollup, service CPU per event', op: '≥', limit: 0.5, unit: '' }
]

const isNum = v => typeof v === 'number' && Number.isFinite(v)
const ratio = (a, b) => (isNum(a) && isNum(b) && b > 0 ? a / b : null)
/** The worst p99 of the reads of a kind; null where one was not measured or had a request fail */
const worst = (reads, kind) => {
  const of = (reads ?? []).filter(r => r.kind === kind)
  const p99s = of.map(r => r.p99Ms)
  return p99s.length && p99s.every(isNum) && of.every(r => !r.failed) ? Math.max(...p99s) : null
}

/** The section's judged figures (null when not measured) */
export function tagsFigures (t) {
  const i = t?.ingest
  return {
    tagIndexRssPerSeries: t?.memory?.rssBytesPerSeries ?? null,
    tagFilterP99: worst(t?.reads, 'filter'),
    autoCompleteP99: worst(t?.reads, 'autocomplete'),
    taggedIngestRatio: ratio(i?.tagged?.eventsPerS, i?.untagged?.eventsPerS),
    taggedCpuRatio: ratio(i?.untagged?.cpuUsPerEvent, i?.tagged?.cpuUsPerEvent),
    rollupIngestRatio: ratio(i?.rollup?.eventsPerS, i?.untagged?.eventsPerS),
    rollupCpuRatio: ratio(i?.untagged?.cpuUsPerEvent, i?.rollup?.cpuUsPerEvent)
  }
}

const ms = (v, digits = 0) => (isNum(v) ? `${fmt(v, digits)} ms` : 'n/a')
const us = v => (isNum(v) ? `${fmt(v, 2)} µs` : 'n/a')

function table (header, rows) {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map(r => `| ${r.join(' | ')} |`)].join('\n')
}

/** The compact table docs/benchmarks-tags-otlp-slos.md keeps (`--only tags --write-docs`): lines of markdown */
export function tagsTable (t) {
  const p = t.population
  const i = t.ingest
  const f = tagsFigures(t)
  const read = name => t.reads.find(r => r.name === name)
  const row = (label, r) => [label, ms(r?.p50Ms), ms(r?.p99Ms), fmt(r?.requests)]
  const wideLabel = `untagged, ${fmt(i.wideNames)} names (one a series)`
  const ingestRow = (label, r, base, wide) => [label, fmt(r.eventsPerS), us(r.cpuUsPerEvent), base ? fmt(ratio(r.eventsPerS, base.eventsPerS), 2) : '', base ? fmt(ratio(base.cpuUsPerEvent, r.cpuUsPerEvent), 2) : '', wide ? fmt(ratio(wide.cpuUsPerEvent, r.cpuUsPerEvent), 2) : '']
  return [
    `${fmt(p.indexSeries)} series (${fmt(p.names)} names × ${fmt(p.combinations)}) + 2 names of ${fmt(p.busySeries)} and ${fmt(p.topSeries)}. Tag index alone: ${fmt(t.memory.rssBytesPerSeries)} B RSS (${fmt(t.memory.bytesPerSeries)} B heap) a series; in the service ${fmt(t.service.rssBytesPerIndexSeries, 0)} B (${bytes(t.service.rssBytes)}; learned in ${fmt(t.service.learnSeconds, 0)} s).`,
    '',
    table([`read (${t.readConnections} connections)`, 'p50', 'p99', 'requests'], [
      row('name alone, 1 h by minute', read('untagged')),
      row(`\`tag=\` pair (1 of ${fmt(p.busySeries)} series)`, read('filter-one')),
      row(`\`tag=\` (${fmt(p.busySeries / 100)} of ${fmt(p.busySeries)} series)`, read('filter')),
      row(`\`tag=~\` (${fmt(p.busySeries / 100)} of ${fmt(p.busySeries)})`, read('filter-regex')),
      row('autoComplete, `expr=name=…`', read('autocomplete-name')),
      row('autoComplete, all names', read('autocomplete-all')),
      [`top k=10, ${p.topMonths} months × ${fmt(p.topSeries)} series: ${fmt(t.top.documents)} documents (1 conn.)`, ms(t.top.p50Ms), ms(t.top.p99Ms), fmt(t.top.requests)]
    ]),
    '',
    table(['batched ingest', 'events/s', 'CPU / event', '÷ untagged', 'CPU ratio', 'CPU ratio to the wide untagged'], [
      ingestRow('untagged', i.untagged),
      ...(i.wide ? [ingestRow(wideLabel, i.wide, i.untagged)] : []),
      ingestRow('3 tags', i.tagged, i.untagged, i.wide),
      ingestRow('3 tags + rollup', i.rollup, i.untagged, i.wide)
    ]),
    ...(Object.values(f).some(v => v === null) ? ['', 'n/a: not measured in this run.'] : [])
  ]
}

/** The section as markdown lines (the run's report) */
export function tagsSection (t) {
  const p = t.population
  const i = t.ingest
  const failed = t.reads.filter(r => r.failed)
  return [
    `**Tags** — the tag index alone (\`tag-index-memory.js\`, its own process): ${fmt(t.memory.series)} series of ${fmt(t.memory.names)} names, ${fmt(t.memory.rssBytesPerSeries)} B of RSS and ${fmt(t.memory.bytesPerSeries)} B of heap per series. The service: booted in ${fmt(t.service.bootSeconds, 0)} s over \`bench.busy\` (${fmt(p.busySeries)} series, an event a minute for the last whole hour: ${fmt(p.busyDocuments)} day documents) and \`bench.top\` (${fmt(p.topSeries)} series, an event a day for ${p.topMonths} whole months: ${fmt(p.topDocuments)} monthly documents), then ${fmt(p.indexEntries)} registry entries written (${fmt(p.names)} names × ${fmt(p.combinations)} combinations of 3 tags), all in the stored shape${t.javaHeap ? `, mongo-java-server heap ${t.javaHeap}` : ''}. It does not boot over so many: Fastify's 10 s plugin timeout ends the registry's load (seen at 212,002 entries on mongo-java-server); so its name index refresh learned them, as another instance's writes, in ${fmt(t.service.learnSeconds, 0)} s (${fmt(t.service.learnedSeries)} series in its tag index). RSS ${bytes(t.service.bootedRssBytes)} → ${bytes(t.service.rssBytes)}: ${fmt(t.service.rssBytesPerIndexSeries, 0)} B (heap ${fmt(t.service.heapBytesPerIndexSeries, 0)} B) per series learned; peak ${bytes(t.service.rssPeakBytes)}; an empty service ${bytes(i.emptyServiceRssBytes)}.`,
    '',
    `Reads over HTTP, ${t.readConnections} closed-loop connections, ${fmt(t.readSeconds)} s each (every request's latency, none cut off), a random value each request:`,
    '',
    table(['query', 'requests', 'answered/s', 'p50', 'p99', 'max', 'failed'], [
      ...t.reads.map(r => [r.label, fmt(r.requests), fmt(r.requestsPerS, 1), ms(r.p50Ms), ms(r.p99Ms), ms(r.maxMs), fmt(r.failed)]),
      [`\`top?by=customer&k=10\` over ${p.topMonths} whole months (${fmt(t.top.of)} groups, ${fmt(t.top.documents)} documents read, the answer's \`documents\`; MAX_SERIES=${fmt(t.maxSeries)}: the default 1,000 refuses it), one connection, after a warm-up request`, fmt(t.top.requests), '', ms(t.top.p50Ms), ms(t.top.p99Ms), ms(t.top.maxMs), '0']
    ]),
    '',
    `Answers checked: ${t.checks.map(c => `${c.what}${c.ok ? '' : ' **(wrong)**'}`).join('; ')}; top's 10 groups equal the seeded totals: ${t.top.check}.${failed.length ? ` **Failed requests** in ${failed.map(r => r.name).join(', ')}.` : ''}`,
    '',
    `Batched ingest (\`POST /v1/events\`, batches of ${fmt(i.untagged.batch)} over 100 names, ${i.untagged.connections} connections, ${fmt(i.untagged.seconds, 0)} s; tagged: \`route\` × \`status\` × \`region\`, 120 combinations a name; the rollup variant its own process with \`ROLLUP_RULES='${JSON.stringify(i.rollupRules)}'\`):`,
    '',
    table(['events', 'events/s', 'service CPU / event', 'database CPU / event', 'statements / event', 'p99', '÷ untagged (events/s)', 'untagged ÷ (CPU)', 'wide untagged ÷ (CPU)', 'stored'], [
      ['untagged', i.untagged], [`untagged, ${fmt(i.wideNames)} names (one per tagged series)`, i.wide], ['3 tags', i.tagged], ['3 tags + rollup', i.rollup]
    ].filter(([, r]) => r).map(([label, r], n) => [
      label, fmt(r.eventsPerS), us(r.cpuUsPerEvent), us(r.databaseCpuUsPerEvent), fmt(r.statementsPerEvent, 3), ms(r.p99Ms), n ? fmt(ratio(r.eventsPerS, i.untagged.eventsPerS), 2) : '', n ? fmt(ratio(i.untagged.cpuUsPerEvent, r.cpuUsPerEvent), 2) : '', r.tagged ? fmt(ratio(i.wide?.cpuUsPerEvent, r.cpuUsPerEvent), 2) : '', r.check
    ]))
  ]
}
