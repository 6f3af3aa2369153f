// How failed bulkWrites map onto outcomes, with the driver's own error
// classes as a connected client raises them: wrapped in a
// MongoBulkWriteError whose errorResponse is the original error.
import { MongoBulkWriteError, MongoNetworkError, MongoNetworkTimeoutError, MongoServerSelectionError } from 'mongodb'
import { describe, expect, it } from 'vitest'
import { classifyBulkWriteError, wasNeverSent } from '../../src/writer/write-outcomes.js'

const noProgress = { insertedCount: 0, matchedCount: 0, upsertedCount: 0, deletedCount: 0 }
const wrapped = (cause, result = noProgress) => new MongoBulkWriteError(cause, result)
const selection = () => new MongoServerSelectionError('Server selection timed out after 600 ms', {})
const refused = () => new MongoNetworkError('connect ECONNREFUSED 127.0.0.1:27017', { cause: Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }) })

describe('classifyBulkWriteError', () => {
  it('a connected client\'s server-selection failure, wrapped by the bulk, was never sent: not applied (503)', () => {
    const err = wrapped(selection())
    expect(err.name).toBe('MongoBulkWriteError')
    expect(classifyBulkWriteError(err, 2).outcomes).toEqual(['not_applied', 'not_applied'])
  })

  it('a refused or timed-out connection attempt was never sent', () => {
    expect(wasNeverSent(wrapped(refused()))).toBe(true)
    expect(wasNeverSent(wrapped(new MongoNetworkTimeoutError("Socket 'connect' timed out after 600ms (connectTimeoutMS: 600)")))).toBe(true)
    expect(wasNeverSent(wrapped(new MongoNetworkTimeoutError('handshake timed out', { beforeHandshake: true })))).toBe(true)
  })

  it('no file descriptor left for a new connection (EMFILE, as the driver raised it here under ulimit -n) was never sent: not applied (503)', () => {
    // the shape a connected client's bulkWrite raised once the process ran out of descriptors
    const emfile = new MongoNetworkError('connect EMFILE 127.0.0.1:44105 - Local (undefined:undefined)', { cause: Object.assign(new Error('connect EMFILE 127.0.0.1:44105 - Local (undefined:undefined)'), { code: 'EMFILE', syscall: 'connect' }) })
    expect(classifyBulkWriteError(wrapped(emfile), 2).outcomes).toEqual(['not_applied', 'not_applied'])
    const enfile = new MongoNetworkError('connect ENFILE', { cause: Object.assign(new Error('connect ENFILE'), { code: 'ENFILE' }) })
    expect(wasNeverSent(wrapped(enfile))).toBe(true)
  })

  it('a socket timeout or reset after sending is unknown (504)', () => {
    expect(classifyBulkWriteError(wrapped(new MongoNetworkTimeoutError('connection 3 to 127.0.0.1:27017 timed out')), 1).outcomes).toEqual(['unknown'])
    expect(classifyBulkWriteError(wrapped(new MongoNetworkError('connection closed')), 1).outcomes).toEqual(['unknown'])
  })

  it('an unreachable host counts as never sent only when connect() raised it', () => {
    const unreachable = syscall => new MongoNetworkError('EHOSTUNREACH', { cause: Object.assign(new Error('unreachable'), { code: 'EHOSTUNREACH', syscall }) })
    expect(classifyBulkWriteError(wrapped(unreachable('connect')), 1).outcomes).toEqual(['not_applied'])
    expect(classifyBulkWriteError(wrapped(unreachable('read')), 1).outcomes).toEqual(['unknown'])
    expect(classifyBulkWriteError(wrapped(unreachable(undefined)), 1).outcomes).toEqual(['unknown'])
  })

  it('where the driver retries writes, a selection failure may follow a sent attempt: unknown', () => {
    expect(classifyBulkWriteError(wrapped(selection()), 1, { writesRetried: true }).outcomes).toEqual(['unknown'])
  })

  it('a failure after an earlier batch of the same bulk went through is unknown', () => {
    expect(classifyBulkWriteError(wrapped(selection(), { ...noProgress, matchedCount: 1000 }), 3).outcomes).toEqual(['unknown', 'unknown', 'unknown'])
  })

  it('a bare selection error (raised before the bulk started) is not applied', () => {
    expect(classifyBulkWriteError(selection(), 1, { writesRetried: true }).outcomes).toEqual(['not_applied'])
  })

  it('a write error naming no operation sent (no index, or out of range) leaves every operation unknown, none applied or retried', () => {
    const failed = (...writeErrors) => Object.assign(new Error('write failed'), { name: 'MongoBulkWriteError', writeErrors, result: { getWriteConcernError: () => undefined } })
    for (const entry of [{ code: 14 }, { index: 3, code: 11000 }, { index: -1, code: 14 }, { index: '0', code: 11000 }, { index: 0.5, code: 14 }, null]) {
      expect(classifyBulkWriteError(failed(entry), 3), JSON.stringify(entry)).toEqual({ outcomes: ['unknown', 'unknown', 'unknown'], retry: [] })
    }
    // beside one that names its operation: still unknown, not that one failed and the others applied
    expect(classifyBulkWriteError(failed({ index: 1, code: 11000 }, { code: 14 }), 3)).toEqual({ outcomes: ['unknown', 'unknown', 'unknown'], retry: [] })
    expect(classifyBulkWriteError(failed({ index: 1, code: 11000 }), 3)).toEqual({ outcomes: ['applied', 'not_applied', 'applied'], retry: [1] })
  })
})
