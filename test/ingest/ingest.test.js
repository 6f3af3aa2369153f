// The ingest service with fake collaborators: every outcome it can give,
// and what it asks of the registry, the writer and the preallocator.
import { describe, expect, it } from 'vitest'
import { BSON, MongoServerSelectionError } from 'mongodb'
import { loadConfig } from '../../src/config.js'
import { createIngestService } from '../../src/ingest/ingest.js'

const NOW = Date.UTC(2026, 10, 21, 12, 0)
const config = loadConfig({ MAX_AGE_DAYS: '10', MAX_FUTURE_MS: '60000' })

function setup ({ answer = { outcome: 'applied' }, refusal = null, idempotency = null, admitThrows = null, known = [] } = {}) {
  const calls = { admitted: [], settled: [], submitted: [], considered: [] }
  const registry = {
    knowsAll: (names) => names.every(n => known.includes(n)),
    async admit (names) {
      if (admitThrows) throw admitThrows
      calls.admitted.push(names)
      return refusal ? { refusal } : { reserved: names.filter(n => n.startsWith('new.')) }
    },
    settle (names, maybeWritten) { calls.settled.push([names, maybeWritten]) }
  }
  const writer = {
    async submit (unit) { calls.submitted.push(unit); return answer },
    hasRoom: (n) => n <= 5,
    waitForRoom: async () => 'room'
  }
  // every event draws a hit; what a write applied is preallocated
  const preallocator = { draw: (events) => events.map(({ metric, time }) => ({ metric, time })), preallocateDrawn (hits) { calls.considered.push(hits) } }
  const ingest = createIngestService({ config, clock: { now: () => NOW }, registry, writer, idempotency, preallocator, backend: 'test-backend' })
  return { ingest, calls }
}

const event = (metric, value = 1, time = NOW) => ({ metric, value, time })

