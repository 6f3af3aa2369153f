// The tag index's memory per series (docs/tags.md#the-tag-index; issue 28's target ≤ 500 B of RSS per series):
// `node --expose-gc scripts/bench/tag-index-memory.js [series] [combinations]` (default 1,000,000 series:
// names of 1,000 tag combinations of three keys). Prints { series, names, bytesPerSeries, rssBytesPerSeries }: the
// heap and the resident memory of this process before and after, each after a full collection, with nothing
// else built. The tags section of `npm run bench` runs it as a child process (bench-tags.js).
import { createTagIndex } from '../../src/registry/tag-index.js'

/** The series of the index: name `prefix` + number, tags of combination c (customer, and the region and route it implies) */
export function indexSeries (name, c, prefix = 'svc.metric') {
  return `${prefix}${name};customer=c${c % 100};region=r${c % 10};route=/api/v${Math.floor(c / 100)}`
}

const wholeArg = (i, fallback) => {
  const raw = process.argv[i]
  const n = Number(raw ?? fallback)
  if (!Number.isInteger(n) || n < 1) {
    console.error(`usage: node --expose-gc scripts/bench/tag-index-memory.js [series] [combinations]: whole numbers ≥ 1, got ${JSON.stringify(raw)}`)
    process.exit(2)
  }
  return n
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (typeof global.gc !== 'function') {
    console.error('run with node --expose-gc: the heap is measured after a full collection')
    process.exit(2)
  }
  const n = wholeArg(2, 1_000_000)
  const combinations = wholeArg(3, 1000)
  global.gc()
  const before = process.memoryUsage()
  const index = createTagIndex()
  let i = 0
  let names = 0
  for (let name = 0; i < n; name++, names++) {
    for (let c = 0; c < combinations && i < n; c++, i++) index.add(indexSeries(name, c))
  }
  global.gc()
  const after = process.memoryUsage()
  console.log(JSON.stringify({
    series: index.size(),
    names,
    bytesPerSeries: Math.round((after.heapUsed - before.heapUsed) / index.size()),
    rssBytesPerSeries: Math.round((after.rss - before.rss) / index.size())
  }))
}
