// The side-by-side tool's arithmetic and command line (scripts/bench/side-by-side.js):
// figures per event from the stats it reads, medians per side, usage errors.
import { describe, expect, it } from 'vitest'
import { main, median, phaseFigures, renderSideBySide } from '../../../scripts/bench/side-by-side.js'

const stats = (cpuMs, flushes, flushedUnits) => ({ cpuMs, counters: { flushes, flushedUnits } })

describe('side-by-side', () => {
  it('takes a phase\'s figures per event from the service\'s and the database\'s CPU', () => {
    const f = phaseFigures({ before: stats(1000, 10, 100), after: stats(1500, 20, 220), dbBefore: 2000, dbAfter: 2300, requests: 120, eventsPerRequest: 1000, seconds: 4, p99Ms: 31 })
    expect(f).toEqual({ eventsPerS: 30_000, serviceUsPerEvent: 500_000 / 120_000, databaseUsPerEvent: 300_000 / 120_000, requestsPerFlush: 12, p99Ms: 31, rssMB: null })
    // the database's CPU unknown (not Linux, or no pid): n/a, not 0
    expect(phaseFigures({ before: stats(0, 0, 0), after: stats(1, 0, 0), dbBefore: null, dbAfter: null, requests: 1, eventsPerRequest: 1, seconds: 1, p99Ms: 1 })).toMatchObject({ databaseUsPerEvent: null, requestsPerFlush: null })
  })

  it('takes the median of each side, whatever the order of the rounds', () => {
    expect(median([3, 1, 2])).toBe(2)
    expect(median([4, 1, 3, 2])).toBe(2.5)
    expect(median([null, 5])).toBe(5)
    expect(median([])).toBeNull()
    const run = (side, round, x) => ({ side, round, phases: { batched: { eventsPerS: x, serviceUsPerEvent: x / 1000, databaseUsPerEvent: null, requestsPerFlush: 8, p99Ms: 30, rssMB: 150 }, 'single-1': { eventsPerS: x / 100, serviceUsPerEvent: 50, databaseUsPerEvent: 30, requestsPerFlush: 1, p99Ms: 9, rssMB: null } } })
    const md = renderSideBySide([run('base', 1, 1000), run('this', 1, 3000), run('base', 2, 5000), run('this', 2, 1000), run('base', 3, 2000), run('this', 3, 2000)])
    expect(md).toMatch(/\| base \| 2 \| batched \| 5,000 \| 5\.00 \| n\/a \| 8\.0 \| 30 \| 150 \|/)
    const medians = md.split('Medians')[1]
    expect(medians).toMatch(/\| base \| median \| batched \| 2,000 \| 2\.00 \(1\.00–5\.00\) \| n\/a \| 8\.0 \| 30 \| 150 \|/)
    expect(medians).toMatch(/\| this \| median \| single-1 \| 20 \| 50\.00 \(50\.00–50\.00\) \| 30\.00 \| 1\.0 \| 9 \| n\/a \|/)
  })

  it('needs --base, and says so with exit code 2', async () => {
    let err = ''
    const io = { out: { write () {} }, err: { write: s => { err += s } } }
    expect(await main([], io)).toBe(2)
    expect(err).toMatch(/--base DIR is required/)
    err = ''
    expect(await main(['--base', '.', '--rounds', '0'], io)).toBe(2)
    expect(err).toMatch(/--rounds must be a positive number/)
    err = ''
    expect(await main(['--base', '.', '--phases', 'single-0'], io)).toBe(2)
    expect(err).toMatch(/--phases takes batched, timers, tagged, rollup, otlp and single-N/)
  })
})