describe('ingest service', () => {
  it('applies valid events: one unit to the writer, new metrics admitted and settled as written, preallocation considered', async () => {
    const { ingest, calls } = setup()
    const result = await ingest.submit([event('a.b', 2), event('new.c', 3), event('a.b', 1)])
    expect(result).toEqual({ outcome: 'applied', accepted: 3 })
    expect(calls.admitted).toEqual([['a.b', 'new.c']])
    expect(calls.submitted).toHaveLength(1)
    expect(calls.submitted[0].events).toBe(3)
    expect(calls.settled).toEqual([[['new.c'], true]])
    expect(calls.considered).toEqual([[{ metric: 'a.b', time: NOW }, { metric: 'new.c', time: NOW }, { metric: 'a.b', time: NOW }]])
  })

  it('names all known here: nothing is admitted or reserved, the events are written', async () => {
    const { ingest, calls } = setup({ known: ['a.b', 'a.c'] })
    expect(await ingest.submit([event('a.b'), event('a.c', 2)])).toEqual({ outcome: 'applied', accepted: 2 })
    expect(calls.admitted).toEqual([])
    expect(calls.settled).toEqual([[[], true]])
    expect(calls.submitted).toHaveLength(1)
    // one unknown name among known ones: the request goes through admission
    await ingest.submit([event('a.b'), event('new.d')])
    expect(calls.admitted).toEqual([['a.b', 'new.d']])
  })

  it.each([
    [event('bad name'), 'events[0].metric'],
    [event('a', Infinity), 'events[0].value'],
    [event('a', 2e15), 'events[0].value'],
    [event('a', 1, NOW + 60_001), 'events[0].ts'],
    [event('a', 1, NOW - 10 * 86_400_000 - 1), 'events[0].ts']
  ])('rejects an event that breaks a rule, naming it, and writes nothing (%#)', async (bad, path) => {
    const { ingest, calls } = setup()
    const result = await ingest.submit([bad])
    expect(result).toMatchObject({ outcome: 'rejected', reason: 'invalid_event', details: [{ path }] })
    expect(result.message.startsWith(`${path}: `)).toBe(true)
    expect(calls.admitted).toEqual([])
    expect(calls.submitted).toEqual([])
  })

  it('names a field the way the door asks', async () => {
    const { ingest } = setup()
    const result = await ingest.submit([event('a'), event('-x')], { where: (i, field) => `line ${i + 1} (${field})` })
    expect(result.message).toMatch(/^line 2 \(metric\): /)
  })

  it('rejects a request that would overfill the registry, and settles nothing written', async () => {
    const { ingest, calls } = setup({ refusal: { limit: 5, newMetrics: 2, known: 5 } })
    const result = await ingest.submit([event('new.a'), event('new.b')])
    expect(result).toMatchObject({ outcome: 'rejected', reason: 'registry_full', message: expect.stringMatching(/MAX_METRICS = 5/) })
    expect(calls.submitted).toEqual([])
  })

  it('passes the writer\'s not_applied and unknown through; only an unknown keeps the new names', async () => {
    for (const [answer, kept] of [[{ outcome: 'not_applied', reason: 'x' }, false], [{ outcome: 'unknown', reason: 'y' }, true]]) {
      const { ingest, calls } = setup({ answer })
      expect(await ingest.submit([event('new.a')])).toEqual(answer)
      expect(calls.settled).toEqual([[['new.a'], kept]])
      expect(calls.considered).toEqual([])
    }
  })

  it('answers not_applied when the registry lookup fails at the database', async () => {
    const { ingest, calls } = setup({ admitThrows: new MongoServerSelectionError('no server', {}) })
    expect(await ingest.submit([event('a')])).toEqual({ outcome: 'not_applied', reason: 'the database could not be reached' })
    expect(calls.submitted).toEqual([])
  })

  it('answers not_applied when the registry lookup gets a reply the driver cannot parse (a BSONError, no MongoError), and rethrows an error of its own', async () => {
    // what find().toArray() rejects with for a truncated document in a reply
    const { ingest, calls } = setup({ admitThrows: new BSON.BSONOffsetError('the document ends before its length', 12) })
    expect(await ingest.submit([event('a')])).toEqual({ outcome: 'not_applied', reason: 'the database could not be reached' })
    expect(calls.submitted).toEqual([])
    // a bug is not a database failure: it stays a 500
    const bug = setup({ admitThrows: new TypeError('x is undefined') })
    await expect(bug.ingest.submit([event('a')])).rejects.toThrow(TypeError)
  })

  it('refuses a key where there are no transactions, and hands keyed requests to the key store otherwise', async () => {
    const { ingest } = setup()
    expect(await ingest.submit([event('a')], { idempotency: { key: 'k', identity: null, body: {} } })).toMatchObject({ outcome: 'key_unsupported', message: expect.stringMatching(/test-backend/) })
    const seen = []
    const keyed = setup({ idempotency: { submitOnce: async (req) => { seen.push(req); return { outcome: 'replayed', body: { accepted: 1 } } } } })
    expect(await keyed.ingest.submit([event('new.a')], { idempotency: { key: 'k', identity: 't:1', body: { metric: 'new.a' } } })).toEqual({ outcome: 'replayed', body: { accepted: 1 } })
    expect(seen[0]).toMatchObject({ id: 't:1:k', answer: { accepted: 1 } })
    expect(keyed.calls.submitted).toEqual([])
    expect(keyed.calls.settled).toEqual([[['new.a'], true]])
  })

  it('writes minute detail only inside each metric\'s minute retention: the variable, or the first matching rule', async () => {
    const minutesOf = (unit, id) => Object.keys(unit.daily.get(id).inc).filter(f => f.startsWith('minute.'))
    const run = async (cfg) => {
      const calls = []
      const ingest = createIngestService({
        config: cfg,
        clock: { now: () => NOW },
        registry: { knowsAll: () => false, admit: async () => ({ reserved: [] }), settle () {} },
        writer: { submit: async (unit) => { calls.push(unit); return { outcome: 'applied' } } },
        idempotency: null,
        preallocator: { draw: () => [], preallocateDrawn () {} },
        backend: 'test'
      })
      const eightDays = NOW - 8 * 86_400_000
      expect(await ingest.submit([event('debug.x', 1, eightDays), event('app.x', 1, eightDays)])).toMatchObject({ outcome: 'applied' })
      return calls[0]
    }
    const plain = await run(loadConfig({ MAX_AGE_DAYS: '10', MINUTE_RETENTION_DAYS: '7' }))
    expect(minutesOf(plain, 'debug.x/20261113')).toEqual([])
    expect(minutesOf(plain, 'app.x/20261113')).toEqual([])
    const ruled = await run({ ...loadConfig({ MAX_AGE_DAYS: '10', MINUTE_RETENTION_DAYS: '90' }), retentionRules: [{ match: 'debug.*', minuteDays: 7 }] })
    expect(minutesOf(ruled, 'debug.x/20261113')).toEqual([])
    expect(minutesOf(ruled, 'app.x/20261113')).toEqual(['minute.12.0'])
    expect(Object.keys(ruled.daily.get('debug.x/20261113').inc)).toEqual(['daily', 'hourly.12', 'quarterHourly.12.0'])
  })

  it('tells a door whether the writer has room', async () => {
    const { ingest } = setup()
    expect(ingest.hasRoom(5)).toBe(true)
    expect(ingest.hasRoom(6)).toBe(false)
    expect(await ingest.waitForRoom(6)).toBe('room')
  })
})
