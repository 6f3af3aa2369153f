// The one vocabulary of write outcomes, and how a bulkWrite's failure maps
// onto what happened to each operation (docs/architecture.md#how-a-request-becomes-a-bulkwrite). Pure: takes the error, returns per-operation outcomes.

// the writer's answers
export const APPLIED = 'applied'
export const NOT_APPLIED = 'not_applied'
export const UNKNOWN = 'unknown'
// a keyed request whose key another request recorded meanwhile (nothing applied by this one)
export const KEY_RECORDED = 'key_recorded'
// the ingest service's answers besides the writer's (src/ingest/ingest.js)
export const REJECTED = 'rejected'
export const REPLAYED = 'replayed'
export const KEY_UNSUPPORTED = 'key_unsupported'
export const KEY_IN_FLIGHT = 'key_in_flight'
export const KEY_REUSED = 'key_reused'

// Codes of per-operation write errors worth sending again: two upserts of a
// new _id raced (11000), or a write conflict (112).
export const RETRYABLE_WRITE_CODES = new Set([11000, 112])

// Errors raised before the operation left this process: nothing was applied.
const NEVER_SENT = new Set([
  'MongoServerSelectionError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'MongoPoolClearedError',
  'MongoPoolClosedError',
  'MongoWaitQueueTimeoutError'
])

// Failures to open a connection: the driver does not mark them (beforeHandshake
// covers the handshake only), so they are told by the socket's error code and
// by the driver's messages for connection establishment.
// EHOSTUNREACH/ENETUNREACH count only when raised by connect(): an open
// socket can report them too, after the write went out.
// EMFILE/ENFILE: no file descriptor left for a new socket (only syscalls that make one raise them).
const CONNECT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EMFILE', 'ENFILE'])
const CONNECT_ONLY_CODES = new Set(['EHOSTUNREACH', 'ENETUNREACH'])
const CONNECTING = /^Socket '(secureConnect|connect)' timed out|during connection establishment|connection establishment was cancelled/

function raisedBeforeSending (err) {
  if (NEVER_SENT.has(err?.name)) return true
  if (err?.name !== 'MongoNetworkError' && err?.name !== 'MongoNetworkTimeoutError') return false
  const code = err.cause?.code
  return err.beforeHandshake === true ||
    CONNECT_CODES.has(code) ||
    (CONNECT_ONLY_CODES.has(code) && err.cause?.syscall === 'connect') ||
    CONNECTING.test(err.message ?? '')
}

/**
 * True when nothing of a failed bulkWrite can have reached the server.
 * The driver raises a connected client's failures inside a MongoBulkWriteError
 * whose `errorResponse` is the original error: look there. The original does
 * not say whether it hit the first attempt or the driver's retry of an attempt
 * already sent (retryable writes, on replica sets and sharded clusters), so
 * where the driver retries writes (`writesRetried`) only a failure raised
 * before the bulk started counts; and a failure of a later batch after an
 * earlier one went through does not count either.
 */
export function wasNeverSent (err, { writesRetried = false } = {}) {
  if (raisedBeforeSending(err)) return true
  if (err?.name !== 'MongoBulkWriteError' || (err.writeErrors?.length ?? 0) > 0) return false
  const cause = err.errorResponse
  if (!(cause instanceof Error) || !raisedBeforeSending(cause) || writesRetried) return false
  return operationsDone(err.result) === 0
}

/** The operations a bulkWrite's (or updateOne's) result counts as done (Infinity for a result that cannot be read) */
export function operationsDone (result) {
  try {
    return (result?.insertedCount ?? 0) + (result?.matchedCount ?? 0) + (result?.upsertedCount ?? 0) + (result?.deletedCount ?? 0)
  } catch {
    return Infinity
  }
}

/**
 * Throws ShortAcknowledgement unless `result` (a bulkWrite's, updateOne's or
 * insertMany's) counts all `sent` operations as done. Every statement the
 * writer sends matches, inserts or upserts one document: a reply counting
 * fewer (one without its counts, an unacknowledged write concern) applied
 * nothing the writer can vouch for.
 */
