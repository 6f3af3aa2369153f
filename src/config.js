// Configuration from the environment (docs/configuration.md), validated at boot.
// A bad value throws a ConfigError naming the variable.
import fs from 'node:fs'
import v8 from 'node:v8'
import cron from 'node-cron'
import { accuracyProblem, createMapping } from './bucket/distribution-sketch.js'
import { MAX_BSON_DOCUMENT_BYTES, largestDailyDocumentBytes } from './bucket/distribution-increments.js'
import { COMPRESSORS } from './db/create-collections.js'
import { EMBEDDED_MODES } from './db/embedded-address.js'
import { parseRollupRules } from './tags/rollups.js'
import { parseThresholdRules, thresholdKeysOf } from './bucket/distribution-thresholds.js'
import { keyProblem } from './tags/series-name.js'
import { MAX_SLO_FILE_BYTES, SloDefinitionError, parseSloFile } from './slos/definitions.js'

export class ConfigError extends Error {
  constructor (variable, message) {
    super(`${variable}: ${message}`)
    this.name = 'ConfigError'
    this.variable = variable
  }
}

const MIB = 1024 * 1024
/** StatsD's port, where StatsD clients send by default */
export const STATSD_DEFAULT_PORT = 8125

/** Whether a listen address is reachable from this machine only */
export function isLoopback (host) {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) || /^::ffff:127\./i.test(host)
}

