// A failure to start as one line that names the cause and what fixes it
// (README "Quick start"). Pure: the error and the configuration come in.
import { COMPRESSORS } from './db/create-collections.js'
import { PLUGIN_TIMEOUT_MS } from './boot-timeout.js'

/** mongodb://user:secret@host → mongodb://user:***@host */
export function redactUri (uri) {
  return String(uri).replace(/\/\/([^:/@]+):[^@/]*@/, '//$1:***@')
}

const causeCode = err => err?.code ?? err?.cause?.code ?? err?.reason?.error?.cause?.code

/** → one line for stderr */
export function describeStartupFailure (err, config = {}) {
  const message = String(err?.message ?? err)
  const port = config.port ?? 3000
  const host = config.host ?? '127.0.0.1'
  if (err?.statsd) return describeStatsdFailure(err, err.statsd)
  if (err?.code === 'EADDRINUSE') {
    return `port ${port} on ${host} is already in use (another statbucket, or another program): stop it, or set PORT to a free port`
  }
  if (err?.code === 'EACCES' && err?.syscall === 'listen') {
    return `no permission to listen on ${host}:${port}: use a port above 1023, or set PORT`
  }
  if (err?.code === 'EADDRNOTAVAIL' || (err?.code === 'ENOTFOUND' && err?.syscall === 'getaddrinfo' && !err?.name?.startsWith('Mongo'))) {
    return `cannot listen on ${host}: no such address on this machine; set HOST (127.0.0.1, or 0.0.0.0 for every interface)`
  }
  if (err?.code === 18 || err?.codeName === 'AuthenticationFailed' || /Authentication failed/i.test(message)) {
    return `MongoDB refused the credentials in MONGODB_URI (${redactUri(config.mongodbUri ?? '')}): authentication failed; fix the user, password or authSource in MONGODB_URI`
  }
  if (err?.name === 'MongoServerSelectionError' || err?.name === 'MongoNetworkError' || err?.name === 'MongoNetworkTimeoutError') {
    const code = causeCode(err)
    return `cannot reach MongoDB at ${redactUri(config.mongodbUri ?? '(embedded)')}${code ? ` (${code})` : ''}: check MONGODB_URI and that the server runs, or unset MONGODB_URI to use the embedded database`
  }
  if (err?.collection) return describeCollectionFailure(err, err.collection)
  if (err?.code === 'AVV_ERR_PLUGIN_EXEC_TIMEOUT' || err?.code === 'FST_ERR_PLUGIN_TIMEOUT') {
    const step = /'([^']+)'/.exec(message)?.[1] ?? 'a boot step'
    return `the boot step "${step}" did not finish in ${PLUGIN_TIMEOUT_MS / 1000} s (the registry's load grows with its entries): check that MongoDB at ${redactUri(config.mongodbUri ?? '(embedded)')} answers quickly, or delete unused metrics (docs/operations.md#boot)`
  }
  if (/file is locked/i.test(message)) {
    return `the embedded database's data directory (${config.dataDir ?? './data'}) is locked by another running statbucket: stop that one, set STATBUCKET_DATA_DIR to another directory, or set MONGODB_URI`
  }
  if (/'(java|mvn)' is not on PATH/.test(message)) {
    const tool = /'java'/.test(message) ? 'Java (a JDK 17+)' : 'Maven'
    return `the embedded database needs ${tool}, which is not installed: install it (Debian: apt-get install ${/'java'/.test(message) ? 'openjdk-17-jdk-headless' : 'maven'}), or set MONGODB_URI to a MongoDB server`
  }
  if (/No embedded MongoDB could be started/.test(message)) {
    return `no embedded MongoDB could be started (${message.split('\n').filter(l => l.trim().startsWith('- ')).map(l => l.trim().slice(2).split(':')[0]).join(', ') || 'see LOG_LEVEL=debug'} failed): set MONGODB_URI to a MongoDB server, or run with LOG_LEVEL=debug for why`
  }
  return `failed to start: ${message.split('\n')[0]} (LOG_LEVEL=debug shows the stack)`
}

/** The server refused to create a collection (src/db/create-collections.js marks the error with { name, compressor }) */
function describeCollectionFailure (err, { name, compressor }) {
  const others = COMPRESSORS.filter(c => c !== compressor).join(' or ')
  return `the database refused to create the collection ${name} with WiredTiger's block_compressor=${compressor} (COLLECTION_COMPRESSOR): ${String(err.message).split('\n')[0]}; ` +
    `set COLLECTION_COMPRESSOR to ${others}, or create statbucket's collections yourself (existing ones are used as they are)`
}

/** The StatsD listeners could not start (src/statsd/plugin.js marks the error with { host, port }) */
function describeStatsdFailure (err, { host, port }) {
  const off = 'STATSD_PORT=0 to turn StatsD off'
  if (err.code === 'EADDRINUSE') return `StatsD port ${port} on ${host} is already in use (another statbucket, or a StatsD daemon): stop it, set STATSD_PORT to a free port, or ${off}`
  if (err.code === 'EACCES') return `no permission to listen on ${host}:${port} for StatsD: set STATSD_PORT to a port above 1023, or ${off}`
  if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND') return `cannot listen for StatsD on ${host}: no such address on this machine; set STATSD_HOST (127.0.0.1), or ${off}`
  return `StatsD could not listen on ${host}:${port}: ${String(err.message).split('\n')[0]}; set STATSD_PORT to another port, or ${off}`
}
