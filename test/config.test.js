import { describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ConfigError, loadConfig } from '../src/config.js'

describe('configuration', () => {
  it('has the defaults the README documents', () => {
    expect(loadConfig({})).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      mongodbUri: null,
      mongodbDb: 'statbucket',
      flushIntervalMs: 0,
      flushMaxDocs: 10000,
      maxPendingEvents: 100000,
      writeTimeoutMs: 10000,
      preallocProbability: 0.000667,
      preallocCron: '*/10 * * * *',
      preallocSweepRate: 50,
      preallocBusyMinutes: 30,
      maxEventsPerRequest: 10000,
      bodyLimitBytes: 2 * 1024 * 1024,
      maxFutureMs: 300000,
      maxAgeDays: 400,
      maxPoints: 20000,
      maxMetrics: 100000
    })
  })

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['FLUSH_MAX_DOCS', '0'],
    ['WRITE_TIMEOUT_MS', '-5'],
    ['PREALLOC_PROBABILITY', '2'],
    ['PREALLOC_PROBABILITY', 'often'],
    ['PREALLOC_CRON', 'every minute'],
    ['LOG_LEVEL', 'loud'],
    ['MONGODB_URI', 'http://example'],
    ['MONGODB_URI', 'mongodb://127.0.0.1:27017/?w=0'],
    ['MONGODB_URI', 'mongodb+srv://db.example/?retryWrites=true&W=0'],
    ['MONGODB_DB', 'a/b'],
    ['WRITE_TOKENS', 'short']
  ])('refuses %s=%s naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError)
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`^${name}: `))
  })

  it('refuses a MONGODB_URI asking for unacknowledged writes (w=0), saying why and what to do; takes any other write concern', () => {
    expect(() => loadConfig({ MONGODB_URI: 'mongodb://a:1,b:2/db?replicaSet=rs&w=0&journal=false' })).toThrow('MONGODB_URI: asks for w=0 (unacknowledged writes), and statbucket answers 200 only once MongoDB acknowledged a write: remove w=0 from it')
    for (const uri of ['mongodb://127.0.0.1:27017/', 'mongodb://h/?w=1', 'mongodb://h/?w=majority&wtimeoutMS=0', 'mongodb://h/?w=0tag', 'mongodb://h/?maxPoolSize=10&w=2']) {
      expect(loadConfig({ MONGODB_URI: uri }).mongodbUri).toBe(uri)
    }
  })

  it('takes DISTRIBUTION_ACCURACY (default 1 %) and refuses one whose documents could pass 16 MiB, naming the finest allowed', () => {
    expect(loadConfig({}).distributionAccuracy).toBe(0.01)
    expect(loadConfig({ DISTRIBUTION_ACCURACY: '0.02' }).distributionAccuracy).toBe(0.02)
    expect(() => loadConfig({ DISTRIBUTION_ACCURACY: '0.001' })).toThrow(/^DISTRIBUTION_ACCURACY: 0.001 lets one day's document grow to \d+\.\d MiB, past MongoDB's 16 MiB limit; use 0\.0056 or more/)
    for (const bad of ['0', '0.6', 'NaN', '1e-5', 'one percent']) {
      expect(() => loadConfig({ DISTRIBUTION_ACCURACY: bad })).toThrow(/^DISTRIBUTION_ACCURACY: /)
    }
  })

  it('takes MINUTE_HISTOGRAM_DAYS (default 7: the days a distribution\'s minutes keep their histograms)', () => {
    expect(loadConfig({}).minuteHistogramDays).toBe(7)
    expect(loadConfig({ MINUTE_HISTOGRAM_DAYS: '0' }).minuteHistogramDays).toBe(0)
    expect(loadConfig({ MINUTE_HISTOGRAM_DAYS: '400' }).minuteHistogramDays).toBe(400)
    for (const bad of ['-1', 'week', '1.5', '40000']) expect(() => loadConfig({ MINUTE_HISTOGRAM_DAYS: bad })).toThrow(/^MINUTE_HISTOGRAM_DAYS: /)
  })

  it('takes STATSD_GAUGE_LEVELS (default 100,000 gauges whose level the StatsD doors hold)', () => {
    expect(loadConfig({}).statsdGaugeLevels).toBe(100_000)
    expect(loadConfig({ STATSD_GAUGE_LEVELS: '500' }).statsdGaugeLevels).toBe(500)
    for (const bad of ['0', '-1', 'many', '20000000']) expect(() => loadConfig({ STATSD_GAUGE_LEVELS: bad })).toThrow(/^STATSD_GAUGE_LEVELS: /)
  })

  it('takes COLLECTION_COMPRESSOR (default zstd: WiredTiger\'s block compressor of the collections statbucket creates), and refuses any other value in one line naming the values and the fix', () => {
    expect(loadConfig({}).collectionCompressor).toBe('zstd')
    expect(loadConfig({ COLLECTION_COMPRESSOR: '' }).collectionCompressor).toBe('zstd')
    for (const value of ['zstd', 'snappy', 'none']) expect(loadConfig({ COLLECTION_COMPRESSOR: value }).collectionCompressor).toBe(value)
    for (const bad of ['ZSTD', 'zlib', 'lz4', ' zstd', 'zstd,snappy', 'block_compressor=zstd', '__proto__', 'constructor']) {
      expect(() => loadConfig({ COLLECTION_COMPRESSOR: bad })).toThrow(ConfigError)
      expect(() => loadConfig({ COLLECTION_COMPRESSOR: bad })).toThrow(`COLLECTION_COMPRESSOR: must be one of zstd, snappy, none, got ${JSON.stringify(bad)}: ` +
        'unset it for zstd (the default), or set snappy (MongoDB\'s own default) or none (no compression)')
    }
  })

  it('judges STATBUCKET_EMBEDDED at every boot, MONGODB_URI set or not: auto, mongod or java, any other value refused naming the values and the fix', () => {
    expect(loadConfig({}).embedded).toBe('auto')
    for (const value of ['auto', 'mongod', 'java']) expect(loadConfig({ STATBUCKET_EMBEDDED: value, MONGODB_URI: 'mongodb://127.0.0.1:1' }).embedded).toBe(value)
    for (const bad of ['Java', 'docker', ' java', '__proto__']) {
      expect(() => loadConfig({ STATBUCKET_EMBEDDED: bad, MONGODB_URI: 'mongodb://127.0.0.1:1' })).toThrow(`STATBUCKET_EMBEDDED: must be one of auto, mongod, java, got ${JSON.stringify(bad)}: ` +
        'unset it (auto: a real mongod, else mongo-java-server), or set mongod or java')
    }
    const result = spawnSync(process.execPath, ['src/server.js'], { env: { ...process.env, MONGODB_URI: '', STATBUCKET_EMBEDDED: 'docker' }, encoding: 'utf8', timeout: 20_000 })
    expect(result.status).toBe(2)
    expect(result.stderr).toMatch(/^statbucket: bad configuration: STATBUCKET_EMBEDDED: must be one of auto, mongod, java, got "docker"/)
  })

  it('takes ROLLUP_RULES inline or from a file; a bad one stops the start naming the rule', () => {
    const inline = '[{"match":"web.*","by":[["status","route"]]}]'
    expect(loadConfig({ ROLLUP_RULES: inline }).rollupRules).toEqual([{ match: 'web.*', by: [['route', 'status']] }])
    expect(loadConfig({}).rollupRules).toEqual([])
    const file = join(mkdtempSync(join(tmpdir(), 'rollups-')), 'rollups.json')
    writeFileSync(file, inline)
    expect(loadConfig({ ROLLUP_RULES: file }).rollupRules).toEqual([{ match: 'web.*', by: [['route', 'status']] }])
    expect(() => loadConfig({ ROLLUP_RULES: '[{"match":"web.*","by":[["__proto__"]]}]' })).toThrow(/^ROLLUP_RULES: rule 0: by\[0\]: tag key "__proto__" is reserved/)
    expect(() => loadConfig({ ROLLUP_RULES: '[{"match":"web.*"' })).toThrow(/^ROLLUP_RULES: is not JSON/)
    expect(() => loadConfig({ ROLLUP_RULES: '/no/such/rules.json' })).toThrow(/^ROLLUP_RULES: is neither inline JSON \(starting with \[\) nor a readable file: ENOENT/)
  })

  it('takes DISTRIBUTION_THRESHOLDS inline; a bad one stops the start naming the variable and the rule', () => {
    expect(loadConfig({ DISTRIBUTION_THRESHOLDS: '{"web.latency*": [1000, 100, 300]}' }).thresholdRules).toEqual([{ match: 'web.latency*', thresholds: [100, 300, 1000] }])
    expect(loadConfig({}).thresholdRules).toEqual([])
    expect(() => loadConfig({ DISTRIBUTION_THRESHOLDS: '{"web.*": [300, -1]}' })).toThrow(/^DISTRIBUTION_THRESHOLDS: rule "web.\*": -1 is not a threshold/)
    expect(() => loadConfig({ DISTRIBUTION_THRESHOLDS: '{"web.*": [NaN]}' })).toThrow(/^DISTRIBUTION_THRESHOLDS: is not JSON/)
    expect(() => loadConfig({ DISTRIBUTION_THRESHOLDS: '[300]' })).toThrow(/^DISTRIBUTION_THRESHOLDS: must be a JSON object/)
    const seventeen = JSON.stringify({ a: [1, 2, 3, 4, 5, 6, 7, 8], b: [9, 10, 11, 12, 13, 14, 15, 16], c: [17] })
    expect(() => loadConfig({ DISTRIBUTION_THRESHOLDS: seventeen })).toThrow(/^DISTRIBUTION_THRESHOLDS: declares 17 distinct thresholds in all; at most 16/)
    // their counts in every tier make the finest accuracy a day's document allows coarser
    const sixteen = JSON.stringify({ a: Array.from({ length: 8 }, (_, i) => 1.234567890123456e-7 * (i + 1)), b: Array.from({ length: 8 }, (_, i) => 1.234567890123456e-6 * (i + 1)) })
    expect(loadConfig({ DISTRIBUTION_ACCURACY: '0.0057' }).distributionAccuracy).toBe(0.0057)
    expect(() => loadConfig({ DISTRIBUTION_ACCURACY: '0.0057', DISTRIBUTION_THRESHOLDS: sixteen })).toThrow(/^DISTRIBUTION_ACCURACY: 0.0057 lets one day's document grow to \d+\.\d MiB with the 16 thresholds of DISTRIBUTION_THRESHOLDS, past MongoDB's 16 MiB limit; use 0\.00\d+ or more/)
  })

  it('holds a RETENTION_RULES rule\'s dailyDays past MAX_AGE_DAYS, as DAILY_RETENTION_DAYS: an event of a deleted day would make it again', () => {
    const dir = mkdtempSync(join(tmpdir(), 'retention-rules-'))
    try {
      const file = join(dir, 'rules.json')
      writeFileSync(file, JSON.stringify([{ match: 'keep.**', dailyDays: null }, { match: 'debug.*', minuteDays: 7, dailyDays: 30 }]))
      expect(() => loadConfig({ RETENTION_RULES: file })).toThrow(/^RETENTION_RULES: rule 1 \("debug\.\*"\): dailyDays 30 must exceed MAX_AGE_DAYS \(400\), or ingest would recreate deleted days: raise dailyDays or lower MAX_AGE_DAYS$/)
      expect(() => loadConfig({ RETENTION_RULES: file, MAX_AGE_DAYS: '30' })).toThrow(/rule 1 \("debug\.\*"\): dailyDays 30 must exceed MAX_AGE_DAYS \(30\)/)
      expect(loadConfig({ RETENTION_RULES: file, MAX_AGE_DAYS: '29' }).retentionRules).toEqual([{ match: 'keep.**', dailyDays: null }, { match: 'debug.*', minuteDays: 7, dailyDays: 30 }])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('refuses MAX_PENDING_EVENTS below MAX_EVENTS_PER_REQUEST', () => {
    expect(() => loadConfig({ MAX_PENDING_EVENTS: '10', MAX_EVENTS_PER_REQUEST: '100' })).toThrow(/^MAX_PENDING_EVENTS: must be ≥ MAX_EVENTS_PER_REQUEST/)
  })

  it('stops `npm start` at a bad COLLECTION_COMPRESSOR with one line naming it, the values and the fix, exit code 2', () => {
    const result = spawnSync(process.execPath, ['src/server.js'], { env: { ...process.env, COLLECTION_COMPRESSOR: 'lz4' }, encoding: 'utf8', timeout: 20_000 })
    expect(result.status).toBe(2)
    expect(result.stderr).toBe('statbucket: bad configuration: COLLECTION_COMPRESSOR: must be one of zstd, snappy, none, got "lz4": ' +
      'unset it for zstd (the default), or set snappy (MongoDB\'s own default) or none (no compression)\n')
  })

  it('stops `npm start` at a refused SLO_FILE with one line naming the document, the field and the fix, exit code 2', () => {
    const dir = mkdtempSync(join(tmpdir(), 'config-slo-'))
    const file = join(dir, 'slos.yaml')
    writeFileSync(file, 'apiVersion: openslo/v1\nkind: SLO\nmetadata: { name: a }\nspec: { budgetingMethod: Timeslices }\n')
    try {
      const result = spawnSync(process.execPath, ['src/server.js'], { env: { ...process.env, SLO_FILE: file }, encoding: 'utf8', timeout: 20_000 })
      expect(result.status).toBe(2)
      expect(result.stderr).toBe(`statbucket: bad configuration: SLO_FILE: document 1, spec.timeWindow: is required; fix it in ${file}, or unset SLO_FILE\n`)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('stops `npm start` with a message naming the bad variable and exit code 2', () => {
    const result = spawnSync(process.execPath, ['src/server.js'], { env: { ...process.env, FLUSH_INTERVAL_MS: 'soon' }, encoding: 'utf8', timeout: 20_000 })
    expect(result.status).toBe(2)
    expect(result.stderr).toMatch(/bad configuration: FLUSH_INTERVAL_MS: must be a whole number/)
  })
})