function integer (env, name, fallback, { min = 0, max = Number.MAX_SAFE_INTEGER } = {}) {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(name, `must be a whole number, got ${JSON.stringify(raw)}`)
  const n = Number(raw)
  if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${n}`)
  return n
}

function decimal (env, name, fallback, { min, max }) {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  const n = Number(raw)
  if (!/^\s*[0-9.eE+-]+\s*$/.test(raw) || !Number.isFinite(n) || n < min || n > max) {
    throw new ConfigError(name, `must be a decimal between ${min} and ${max}, got ${JSON.stringify(raw)}`)
  }
  return n
}

/** fix: what to do about a bad value, when more than the list of values helps */
function oneOf (env, name, fallback, choices, fix) {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (!choices.includes(raw)) throw new ConfigError(name, `must be one of ${choices.join(', ')}, got ${JSON.stringify(raw)}${fix ? `: ${fix}` : ''}`)
  return raw
}

function tokens (env, name) {
  const raw = env[name]
  if (raw === undefined || raw.trim() === '') return []
  const list = raw.split(',').map(t => t.trim()).filter(Boolean)
  for (const t of list) {
    if (t.length < 16) throw new ConfigError(name, 'every token must be at least 16 characters')
  }
  return list
}

/** RETENTION_RULES: a JSON file [{ match, minuteDays?, dailyDays? }, …], first match wins */
function retentionRules (env) {
  const file = env.RETENTION_RULES
  if (file === undefined || file === '') return []
  let rules
  try {
    rules = JSON.parse(fs.readFileSync(file, 'utf8'))
  } catch (err) {
    throw new ConfigError('RETENTION_RULES', `cannot read ${JSON.stringify(file)} as JSON: ${err.message}`)
  }
  if (!Array.isArray(rules)) throw new ConfigError('RETENTION_RULES', 'must hold a JSON array of rules')
  const days = v => v === undefined || v === null || (Number.isInteger(v) && v >= 0)
  for (const [i, r] of rules.entries()) {
    if (!r || typeof r.match !== 'string' || !r.match || !days(r.minuteDays) || !days(r.dailyDays)) {
      throw new ConfigError('RETENTION_RULES', `rule ${i} must be { "match": "glob", "minuteDays": n, "dailyDays": n (or null: forever) }`)
    }
  }
  return Object.freeze(rules.map(r => Object.freeze({ ...r })))
}

/**
 * ROLLUP_RULES: declared rollups (docs/tags.md#declared-rollups), JSON inline
 * (starting with `[`) or the path of a JSON file
 */
function rollupRules (env) {
  const value = env.ROLLUP_RULES
  if (value === undefined || value.trim() === '') return []
  let text = value
  if (!value.trim().startsWith('[')) {
    try {
      text = fs.readFileSync(value, 'utf8')
    } catch (err) {
      throw new ConfigError('ROLLUP_RULES', `is neither inline JSON (starting with [) nor a readable file: ${err.message}`)
    }
  }
  const { rules, problem } = parseRollupRules(text)
  if (problem) throw new ConfigError('ROLLUP_RULES', problem)
  return rules
}

/** DISTRIBUTION_THRESHOLDS: declared thresholds (docs/kinds/distribution.md#thresholds), JSON inline */
function thresholdRules (env) {
  const value = env.DISTRIBUTION_THRESHOLDS
  if (value === undefined || value.trim() === '') return []
  const { rules, problem } = parseThresholdRules(value)
  if (problem) throw new ConfigError('DISTRIBUTION_THRESHOLDS', problem)
  return rules
}

/**
 * OTLP_RESOURCE_TAGS: the resource attributes an OTLP point's series takes as
 * tags, `attribute=tag` or `attribute` (the tag named as it), comma-separated;
 * default `service.name=service`; empty: none (docs/otlp.md)
 */
function otlpResourceTags (env) {
  const value = env.OTLP_RESOURCE_TAGS ?? 'service.name=service'
  const pairs = []
  for (const item of value.split(',')) {
    const text = item.trim()
    if (text === '') continue
    const at = text.indexOf('=')
    const [attribute, tag] = at === -1 ? [text, text] : [text.slice(0, at).trim(), text.slice(at + 1).trim()]
    const problem = attribute === '' ? `"${text}" names no attribute` : keyProblem(tag)
    if (problem) throw new ConfigError('OTLP_RESOURCE_TAGS', `${problem} (write attribute=tag, comma-separated)`)
    pairs.push(Object.freeze([attribute, tag]))
  }
  return Object.freeze(pairs)
}

/**
 * SLO_FILE: OpenSLO v1 definitions, YAML (docs/slos.md#definitions) → [definition];
 * read at boot and on SIGHUP (src/slos/plugin.js)
 */
export function loadSloFile (file) {
  const fix = `fix it in ${file}, or unset SLO_FILE`
  let text
  try {
    const { size } = fs.statSync(file)
    if (size > MAX_SLO_FILE_BYTES) throw new ConfigError('SLO_FILE', `${file} is ${size} bytes, over the limit of ${MAX_SLO_FILE_BYTES}: split or shorten it, or unset SLO_FILE`)
    text = fs.readFileSync(file, 'utf8')
  } catch (err) {
    if (err instanceof ConfigError) throw err
    throw new ConfigError('SLO_FILE', `cannot read ${JSON.stringify(file)}: ${err.message}; set SLO_FILE to a readable YAML file, or unset it`)
  }
  try {
    return parseSloFile(text)
  } catch (err) {
    if (err instanceof SloDefinitionError) throw new ConfigError('SLO_FILE', `${err.message}; ${fix}`)
    throw err
  }
}

/**
 * DISTRIBUTION_ACCURACY: the relative accuracy α of new distributions, no
 * finer than keeps every distribution document under BSON's 16 MiB whatever
 * is written to it, the declared thresholds' counts included
 * (docs/adr/0037-distributions-ddsketch-histograms.md)
 */
function distributionAccuracy (env, thresholdRules = []) {
  const accuracy = decimal(env, 'DISTRIBUTION_ACCURACY', 0.01, { min: 0, max: 1 })
  const problem = accuracyProblem(accuracy)
  if (problem) throw new ConfigError('DISTRIBUTION_ACCURACY', problem)
  const thresholdKeys = thresholdKeysOf(thresholdRules)
  const bytes = largestDailyDocumentBytes(createMapping(accuracy), { thresholdKeys })
  if (bytes > MAX_BSON_DOCUMENT_BYTES) {
    const also = thresholdKeys.length ? ` with the ${thresholdKeys.length} thresholds of DISTRIBUTION_THRESHOLDS` : ''
    throw new ConfigError('DISTRIBUTION_ACCURACY', `${accuracy} lets one day's document grow to ${(bytes / 1024 / 1024).toFixed(1)} MiB${also}, past MongoDB's 16 MiB limit; use ${finestSafeAccuracy(thresholdKeys)} or more (0.01 is 1 %)`)
  }
  return accuracy
}

/** The finest accuracy (to 4 decimals) whose documents stay under the limit */
function finestSafeAccuracy (thresholdKeys) {
  let ok = 0.5
  let bad = 0.0001
  while (ok - bad > 0.0001) {
    const mid = (ok + bad) / 2
    if (largestDailyDocumentBytes(createMapping(mid), { thresholdKeys }) <= MAX_BSON_DOCUMENT_BYTES) ok = mid
    else bad = mid
  }
  return Math.ceil(ok * 10_000) / 10_000
}

export function loadConfig (env = process.env) {
  const config = {
    port: integer(env, 'PORT', 3000, { max: 65535 }),
    host: env.HOST || '127.0.0.1',
    mongodbUri: env.MONGODB_URI || null,
    mongodbDb: env.MONGODB_DB || 'statbucket',
    // WiredTiger's block compressor of the collections statbucket creates; existing ones keep theirs (docs/adr/0055-zstd-by-default.md)
    collectionCompressor: oneOf(env, 'COLLECTION_COMPRESSOR', COMPRESSORS[0], COMPRESSORS,
      'unset it for zstd (the default), or set snappy (MongoDB\'s own default) or none (no compression)'),
    // which embedded database starts when MONGODB_URI is unset (src/db/embedded.js reads it there); judged at every boot
    embedded: oneOf(env, 'STATBUCKET_EMBEDDED', 'auto', EMBEDDED_MODES, 'unset it (auto: a real mongod, else mongo-java-server), or set mongod or java'),
    logLevel: oneOf(env, 'LOG_LEVEL', 'info', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    // V8's heap growing factor, 1 + this/100 (0: V8's own, up to 4; 1–9 refused below): src/heap-growth.js
    heapGrowthPercent: integer(env, 'HEAP_GROWTH_PERCENT', 100, { min: 0, max: 300 }),
    flushIntervalMs: integer(env, 'FLUSH_INTERVAL_MS', 0, { min: 0, max: 60_000 }), // 0: adaptive group commit
    flushMaxDocs: integer(env, 'FLUSH_MAX_DOCS', 10_000, { min: 1, max: 100_000 }),
    maxPendingEvents: integer(env, 'MAX_PENDING_EVENTS', 100_000, { min: 1 }),
    // how long a draining server still listens and answers (Connection: close; writes 503) before it closes connections
    shutdownGraceMs: integer(env, 'SHUTDOWN_GRACE_MS', 500, { min: 0, max: 60_000 }),
    // admission before work (src/plugins/admission.js): 0 turns a check off
    maxEventLoopDelayMs: integer(env, 'MAX_EVENT_LOOP_DELAY_MS', 500, { min: 0, max: 60_000 }),
    maxHeapUsedBytes: integer(env, 'MAX_HEAP_USED_BYTES', Math.floor(0.85 * v8.getHeapStatistics().heap_size_limit), { min: 0 }),
    maxInflightWriteBytes: integer(env, 'MAX_INFLIGHT_WRITE_BYTES', 8 * MIB, { min: 1024 }),
    writeTimeoutMs: integer(env, 'WRITE_TIMEOUT_MS', 10_000, { min: 100, max: 600_000 }),
    preallocProbability: decimal(env, 'PREALLOC_PROBABILITY', 0.000667, { min: 0, max: 1 }),
    preallocCron: env.PREALLOC_CRON || '*/10 * * * *',
    preallocSweepRate: integer(env, 'PREALLOC_SWEEP_RATE', 50, { min: 1, max: 100_000 }),
    preallocBusyMinutes: integer(env, 'PREALLOC_BUSY_MINUTES', 30, { min: 1, max: 60 }),
    maxEventsPerRequest: integer(env, 'MAX_EVENTS_PER_REQUEST', 10_000, { min: 1, max: 1_000_000 }),
    bodyLimitBytes: integer(env, 'BODY_LIMIT_BYTES', 2 * MIB, { min: 1024, max: 256 * MIB }),
    maxFutureMs: integer(env, 'MAX_FUTURE_MS', 300_000),
    maxAgeDays: integer(env, 'MAX_AGE_DAYS', 400, { min: 1, max: 36_500 }),
    maxPoints: integer(env, 'MAX_POINTS', 20_000, { min: 1, max: 1_000_000 }),
    graphiteMaxGlobMetrics: integer(env, 'GRAPHITE_MAX_GLOB_METRICS', 1000, { min: 1, max: 1_000_000 }),
    // a Graphite render request's budget: series and points read across all its targets
    maxSeries: integer(env, 'MAX_SERIES', 1000, { min: 1, max: 1_000_000 }),
    maxReadPoints: integer(env, 'MAX_READ_POINTS', 2_000_000, { min: 1, max: 100_000_000 }),
    // histogram buckets one read of distributions may merge (docs/adr/0043-distribution-read-cost.md)
    maxReadBuckets: integer(env, 'MAX_READ_BUCKETS', 10_000_000, { min: 1000, max: 1_000_000_000 }),
    maxMetrics: integer(env, 'MAX_METRICS', 100_000, { min: 1, max: 10_000_000 }),
    maxSeriesPerName: integer(env, 'MAX_SERIES_PER_NAME', 10_000, { min: 1, max: 10_000_000 }),
    statsdNewMetricsPerMinute: integer(env, 'STATSD_NEW_METRICS_PER_MINUTE', 1000, { min: 1, max: 10_000_000 }),
    statsdRegistryPercent: integer(env, 'STATSD_REGISTRY_SHARE', 90, { min: 1, max: 100 }),
    writeTokens: tokens(env, 'WRITE_TOKENS'),
    readTokens: tokens(env, 'READ_TOKENS'),
    // unset: /metrics follows READ_TOKENS
    metricsTokens: env.METRICS_TOKENS === undefined || env.METRICS_TOKENS.trim() === '' ? null : tokens(env, 'METRICS_TOKENS'),
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 0, { min: 0, max: 10_000_000 }), // 0: off
    idempotencyTtlSeconds: integer(env, 'IDEMPOTENCY_TTL', 86_400, { min: 60, max: 31_536_000 }),
    // retention (docs/kinds/counter.md#retention-and-the-check): null = forever
    minuteRetentionDays: integer(env, 'MINUTE_RETENTION_DAYS', 90, { min: 0, max: 36_500 }),
    // a distribution's minute histograms (a minute's percentiles): the last days only, never past its minutes
    minuteHistogramDays: integer(env, 'MINUTE_HISTOGRAM_DAYS', 7, { min: 0, max: 36_500 }),
    dailyRetentionDays: env.DAILY_RETENTION_DAYS === undefined || env.DAILY_RETENTION_DAYS === '' || env.DAILY_RETENTION_DAYS === 'forever'
      ? null
      : integer(env, 'DAILY_RETENTION_DAYS', null, { min: 1, max: 36_500 }),
    retentionRules: retentionRules(env),
    rollupRules: rollupRules(env),
    thresholdRules: thresholdRules(env),
    sloFile: env.SLO_FILE || null,
    slos: env.SLO_FILE ? loadSloFile(env.SLO_FILE) : [],
    // a new distribution's relative accuracy (a metric keeps the one it was created with)
    distributionAccuracy: distributionAccuracy(env, thresholdRules(env)),
    retentionCron: env.RETENTION_CRON || '17 * * * *',
    retentionRate: integer(env, 'RETENTION_RATE', 500, { min: 1, max: 1_000_000 }),
    // StatsD listeners (docs/statsd.md): on 8125, StatsD's port, unless STATSD_PORT says another; 0 (null here): off.
    // (A caller that builds the config itself may set 0: any free port, tests only; no environment can ask for it.)
    statsdPort: integer(env, 'STATSD_PORT', STATSD_DEFAULT_PORT, { max: 65535 }) || null,
    // loopback whatever HOST is: StatsD carries no token (docs/adr/0026-statsd-door-policy.md)
    statsdHost: env.STATSD_HOST || '127.0.0.1',
    statsdUnauthenticated: oneOf(env, 'STATSD_UNAUTHENTICATED', 'refuse', ['refuse', 'allow']),
    statsdFlushIntervalMs: integer(env, 'STATSD_FLUSH_INTERVAL_MS', 1000, { min: 10, max: 60_000 }),
    statsdTcpMaxConnections: integer(env, 'STATSD_TCP_MAX_CONNECTIONS', 256, { min: 1, max: 100_000 }),
    statsdTcpIdleTimeoutMs: integer(env, 'STATSD_TCP_IDLE_TIMEOUT_MS', 300_000, { min: 1000, max: 86_400_000 }),
    // gauges whose level the StatsD doors hold for deltas (`+3|g`), least recently used forgotten past it
    statsdGaugeLevels: integer(env, 'STATSD_GAUGE_LEVELS', 100_000, { min: 1, max: 10_000_000 }),
    // POST /v1/metrics (docs/otlp.md): the resource attributes that become tags, and the cumulative series whose last point is held
    otlpResourceTags: otlpResourceTags(env),
    otlpCumulativeSeries: integer(env, 'OTLP_CUMULATIVE_SERIES', 100_000, { min: 1, max: 10_000_000 })
  }
  if (!/^[^\s/]+$/.test(config.statsdHost)) {
    throw new ConfigError('STATSD_HOST', `must be a host name or IP address, got ${JSON.stringify(config.statsdHost)}`)
  }
  if (config.statsdPort !== null && config.writeTokens.length > 0 && !isLoopback(config.statsdHost) && config.statsdUnauthenticated !== 'allow') {
    throw new ConfigError('STATSD_UNAUTHENTICATED', `WRITE_TOKENS is set but StatsD would listen on ${config.statsdHost}:${config.statsdPort} (STATSD_HOST, STATSD_PORT), where anyone who reaches it writes without a token: bind it to 127.0.0.1, set STATSD_PORT=0 to turn it off, or set STATSD_UNAUTHENTICATED=allow to accept that`)
  }
  if (!cron.validate(config.retentionCron)) {
    throw new ConfigError('RETENTION_CRON', `is not a valid cron expression: ${JSON.stringify(config.retentionCron)}`)
  }
  if (config.dailyRetentionDays !== null && config.dailyRetentionDays <= config.maxAgeDays) {
    throw new ConfigError('DAILY_RETENTION_DAYS', `must exceed MAX_AGE_DAYS (${config.maxAgeDays}), or ingest would recreate deleted days`)
  }
  // a rule's daily horizon is DAILY_RETENTION_DAYS for its metrics: the same bound (a day it deleted, an event
  // of it written again, would be a daily document retention keeps and the check never judges)
  const shortDaily = config.retentionRules.findIndex(r => r.dailyDays !== undefined && r.dailyDays !== null && r.dailyDays <= config.maxAgeDays)
  if (shortDaily !== -1) {
    throw new ConfigError('RETENTION_RULES', `rule ${shortDaily} ("${config.retentionRules[shortDaily].match}"): dailyDays ${config.retentionRules[shortDaily].dailyDays} must exceed MAX_AGE_DAYS (${config.maxAgeDays}), or ingest would recreate deleted days: raise dailyDays or lower MAX_AGE_DAYS`)
  }
  if (!cron.validate(config.preallocCron)) {
    throw new ConfigError('PREALLOC_CRON', `is not a valid cron expression: ${JSON.stringify(config.preallocCron)}`)
  }
  if (config.mongodbUri && !/^mongodb(\+srv)?:\/\//.test(config.mongodbUri)) {
    throw new ConfigError('MONGODB_URI', 'must start with mongodb:// or mongodb+srv://')
  }
  // an unacknowledged write concern: no write could ever be answered 200 (docs/adr/0088-acknowledged-means-counted.md)
  if (config.mongodbUri && /[?&]w=0(?:&|$)/i.test(config.mongodbUri)) {
    throw new ConfigError('MONGODB_URI', 'asks for w=0 (unacknowledged writes), and statbucket answers 200 only once MongoDB acknowledged a write: remove w=0 from it')
  }
  if (!/^[^/\\. "$*<>:|?]{1,63}$/.test(config.mongodbDb)) {
    throw new ConfigError('MONGODB_DB', `is not a valid database name: ${JSON.stringify(config.mongodbDb)}`)
  }
  if (config.heapGrowthPercent > 0 && config.heapGrowthPercent < 10) {
    // V8's own factor is never below 1.1: less makes a full collection of nearly every growth
    throw new ConfigError('HEAP_GROWTH_PERCENT', `must be 0 (V8's own) or 10–300, got ${config.heapGrowthPercent}`)
  }
  if (config.maxPendingEvents < config.maxEventsPerRequest) {
    throw new ConfigError('MAX_PENDING_EVENTS', `must be ≥ MAX_EVENTS_PER_REQUEST (${config.maxEventsPerRequest})`)
  }
  return Object.freeze(config)
}
