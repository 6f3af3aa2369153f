// What kind each selected metric is (src/dashboard/js/metric-kinds.js):
// learnt from the picker's pages, asked by prefix for the others, once.
import { describe, expect, it } from 'vitest'
import { createMetricKinds } from '../../src/dashboard/js/metric-kinds.js'

const DISTRIBUTION = 'distribution'

const REGISTRY = [
  { name: 'api.latency', kind: 'distribution' },
  { name: 'api.latency.slow', kind: 'counter' },
  { name: 'db.latency', kind: 'distribution' },
  { name: 'web.hits', kind: 'counter' },
  { name: 'web.hits.total', kind: 'counter' },
  { name: 'z.depth', kind: 'gauge' },
  { name: 'z.depth;host=a', kind: 'gauge' }
]

/** GET /v1/metrics?prefix=…&limit=1 over REGISTRY (sorted by name), counting the calls */
function fakeList () {
  const asked = []
  const list = async prefix => {
    asked.push(prefix)
    return { metrics: REGISTRY.filter(m => m.name.startsWith(prefix)).slice(0, 1), next: null }
  }
  return { asked, list }
}

describe('createMetricKinds', () => {
  it('knows the kinds of the pages it was told, without asking', async () => {
    const { asked, list } = fakeList()
    const kinds = createMetricKinds(list)
    kinds.learn(REGISTRY)
    expect(kinds.kindOf('api.latency')).toBe(DISTRIBUTION)
    expect(kinds.kindOf('web.hits')).toBe('counter')
    expect(kinds.kindOf('nope')).toBe(undefined)
    expect(await kinds.resolve(['web.hits', 'db.latency'])).toEqual(new Map([['web.hits', 'counter'], ['db.latency', DISTRIBUTION]]))
    expect(asked).toEqual([])
  })

  it('asks once by prefix for a name it does not know, even when asked for it twice at once', async () => {
    const { asked, list } = fakeList()
    const kinds = createMetricKinds(list)
    const [a, b] = await Promise.all([kinds.resolve(['db.latency', 'web.hits']), kinds.resolve(['db.latency'])])
    expect(a).toEqual(new Map([['db.latency', DISTRIBUTION], ['web.hits', 'counter']]))
    expect(b).toEqual(new Map([['db.latency', DISTRIBUTION]]))
    expect(asked).toEqual(['db.latency', 'web.hits'])
    await kinds.resolve(['db.latency', 'web.hits'])
    expect(asked).toHaveLength(2) // known from then on
  })

  it('takes only the name itself from the answer: a longer name it prefixes says nothing of it', async () => {
    const { list } = fakeList()
    const kinds = createMetricKinds(list)
    expect(await kinds.resolve(['api'])).toEqual(new Map([['api', null]])) // the registry's first 'api…' is api.latency
    expect(kinds.kindOf('api.latency')).toBe(undefined)
  })

  it('answers null for a name the registry does not hold, and for a failed lookup, and asks again next time', async () => {
    let fail = true
    const asked = []
    const kinds = createMetricKinds(async prefix => {
      asked.push(prefix)
      if (fail) throw new Error('Failed to fetch')
      return { metrics: REGISTRY.filter(m => m.name === prefix), next: null }
    })
    expect(await kinds.resolve(['db.latency'])).toEqual(new Map([['db.latency', null]]))
    fail = false
    expect(await kinds.resolve(['db.latency', 'gone'])).toEqual(new Map([['db.latency', DISTRIBUTION], ['gone', null]]))
    await kinds.resolve(['gone'])
    expect(asked).toEqual(['db.latency', 'db.latency', 'gone', 'gone'])
  })

  it('takes a tagged series\' kind from its name, asked by the name: a prefix never holds `;` (the API refuses it)', async () => {
    const { asked, list } = fakeList()
    const kinds = createMetricKinds(async prefix => {
      if (prefix.includes(';')) throw new Error('querystring.prefix: must be the start of a metric name')
      return list(prefix)
    })
    const series = ['api.latency;region=eu', 'z.depth;host=a', 'z.depth;host=b,c', 'web.hits']
    expect(await kinds.resolve(series)).toEqual(new Map([['api.latency;region=eu', DISTRIBUTION], ['z.depth;host=a', 'gauge'], ['z.depth;host=b,c', 'gauge'], ['web.hits', 'counter']]))
    expect(asked).toEqual(['api.latency', 'z.depth', 'web.hits']) // each name once
    expect(kinds.kindOf('db.latency;region=us')).toBe(undefined) // its name not known yet
    kinds.learn([{ name: 'db.latency', kind: DISTRIBUTION }])
    expect(kinds.kindOf('db.latency;region=us')).toBe(DISTRIBUTION)
    expect(await kinds.resolve(['nope;a=1'])).toEqual(new Map([['nope;a=1', null]]))
  })
})
