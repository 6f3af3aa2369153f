// A collection's lone update goes as the driver's updateOne
// (docs/adr/0077-lone-update-as-update-one.md): each failure, as the
// driver's updateOne raises it (its own error classes, shaped as
// operations/update.js and write_concern.js raise them), is classified
// as classifyBulkWriteError classifies the same failure of the same
// statement sent alone in a bulkWrite.
import { MongoBulkWriteError, MongoNetworkError, MongoNetworkTimeoutError, MongoServerError, MongoServerSelectionError, MongoWriteConcernError } from 'mongodb'
import { describe, expect, it } from 'vitest'
import { classifyBulkWriteError, classifyUpdateOneError } from '../../src/writer/write-outcomes.js'
import { writeErrors } from '../helpers/fake-collection.js'

const noProgress = { insertedCount: 0, matchedCount: 0, upsertedCount: 0, deletedCount: 0 }
const wrapped = cause => new MongoBulkWriteError(cause, noProgress)
const concernError = { code: 64, errmsg: 'waiting for replication timed out' }
// a bulk's write concern failure: its result says so, with or without write errors
const bulkConcern = (...entries) => Object.assign(writeErrors(...entries), { result: { getWriteConcernError: () => concernError } })
const selection = () => new MongoServerSelectionError('Server selection timed out after 600 ms', {})
const refused = () => new MongoNetworkError('connect ECONNREFUSED 127.0.0.1:27017', { cause: Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }) })
const notPrimary = () => new MongoServerError({ ok: 0, code: 10107, errmsg: 'not primary' })

// [what failed, as updateOne raises it, as bulkWrite raises it]
const FAILURES = [
  ['server selection', selection, () => wrapped(selection())],
  ['a refused connection', refused, () => wrapped(refused())],
  ['a socket timeout after sending', () => new MongoNetworkTimeoutError('connection 3 timed out'), () => wrapped(new MongoNetworkTimeoutError('connection 3 timed out'))],
  ['a command error (ok: 0)', notPrimary, () => wrapped(notPrimary())],
  ['a duplicate key race (11000)', () => new MongoServerError({ index: 0, code: 11000, errmsg: 'E11000 duplicate key' }), () => writeErrors([0, 11000])],
  ['a write conflict (112)', () => new MongoServerError({ index: 0, code: 112, errmsg: 'WriteConflict' }), () => writeErrors([0, 112])],
  ['a type mismatch (14)', () => new MongoServerError({ index: 0, code: 14, errmsg: 'Cannot apply $inc to a value of non-numeric type' }), () => writeErrors([0, 14])],
  ['a write concern error alone', () => new MongoWriteConcernError({ ok: 1, n: 1, writeConcernError: concernError }), () => bulkConcern()],
  ['a write concern error beside a write error', () => new MongoWriteConcernError({ ok: 1, n: 0, writeErrors: [{ index: 0, code: 11000, errmsg: 'E11000' }], writeConcernError: concernError }), () => bulkConcern([0, 11000])],
  ['a bug (TypeError)', () => new TypeError('x is not a function'), () => new TypeError('x is not a function')]
]

describe('classifyUpdateOneError', () => {
  for (const writesRetried of [false, true]) {
    for (const [what, asUpdateOne, asBulk] of FAILURES) {
      it(`${what}${writesRetried ? ', where the driver retries writes' : ''}: as the same statement alone in a bulkWrite`, () => {
        expect(classifyUpdateOneError(asUpdateOne(), { writesRetried })).toEqual(classifyBulkWriteError(asBulk(), 1, { writesRetried }))
      })
    }
  }

  it('tells the outcomes apart: never sent is not applied, a write error not applied (retried when a race), the rest unknown', () => {
    expect(classifyUpdateOneError(selection())).toEqual({ outcomes: ['not_applied'], retry: [] })
    expect(classifyUpdateOneError(new MongoServerError({ index: 0, code: 11000 }))).toEqual({ outcomes: ['not_applied'], retry: [0] })
    expect(classifyUpdateOneError(new MongoServerError({ index: 0, code: 14 }))).toEqual({ outcomes: ['not_applied'], retry: [] })
    expect(classifyUpdateOneError(notPrimary())).toEqual({ outcomes: ['unknown'], retry: [] })
    expect(classifyUpdateOneError(selection(), { writesRetried: true })).toEqual({ outcomes: ['unknown'], retry: [] })
  })
})
