// GET /v1/kinds: what each kind of KINDS can show, from its descriptor
// (src/kinds/*.js), behind READ_TOKENS like every read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { KINDS } from '../../src/kinds/index.js'
import { testApp } from '../helpers/test-app.js'

const READ = 'kinds-read-token'

describe('GET /v1/kinds', () => {
  let app
  beforeAll(async () => { app = await testApp('kinds', { env: { READ_TOKENS: READ, PREALLOC_PROBABILITY: '0' } }) })
  afterAll(async () => { await app?.close() })

  const get = headers => app.inject({ url: '/v1/kinds', headers })

  it('answers every kind of KINDS, in order, with what each can show', async () => {
    const res = await get({ authorization: `Bearer ${READ}` })
    expect(res.statusCode).toBe(200)
    const { kinds } = res.json()
    expect(kinds.map(k => k.name)).toEqual(KINDS.map(k => k.name))
    // what each kind shows, written out (not recomputed from the descriptors the route reads)
    expect(kinds).toEqual([
      { name: 'counter', stats: [], defaultStat: null, percentiles: false, reads: { total: true, ytd: true, quantiles: false }, point: 'count per step', consolidation: 'sum' },
      { name: 'distribution', stats: ['count', 'sum', 'mean', 'min', 'max'], defaultStat: 'count', percentiles: true, reads: { total: true, ytd: true, quantiles: true }, point: 'values per step', consolidation: 'sum' },
      { name: 'gauge', stats: ['last', 'min', 'max', 'mean', 'count', 'sum'], defaultStat: 'last', percentiles: false, reads: { total: false, ytd: false, quantiles: false }, point: 'level', consolidation: 'last' }
    ])
  })

  it('needs a read token when READ_TOKENS is set: none is a 401, a wrong one a 403', async () => {
    const none = await get({})
    expect(none.statusCode).toBe(401)
    expect(none.headers['www-authenticate']).toMatch(/^Bearer/)
    expect(none.json().message).toMatch(/READ_TOKENS/)
    expect((await get({ authorization: 'Bearer not-a-token' })).statusCode).toBe(403)
  })
})
