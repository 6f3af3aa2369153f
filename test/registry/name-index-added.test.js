// The name index's look across instances on a real database: it reads the
// registry entries added since the last look (less its margin), through the
// `added` index; an entry written again (a series seen each minute) keeps
// the time it was added, so the looks after its first minutes do not read
// it again, nor every active series after a UTC midnight.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { testApp, uniqueDbName } from '../helpers/test-app.js'

const MIN = 60_000
const MIDNIGHT = Date.UTC(2026, 10, 22)
const NOW = MIDNIGHT - 3 * MIN // 23:57

describe('the name index learns what another instance added, and reads nothing else again', () => {
  const clock = manualClock(NOW)
  let a, b
  const reads = [] // the names each look of `a` read through the `added` index

  beforeAll(async () => {
    const env = { PREALLOC_PROBABILITY: '0', MONGODB_DB: uniqueDbName('name-index-added') }
    const nameIndexTimers = { setTimeout: () => null, clearTimeout () {} } // looks only when the test asks
    a = await testApp('name-index-added', { clock, env, nameIndexTimers })
    b = await testApp('name-index-added', { clock, env, nameIndexTimers, keepDatabase: true })
    const metrics = a.collections.metrics // the collection a's look reads
    const find = metrics.find.bind(metrics)
    metrics.find = (filter, options) => {
      const cursor = find(filter, options)
      if (!('$or' in filter)) return cursor // the look's (name-index-refresh.js addedSince)
      const names = []
      reads.push(names)
      return (async function * () { for await (const entry of cursor) { names.push(entry._id); yield entry } })()
    }
  })
  afterAll(async () => {
    await b?.close()
    await a?.close()
  })

  const post = (app, events) => app.inject({ method: 'POST', url: '/v1/events', payload: events })
  const entry = (name) => a.collections.metrics.findOne({ _id: name })

  it('a series written each minute keeps the time it was added; a look reads only what was added since the last, whatever was written', async () => {
    expect((await post(a, [{ metric: 'web.hits', tags: { route: '/a' }, value: 1, ts: NOW }])).json()).toEqual({ accepted: 1 })
    expect((await entry('web.hits;route=/a')).added).toEqual(new Date(NOW))
    // the next minutes, and past midnight: written again by both instances, never added again
    for (const minute of [1, 2, 3, 4, 5]) {
      clock.advance(MIN)
      for (const app of [a, b]) expect((await post(app, [{ metric: 'web.hits', tags: { route: '/a' }, value: 1, ts: clock.now() }])).statusCode).toBe(200)
      if (minute === 3) await a.nameIndex.refresh() // 00:00: reads from 23:55, the name and series added at 23:57
    }
    const written = await entry('web.hits;route=/a')
    expect([written.added, written.lastWrite, written.lastSeen, written.firstSeen]).toEqual([new Date(NOW), new Date(NOW), new Date(MIDNIGHT + 2 * MIN), new Date(NOW)])
    // b adds a series a never saw
    expect((await post(b, [{ metric: 'web.hits', tags: { route: '/b' }, value: 2, ts: clock.now() }])).statusCode).toBe(200)
    const seriesOfA = () => [...a.nameIndex.tags.seriesOf('web.hits')]
    expect(seriesOfA()).toEqual(['web.hits;route=/a'])
    await a.nameIndex.refresh() // 00:02: reads from 23:58, not the series written each minute since 23:57
    expect(seriesOfA().sort()).toEqual(['web.hits;route=/a', 'web.hits;route=/b'])
    clock.advance(3 * MIN)
    expect((await post(b, [{ metric: 'web.hits', tags: { route: '/a' }, value: 1, ts: clock.now() }])).statusCode).toBe(200)
    await a.nameIndex.refresh() // 00:05: reads from 00:00, the series added at 00:02
    clock.advance(3 * MIN)
    await a.nameIndex.refresh() // 00:08: nothing added since 00:03
    expect(reads.map(names => names.sort())).toEqual([['web.hits', 'web.hits;route=/a'], ['web.hits;route=/b'], ['web.hits;route=/b'], []])
    // a rolling upgrade: an entry a 0.1.0 instance writes (it moves lastWrite, knows nothing of added) is read as before
    await a.collections.metrics.updateOne({ _id: 'old.instance' }, { $min: { firstSeen: new Date(clock.now()) }, $max: { lastSeen: new Date(clock.now()), lastWrite: new Date(clock.now()) } }, { upsert: true })
    clock.advance(10_000)
    await a.nameIndex.refresh()
    expect(reads.at(-1)).toEqual(['old.instance'])
    expect(a.nameIndex.has('old.instance')).toBe(true)
  })
})