export function expectEveryOperationDone (result, sent) {
  const counted = operationsDone(result)
  if (counted !== sent) throw new ShortAcknowledgement(counted, sent)
}

/** A write the server answered without counting every operation as done (classified as any error without write errors) */
class ShortAcknowledgement extends Error {
  constructor (counted, sent) {
    super(`the database acknowledged ${counted} of ${sent} operations (matched, upserted or inserted); their outcome is unknown`)
    this.name = 'ShortAcknowledgement'
  }
}

/**
 * Classifies a failed bulkWrite of `count` operations (options: writesRetried,
 * see wasNeverSent).
 * → { outcomes: Array<APPLIED|NOT_APPLIED|UNKNOWN>, retry: number[] (indexes worth sending again) }
 */
export function classifyBulkWriteError (err, count, options = {}) {
  if (wasNeverSent(err, options)) return { outcomes: new Array(count).fill(NOT_APPLIED), retry: [] }
  const writeErrors = err?.name === 'MongoBulkWriteError' ? [].concat(err.writeErrors ?? []) : []
  if (writeErrors.length === 0) {
    // Sent, and no per-operation answer: a network error, a timeout, or a
    // driver error after an earlier batch went through.
    return { outcomes: new Array(count).fill(UNKNOWN), retry: [] }
  }
  // A write error that names no operation sent (a reply without an index, or
  // out of range) says nothing of which failed: every operation is unknown.
  if (!writeErrors.every(e => Number.isInteger(e?.index) && e.index >= 0 && e.index < count)) {
    return { outcomes: new Array(count).fill(UNKNOWN), retry: [] }
  }
  // Per-operation write errors are definite: those operations were not
  // applied, the others were — unless the write concern was not satisfied.
  const others = hasWriteConcernError(err) ? UNKNOWN : APPLIED
  const outcomes = new Array(count).fill(others)
  const retry = []
  for (const writeError of writeErrors) {
    outcomes[writeError.index] = NOT_APPLIED
    if (RETRYABLE_WRITE_CODES.has(writeError.code)) retry.push(writeError.index)
  }
  return { outcomes, retry }
}

/**
 * Classifies a failed `updateOne` (the driver's; options: writesRetried, see
 * wasNeverSent) as classifyBulkWriteError does the same statement sent alone
 * in a bulkWrite: → { outcomes: [outcome], retry: [0] or [] }. The driver
 * raises the statement's write error as a MongoServerError carrying its
 * `index`, or, beside a write concern error, in the MongoWriteConcernError's
 * `result`; any other failure after sending is unknown. Where the driver
 * retries writes, a failure raised before sending may be its retry's, after
 * the first attempt went out: unknown too (the bulk's is wrapped, and so).
 */
export function classifyUpdateOneError (err, { writesRetried = false } = {}) {
  if (!writesRetried && raisedBeforeSending(err)) return { outcomes: [NOT_APPLIED], retry: [] }
  const writeError = err?.name === 'MongoServerError' && Number.isInteger(err.index)
    ? err
    : err?.name === 'MongoWriteConcernError' ? [].concat(err.result?.writeErrors ?? [])[0] : undefined
  if (writeError === undefined) return { outcomes: [UNKNOWN], retry: [] }
  return { outcomes: [NOT_APPLIED], retry: RETRYABLE_WRITE_CODES.has(writeError.code) ? [0] : [] }
}

function hasWriteConcernError (err) {
  try {
    return Boolean(err.result?.getWriteConcernError?.() ?? err.writeConcernError)
  } catch {
    return true
  }
}

/** A request's answer from the outcomes of the operations holding its increments */
export function combineOutcomes (outcomes) {
  let applied = 0
  let notApplied = 0
  for (const o of outcomes) {
    if (o === APPLIED) applied++
    else if (o === NOT_APPLIED) notApplied++
  }
  if (applied === outcomes.length) return APPLIED
  if (notApplied === outcomes.length) return NOT_APPLIED
  return UNKNOWN
}
