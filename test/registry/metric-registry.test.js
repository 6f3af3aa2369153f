// MAX_METRICS admission: names held by requests in flight count; a request
// that may have written its names keeps them counted; one that did not gives
// them back once no other request holds them.
import { describe, expect, it } from 'vitest'
import { createMetricRegistry } from '../../src/registry/metric-registry.js'

function fakeMetrics (ids = []) {
  const docs = new Set(ids)
  return {
    docs,
    find (filter) {
      const wanted = filter._id?.$in ?? [...docs]
      const found = wanted.filter(id => docs.has(id)).map(_id => ({ _id }))
      return { toArray: async () => found, [Symbol.asyncIterator]: async function * () { yield * found } }
    }
  }
}

describe('metric registry', () => {
  it('counts names held by requests in flight against the limit', async () => {
    const registry = createMetricRegistry({ collection: fakeMetrics(['a']), maxMetrics: 3 })
    await registry.load()
    expect(await registry.admit(['a', 'b'])).toEqual({ reserved: ['b'] })
    expect(await registry.admit(['c'])).toEqual({ reserved: ['c'] })
    expect(await registry.admit(['d'])).toMatchObject({ refusal: { limit: 3, newMetrics: 1, known: 3 } })
    // a name another request already holds takes no second place
    expect(await registry.admit(['b'])).toEqual({ reserved: ['b'] })
  })

  it('knowsAll: true only once every name is known here (loaded, or settled as maybe written), never for a name only held', async () => {
    const registry = createMetricRegistry({ collection: fakeMetrics(['a']), maxMetrics: 10 })
    await registry.load()
    expect(registry.knowsAll(['a'])).toBe(true)
    expect(registry.knowsAll(['a', 'b'])).toBe(false)
    const held = await registry.admit(['b'])
    expect(registry.knowsAll(['b'])).toBe(false) // held by a request in flight: not known yet
    registry.settle(held.reserved, false)
    expect(registry.knowsAll(['b'])).toBe(false)
    const written = await registry.admit(['b'])
    registry.settle(written.reserved, true)
    expect(registry.knowsAll(['a', 'b'])).toBe(true)
    registry.forget('a')
    expect(registry.knowsAll(['a'])).toBe(false)
  })

  it('gives places back only when no request that may have written them holds them', async () => {
    const registry = createMetricRegistry({ collection: fakeMetrics(), maxMetrics: 2 })
    const first = await registry.admit(['x'])
    const second = await registry.admit(['x'])
    registry.settle(first.reserved, false) // first answered 503
    registry.settle(second.reserved, true) // second answered 200: x counts
    expect(await registry.admit(['y'])).toEqual({ reserved: ['y'] })
    expect(await registry.admit(['z'])).toMatchObject({ refusal: { limit: 2 } })
  })

  it('keeps counting a name whose request was answered 504 (it may be written)', async () => {
    const registry = createMetricRegistry({ collection: fakeMetrics(), maxMetrics: 1 })
    const unknown = await registry.admit(['maybe'])
    registry.settle(unknown.reserved, true)
    expect(await registry.admit(['other'])).toMatchObject({ refusal: { limit: 1 } })
  })

  it('frees the places of a request that was not applied', async () => {
    const registry = createMetricRegistry({ collection: fakeMetrics(), maxMetrics: 1 })
    registry.settle((await registry.admit(['gone'])).reserved, false)
    expect(await registry.admit(['next'])).toEqual({ reserved: ['next'] })
  })
})
