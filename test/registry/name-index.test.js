// The Graphite name index (a trie of name parts) and its refresh: answers
// unchanged by leaves without a children map, a rebuild read in bounded
// batches and built beside the index in use.
import { describe, expect, it } from 'vitest'
import { createNameIndex } from '../../src/registry/name-index.js'
import { READ_BATCH, createNameIndexRefresh } from '../../src/registry/name-index-refresh.js'
import { globParts } from '../../src/graphite/glob.js'
import { statLeaves } from '../../src/graphite/stat-leaves.js'
import { manualClock } from '../../src/clock.js'

const match = (index, pattern) => index.match(pattern, globParts(pattern), { maxVisits: 1000 })

describe('the name index', () => {
  it('finds leaves and branches, and forgets a removed name with its empty branches', () => {
    const index = createNameIndex()
    for (const name of ['a.b.c', 'a.b.d', 'a.e', 'x']) index.add(name)
    index.add('a.b.c') // idempotent
    expect(index.size()).toBe(4)
    expect(match(index, '*')).toEqual([{ path: 'a', text: 'a', leaf: false, branch: true }, { path: 'x', text: 'x', leaf: true, branch: false, kind: 'counter' }])
    expect(match(index, 'a.*')).toEqual([{ path: 'a.b', text: 'b', leaf: false, branch: true }, { path: 'a.e', text: 'e', leaf: true, branch: false, kind: 'counter' }])
    expect(match(index, 'a.b.c')).toEqual([{ path: 'a.b.c', text: 'c', leaf: true, branch: false, kind: 'counter' }])
    expect(match(index, 'x.*')).toEqual([]) // below a leaf: nothing, not an error
    expect(match(index, 'a.e.f')).toEqual([])
    expect(index.has('a.b')).toBe(false)
    expect(index.has('a.b.d')).toBe(true)
    expect(index.has('x.y')).toBe(false)
    index.remove('x.y') // not there: nothing happens
    index.remove('a.b.c')
    index.remove('a.b.d')
    expect(index.size()).toBe(2)
    expect(match(index, 'a.*')).toEqual([{ path: 'a.e', text: 'e', leaf: true, branch: false, kind: 'counter' }])
    // a leaf that is also a branch
    index.add('a.e.f')
    expect(match(index, 'a.*')).toEqual([{ path: 'a.e', text: 'e', leaf: true, branch: true, kind: 'counter' }])
    index.remove('a.e')
    expect(match(index, 'a.e.*')).toEqual([{ path: 'a.e.f', text: 'f', leaf: true, branch: false, kind: 'counter' }])
  })

  it('shows a distribution as a branch of its stat leaves: nine listed, any other stat named; a stored metric of the same name wins', () => {
    const index = createNameIndex()
    index.add('api.latency', 'distribution')
    index.add('api.requests')
    index.add('web.latency', 'distribution')
    index.add('web.latency.count') // a counter named like a stat leaf: it wins
    index.add('web.latency.max.host1') // a branch named like one: the node is both
    const stats = (index, pattern) => index.match(pattern, globParts(pattern), { maxVisits: 1000, statLeaves })
    expect(stats(index, 'api.*')).toEqual([{ path: 'api.latency', text: 'latency', leaf: false, branch: true }, { path: 'api.requests', text: 'requests', leaf: true, branch: false, kind: 'counter' }])
    const leaves = stats(index, 'api.latency.*')
    expect(leaves.map(n => n.text)).toEqual(['count', 'max', 'mean', 'min', 'p50', 'p90', 'p99', 'p999', 'sum'])
    expect(leaves[6]).toEqual({ path: 'api.latency.p99', text: 'p99', leaf: true, branch: false, metric: 'api.latency', stat: 'p99', kind: 'distribution' })
    expect(stats(index, 'api.latency.p75')).toEqual([{ path: 'api.latency.p75', text: 'p75', leaf: true, branch: false, metric: 'api.latency', stat: 'p75', kind: 'distribution' }])
    expect(stats(index, 'api.latency.p{50,75,1000}').map(n => n.text)).toEqual(['p50', 'p75']) // brace alternatives that name a stat
    expect(stats(index, 'api.latency.p7*')).toEqual([]) // a glob lists the nine only
    for (const bad of ['p1000', 'p-1', 'p9999999999999', 'P99', 'p99x']) expect(stats(index, `api.latency.${bad}`), bad).toEqual([])
    expect(stats(index, 'api.latency.p99.*')).toEqual([]) // nothing below a stat leaf
    expect(stats(index, 'api.requests.*')).toEqual([]) // a counter has none
    expect(stats(index, '*.latency.p99').map(n => n.path)).toEqual(['api.latency.p99', 'web.latency.p99'])
    const web = stats(index, 'web.latency.*')
    expect(web.find(n => n.text === 'count')).toEqual({ path: 'web.latency.count', text: 'count', leaf: true, branch: false, kind: 'counter' })
    expect(web.find(n => n.text === 'max')).toEqual({ path: 'web.latency.max', text: 'max', leaf: true, branch: true, metric: 'web.latency', stat: 'max', kind: 'distribution' })
    expect(web).toHaveLength(9)
    // without statLeaves (or at a literal path) nothing is made up
    expect(match(index, 'api.latency.*')).toEqual([])
    expect(index.has('api.latency')).toBe(true)
    expect(index.has('api.latency.p99')).toBe(false)
    // each stat leaf looked at is a visit
    expect(() => index.match('*.latency.*', globParts('*.latency.*'), { maxVisits: 20, statLeaves })).toThrow(/visits more than 20/)
    index.remove('api.latency')
    expect(stats(index, 'api.*')).toEqual([{ path: 'api.requests', text: 'requests', leaf: true, branch: false, kind: 'counter' }])
  })

  it('a gauge is a leaf (its last level) and a branch of its stat leaves; a percentile is no gauge\'s', () => {
    const index = createNameIndex()
    index.add('q.depth', 'gauge')
    const stats = (pattern) => index.match(pattern, globParts(pattern), { maxVisits: 1000, statLeaves })
    expect(stats('q.*')).toEqual([{ path: 'q.depth', text: 'depth', leaf: true, branch: true, kind: 'gauge' }])
    expect(stats('q.depth.*').map(n => n.text)).toEqual(['count', 'last', 'max', 'mean', 'min', 'sum'])
    expect(stats('q.depth.last')).toEqual([{ path: 'q.depth.last', text: 'last', leaf: true, branch: false, metric: 'q.depth', stat: 'last', kind: 'gauge' }])
    expect(stats('q.depth.p99')).toEqual([])
    expect(stats('q.depth.{p50,min}').map(n => n.text)).toEqual(['min'])
    expect(index.kindOf('q.depth')).toBe('gauge')
  })

  it('gives a leaf no children map: a million names cost what their parts do', () => {
    const index = createNameIndex()
    index.add('svc.host.m00')
    const leaf = index.root().children.get('svc').children.get('host').children.get('m00')
    expect(leaf).toEqual({ children: null, leaf: 'counter' }) // the kind's name, a shared string: no field of its own
  })

  it('takes another index\'s names at once (adopt), and replaces them from a list', () => {
    const index = createNameIndex()
    index.add('old.one')
    const fresh = createNameIndex()
    fresh.add('new.one')
    fresh.add('new.two')
    index.adopt(fresh)
    expect(index.size()).toBe(2)
    expect(index.has('old.one')).toBe(false)
    index.replaceAll(['z'])
    expect(index.has('z')).toBe(true)
    expect(index.size()).toBe(1)
  })
})

