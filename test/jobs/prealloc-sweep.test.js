// The sweep's reads, with stand-in collections: what it asks the database
// for, so that its cost is today's busy metrics on any server (the end-to-end
// behaviour is in test/routes/preallocation.test.js).
import { describe, expect, it } from 'vitest'
import { createPreallocSweep } from '../../src/jobs/prealloc-sweep.js'
import { manualClock } from '../../src/clock.js'
import { preallocationGroupOf } from '../../src/jobs/preallocation-plugin.js'
import { createNameIndex } from '../../src/registry/name-index.js'
import { createRollups } from '../../src/tags/rollups.js'

const TODAY = Date.UTC(2026, 10, 18)
const quiet = { info () {}, warn () {} }

/** A collection answering find(filter) from `docs` by `match`, recording every filter and projection */
function standIn (docs, match) {
  const calls = []
  return {
    calls,
    find (filter, options) {
      calls.push({ filter, options })
      let found = docs.filter(d => match(d, filter))
      const cursor = {
        sort () { found = found.toSorted((a, b) => (a._id < b._id ? -1 : 1)); return cursor },
        limit (n) { found = found.slice(0, n); return cursor },
        toArray: async () => found.map(d => structuredClone(d))
      }
      return cursor
    }
  }
}

const byIds = (d, filter) => filter._id.$in.includes(d._id)

describe('the sweep\'s reads', () => {
  it('reads the busy metrics by busyDay, and their days and months by _id alone; a month without the day\'s field is done again', async () => {
    const metrics = standIn([
      { _id: 'a', busyDay: new Date(TODAY) },
      { _id: 'b', busyDay: new Date(TODAY) },
      { _id: 'c', busyDay: new Date(TODAY) },
      { _id: 'quiet' }
    ], (d, filter) => d.busyDay?.getTime() === filter.busyDay.getTime() && (!filter._id || d._id > filter._id.$gt))
    // a: done; b: its day exists but its month lacks the day's field; c: nothing yet
    const daily = standIn([{ _id: 'a/20261119' }, { _id: 'b/20261119' }], byIds)
    const monthly = standIn([{ _id: 'a/202611', daily: { 18: 5, 19: 0 } }, { _id: 'b/202611', daily: { 18: 2 } }], byIds)
    const preallocated = []
    const preallocator = { preallocateDay: async (name, day) => { preallocated.push([name, day]); return 2 } }
    const sweep = createPreallocSweep({ metrics, daily, monthly, preallocator, clock: manualClock(TODAY + 23.5 * 3_600_000), rate: 100_000, logger: quiet })
    expect(await sweep.runOnce()).toEqual({ checked: 3, created: 2, day: '2026-11-19T00:00:00.000Z' })
    expect(preallocated).toEqual([['b', TODAY + 86_400_000], ['c', TODAY + 86_400_000]])
    // the registry through its busyDay index, nothing else of it
    expect(metrics.calls.map(c => Object.keys(c.filter))).toEqual([['busyDay'], ['busyDay', '_id']])
    // days and months by _id only: a query every server answers from the _id index
    for (const c of [...daily.calls, ...monthly.calls]) expect(Object.keys(c.filter)).toEqual(['_id'])
    expect(monthly.calls[0].options.projection).toEqual({ 'daily.19': 1 })
  })

  it('a busy series brings its name and rollups, in that order, its name once a run; a busy rollup, or a busy name with series (known here or learnt), is never preallocated alone', async () => {
    const busy = ['learnt', 'plain', 'w', 'w;route=/a', 'w;route=/b', 'w;~route;route=/a']
    const metrics = standIn(busy.map(_id => ({ _id, busyDay: new Date(TODAY) })), (d, filter) => d.busyDay?.getTime() === filter.busyDay.getTime() && (!filter._id || d._id > filter._id.$gt))
    const daily = standIn([], byIds)
    const monthly = standIn([], byIds)
    const preallocated = []
    const preallocator = { preallocateDay: async (name, day, kind) => { preallocated.push([name, kind]); return 2 } }
    const rollups = createRollups([{ match: 'w', by: [['route']] }])
    const registry = { seriesCount: (name) => (name === 'w' ? 2 : 0) }
    // a series another instance wrote, which the tag index learnt (registry/name-index-refresh.js)
    const nameIndex = createNameIndex()
    nameIndex.add('learnt;k=v')
    const sweep = createPreallocSweep({ metrics, daily, monthly, preallocator, clock: manualClock(TODAY + 23.5 * 3_600_000), rate: 100_000, logger: quiet, groupOf: preallocationGroupOf({ rollups, registry, nameIndex }) })
    expect(await sweep.runOnce()).toEqual({ checked: 6, created: 6, day: '2026-11-19T00:00:00.000Z' })
    expect(preallocated).toEqual(['plain', 'w;route=/a', 'w', 'w;~route;route=/a', 'w;route=/b', 'w;~route;route=/b'].map(m => [m, 'sweep']))
  })
})
