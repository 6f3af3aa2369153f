// The tag index's heap per series (docs/tags.md#the-tag-index; issue target ≤ 500 B per series):
// `node --expose-gc scripts/bench/tag-index-memory.js [series]` (default 1,000,000: 1,000 names × 1,000 tag
// combinations of three keys). Prints { series, bytesPerSeries } measured from the heap before and after,
// each after a full collection. Not yet a phase of `npm run bench`.
import { createTagIndex } from '../../src/registry/tag-index.js'

if (typeof global.gc !== 'function') {
  console.error('run with node --expose-gc: the heap is measured after a full collection')
  process.exit(2)
}
const n = Number(process.argv[2] ?? 1_000_000)
if (!Number.isInteger(n) || n < 1) {
  console.error(`series: a whole number ≥ 1, got ${JSON.stringify(process.argv[2])}`)
  process.exit(2)
}
global.gc()
const before = process.memoryUsage().heapUsed
const index = createTagIndex()
let i = 0
for (let name = 0; i < n; name++) {
  for (let c = 0; c < 1000 && i < n; c++, i++) {
    index.add(`svc.metric${name};customer=c${c % 100};region=r${c % 10};route=/api/v${Math.floor(c / 100)}`)
  }
}
global.gc()
const after = process.memoryUsage().heapUsed
console.log(JSON.stringify({ series: index.size(), bytesPerSeries: Math.round((after - before) / index.size()) }))
