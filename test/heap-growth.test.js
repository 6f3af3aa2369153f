// HEAP_GROWTH_PERCENT (src/heap-growth.js, docs/adr/0082-heap-growth-factor.md):
// the flag it sets, and that the node running the suite honours it when it
// is set at run time, as src/server.js sets it.
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { SERVICE_NODE_FLAGS, applyHeapGrowth } from '../src/heap-growth.js'
import { loadConfig } from '../src/config.js'

const WORKLOAD = fileURLToPath(new URL('./helpers/heap-growth-workload.js', import.meta.url))
// as the service runs: npm start's node flags, the factor set at run time
const peakOf = (percent) => Number(execFileSync(process.execPath, [...SERVICE_NODE_FLAGS, WORKLOAD, String(percent)], { encoding: 'utf8', timeout: 60_000 }).split(' ')[0])

describe('the heap growing factor', () => {
  it('is 1 + HEAP_GROWTH_PERCENT/100, 2 by default; 0 leaves V8\'s own; 1–9 and past 300 refused', () => {
    expect(loadConfig({}).heapGrowthPercent).toBe(100)
    const set = []
    expect(applyHeapGrowth(100, (f) => set.push(f))).toBe('--heap-growing-percent=100')
    expect(applyHeapGrowth(0, (f) => set.push(f))).toBe(null)
    expect(set).toEqual(['--heap-growing-percent=100'])
    expect(() => loadConfig({ HEAP_GROWTH_PERCENT: '301' })).toThrow(/^HEAP_GROWTH_PERCENT: /)
    expect(() => loadConfig({ HEAP_GROWTH_PERCENT: '5' })).toThrow(/^HEAP_GROWTH_PERCENT: must be 0 \(V8's own\) or 10–300, got 5$/)
    expect(loadConfig({ HEAP_GROWTH_PERCENT: '10' }).heapGrowthPercent).toBe(10)
    expect(() => loadConfig({ HEAP_GROWTH_PERCENT: 'lots' })).toThrow(/^HEAP_GROWTH_PERCENT: /)
  })

  it(`set at run time, bounds the heap of objects that outlive young collections (node ${process.version})`, () => {
    // heapTotal peaks measured at 300 and 100: 344–351 and 192–203 MB (Node 20.20), 372–397 and 245–265 MB (Node 24.22)
    const wide = peakOf(300)
    const bounded = peakOf(100)
    expect(bounded, `heapTotal peak ${bounded} at 100 against ${wide} at 300`).toBeLessThan(wide * 0.85)
  })
})
