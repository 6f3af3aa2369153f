// The `jobs` lease: one holder at a time, expiry, renewal, release.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { LEASE_COLLECTION, createLease } from '../../src/jobs/lease.js'
import { directDb, uniqueDbName } from '../helpers/test-app.js'

const T0 = Date.UTC(2026, 10, 21, 12, 0)
let client, db

beforeAll(async () => { ({ client, db } = await directDb(uniqueDbName('lease'))) })
afterAll(async () => { await db?.dropDatabase().catch(() => {}); await client?.close() })

function pair (name, clock) {
  const collection = db.collection(LEASE_COLLECTION)
  return [
    createLease({ collection, name, clock, ttlMs: 60_000, owner: 'a' }),
    createLease({ collection, name, clock, ttlMs: 60_000, owner: 'b' })
  ]
}

describe('lease', () => {
  it('two holders: the first takes it, the second is refused while it is held', async () => {
    const clock = manualClock(T0)
    const [a, b] = pair('two-holders', clock)
    expect(await a.acquire()).toBe(true)
    expect(await b.acquire()).toBe(false)
    expect(await a.acquire()).toBe(true) // re-taking our own lease renews it
    expect(await a.holder()).toEqual({ _id: 'two-holders', owner: 'a', expiresAt: new Date(T0 + 60_000) })
  })

  it('two holders racing for a free lease: exactly one wins', async () => {
    const clock = manualClock(T0)
    const collection = db.collection(LEASE_COLLECTION)
    const holders = Array.from({ length: 8 }, (_, i) => createLease({ collection, name: 'race', clock, ttlMs: 60_000, owner: `h${i}` }))
    const won = await Promise.all(holders.map(h => h.acquire()))
    expect(won.filter(Boolean)).toHaveLength(1)
    expect((await holders[0].holder()).owner).toBe(`h${won.indexOf(true)}`)
  })

  it('an expired lease can be taken by another holder; the old holder can no longer renew it', async () => {
    const clock = manualClock(T0)
    const [a, b] = pair('expiry', clock)
    expect(await a.acquire()).toBe(true)
    clock.set(T0 + 59_999)
    expect(await b.acquire()).toBe(false)
    clock.set(T0 + 60_000)
    expect(await b.acquire()).toBe(true)
    expect(await a.renew()).toBe(false)
    expect(await a.acquire()).toBe(false)
    expect((await b.holder()).owner).toBe('b')
  })

  it('renewal pushes the expiry forward, so a renewed lease is not taken', async () => {
    const clock = manualClock(T0)
    const [a, b] = pair('renewal', clock)
    expect(await a.acquire()).toBe(true)
    clock.set(T0 + 50_000)
    expect(await a.renew()).toBe(true)
    clock.set(T0 + 100_000) // past the first expiry, before the renewed one
    expect(await b.acquire()).toBe(false)
    expect((await a.holder()).expiresAt).toEqual(new Date(T0 + 110_000))
  })

  it('release frees it at once, and only the owner can release it', async () => {
    const clock = manualClock(T0)
    const [a, b] = pair('release', clock)
    expect(await a.acquire()).toBe(true)
    await b.release() // not b's: changes nothing
    expect(await b.acquire()).toBe(false)
    await a.release()
    expect(await a.holder()).toBeNull()
    expect(await b.acquire()).toBe(true)
  })
})