describe('the name index refresh', () => {
  /** A registry whose find records its options and yields the names as given */
  function fakeMetrics (names) {
    const calls = []
    return {
      calls,
      find (filter, options) {
        calls.push({ filter, options })
        return (async function * () { for (const name of names) yield typeof name === 'string' ? { _id: name } : name })()
      }
    }
  }

  it('rebuilds from the registry in batches of READ_BATCH, beside the index in use', async () => {
    const names = [...Array.from({ length: 2499 }, (_, i) => `svc.m${i}`), { _id: 'svc.latency', kind: 'distribution', accuracy: 0.01 }]
    const metrics = fakeMetrics(names)
    const index = createNameIndex()
    index.add('deleted.elsewhere')
    const clock = manualClock(Date.UTC(2026, 10, 18))
    const refresh = createNameIndexRefresh({ index, metrics, clock, timers: {}, logger: { warn () {} } })
    await refresh.load()
    expect(metrics.calls).toEqual([{ filter: {}, options: { projection: { _id: 1, kind: 1, accuracy: 1 }, batchSize: READ_BATCH } }])
    expect(READ_BATCH).toBeLessThanOrEqual(1000)
    expect(index.size()).toBe(2500)
    expect(index.has('deleted.elsewhere')).toBe(false)
    expect(index.kindOf('svc.latency')).toBe('distribution') // the kind read with the name
    expect(index.kindOf('svc.m0')).toBe('counter')
    // a look within the hour reads the recently added through the added index, in batches too
    clock.advance(60_000)
    await refresh.refresh()
    expect(metrics.calls[1].filter.$or.map(clause => Object.keys(clause))).toEqual([['added'], ['lastWrite']])
    expect(metrics.calls[1].options.batchSize).toBe(READ_BATCH)
    // an hour on: a rebuild again
    clock.advance(3_600_000)
    await refresh.refresh()
    expect(metrics.calls[2].filter).toEqual({})
  })

  it('a metric deleted (or written) here while a rebuild reads the registry stays deleted (or written) once it is swapped in', async () => {
    const index = createNameIndex()
    for (const name of ['a.gone', 'a.gone;host=h1', 'a.back', 'a.kept;host=h1']) index.add(name)
    // the registry as the scan reads it: every name read before the deletions and writes below
    let release
    const paused = new Promise(resolve => { release = resolve })
    const metrics = {
      find: () => (async function * () {
        for (const _id of ['a.gone', 'a.gone;host=h1', 'a.back', 'a.kept;host=h1']) yield { _id }
        await paused
      })()
    }
    const refresh = createNameIndexRefresh({ index, metrics, clock: manualClock(Date.UTC(2026, 10, 18)), timers: {}, logger: { warn () {} } })
    const rebuilt = refresh.load()
    await new Promise(resolve => setImmediate(resolve))
    // meanwhile: DELETE of a.gone (its series first), a.back deleted and written again, a new series written
    for (const name of ['a.gone;host=h1', 'a.gone', 'a.back']) index.remove(name)
    index.add('a.back')
    index.add('a.new;host=h2', 'gauge')
    release()
    await rebuilt
    expect(['a.gone', 'a.back', 'a.kept;host=h1', 'a.new;host=h2'].map(n => [n, index.has(n) || [...index.tags.seriesOf(n.split(';')[0])].includes(n)]))
      .toEqual([['a.gone', false], ['a.back', true], ['a.kept;host=h1', true], ['a.new;host=h2', true]])
    expect(index.tags.count('a.gone')).toBe(0)
    // a look within the hour that reads a metric after its deletion here (its batch fetched before) leaves it deleted
    let go
    const held = new Promise(resolve => { go = resolve })
    const clock = manualClock(Date.UTC(2026, 10, 18))
    let finds = 0
    // the boot's rebuild reads a.kept;host=h1; the look (the second read) is held until the deletion
    const registry = { find: () => (async function * () { if (finds++ === 0) { yield { _id: 'a.kept;host=h1' }; return } await held; yield { _id: 'a.back' }; yield { _id: 'a.fresh' } })() }
    const looked = createNameIndexRefresh({ index, metrics: registry, clock, timers: {}, logger: { warn () {} } })
    await looked.load()
    clock.advance(60_000)
    index.add('a.back')
    const look = looked.refresh()
    await new Promise(resolve => setImmediate(resolve))
    index.remove('a.back')
    go()
    await look
    expect([index.has('a.back'), index.has('a.fresh')]).toEqual([false, true])
    // a look that fails after reading a metric deleted meanwhile (its batch fetched before the deletion) leaves it deleted
    let resume
    const pausedLook = new Promise(resolve => { resume = resolve })
    const failingLook = createNameIndexRefresh({ index, metrics: { find: () => (async function * () { if (finds++ === 1) { yield { _id: 'a.kept;host=h1' }; return } await pausedLook; yield { _id: 'a.twice' }; throw new Error('cursor lost') })() }, clock, timers: {}, logger: { warn () {} } })
    finds = 1
    await failingLook.load()
    index.add('a.twice')
    clock.advance(60_000)
    const lookFails = failingLook.refresh()
    await new Promise(resolve => setImmediate(resolve))
    index.remove('a.twice')
    resume()
    await expect(lookFails).rejects.toThrow(/cursor lost/)
    expect(index.has('a.twice')).toBe(false)
    index.add('a.after')
    // and a rebuild whose scan fails leaves the index as it was, recording nothing more
    const failing = createNameIndexRefresh({ index, metrics: { find: () => (async function * () { yield { _id: 'x.y' }; throw new Error('read failed') })() }, clock: manualClock(0), timers: {}, logger: { warn () {} } })
    await expect(failing.load()).rejects.toThrow(/read failed/)
    expect([index.has('x.y'), index.has('a.twice'), index.size(), index.tags.count('a.kept')]).toEqual([false, false, 1, 1])
  })
})
