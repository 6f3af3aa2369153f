// Failures to start: one line naming the cause and the fix, exit 1, no stack
// at LOG_LEVEL=info — against the real server process, and the classifier
// against the driver's real error shapes.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import Fastify from 'fastify'
import fp from 'fastify-plugin'
import { MongoServerError, MongoServerSelectionError } from 'mongodb'
import { afterAll, describe, expect, it } from 'vitest'
import { startJavaServer } from '../src/db/java-server.js'
import { describeStartupFailure, redactUri } from '../src/startup-failure.js'
import { PLUGIN_TIMEOUT_MS } from '../src/boot-timeout.js'

const cleanups = []
afterAll(async () => { while (cleanups.length) await cleanups.pop()().catch(() => {}) })

/** Runs `node src/server.js` until it exits (bounded) → { code, stderr, stdout } */
function runServer (env, timeoutMs = 60_000) {
  return new Promise(resolve => {
    // STATSD_PORT=0: no StatsD on 8125, which a test beside this one may hold
    const child = spawn(process.execPath, ['src/server.js'], { env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'info', STATSD_PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', d => { stdout += d })
    child.stderr.on('data', d => { stderr += d })
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.on('exit', (code, signal) => { clearTimeout(timer); resolve({ code, signal, stdout, stderr }) })
  })
}

const oneLine = (stderr) => {
  const lines = stderr.trim().split('\n')
  expect(lines, stderr).toHaveLength(1)
  expect(stderr).not.toMatch(/\n\s+at /) // no stack
  return lines[0]
}

describe('failures to start, from the real process', () => {
  it('a port already taken names PORT', async () => {
    const blocker = net.createServer()
    await new Promise(resolve => blocker.listen(0, '127.0.0.1', resolve))
    cleanups.push(() => new Promise(resolve => blocker.close(resolve)))
    const db = await startJavaServer()
    cleanups.push(() => db.stop())
    const { code, stderr } = await runServer({ MONGODB_URI: db.uri, PORT: String(blocker.address().port) })
    expect(code).toBe(1)
    expect(oneLine(stderr)).toBe(`statbucket: port ${blocker.address().port} on 127.0.0.1 is already in use (another statbucket, or another program): stop it, or set PORT to a free port`)
  }, 60_000)

  it('a database that cannot be reached names MONGODB_URI and the embedded default', async () => {
    const { code, stderr } = await runServer({ MONGODB_URI: 'mongodb://127.0.0.1:1', WRITE_TIMEOUT_MS: '1000', PORT: '0' })
    expect(code).toBe(1)
    expect(oneLine(stderr)).toMatch(/^statbucket: cannot reach MongoDB at mongodb:\/\/127\.0\.0\.1:1 \(ECONNREFUSED\): check MONGODB_URI and that the server runs, or unset MONGODB_URI to use the embedded database$/)
  }, 60_000)

  it('a data directory another statbucket holds names it and the way out', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'statbucket-locked-'))
    cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }))
    const holder = await startJavaServer({ h2File: path.join(dir, 'statbucket.h2.mv.db') }) // as the first statbucket's would
    cleanups.push(() => holder.stop())
    const { code, stderr } = await runServer({ STATBUCKET_EMBEDDED: 'java', STATBUCKET_DATA_DIR: dir, PORT: '0' })
    expect(code).toBe(1)
    expect(oneLine(stderr)).toBe(`statbucket: the embedded database's data directory (${dir}) is locked by another running statbucket: stop that one, set STATBUCKET_DATA_DIR to another directory, or set MONGODB_URI`)
  }, 90_000)

  it('Java missing for the embedded database says what to install', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'statbucket-nojava-'))
    cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }))
    // a PATH with node alone (a folder of its own: node's may hold java too)
    const bin = path.join(dir, 'bin')
    fs.mkdirSync(bin)
    fs.symlinkSync(process.execPath, path.join(bin, 'node'))
    const { code, stderr } = await runServer({ PATH: bin, PORT: '0', STATBUCKET_EMBEDDED: 'java', STATBUCKET_DATA_DIR: dir })
    expect(code).toBe(1)
    expect(oneLine(stderr)).toMatch(/^statbucket: the embedded database needs (Java \(a JDK 17\+\)|Maven), which is not installed: install it \(Debian: apt-get install (openjdk-17-jdk-headless|maven)\), or set MONGODB_URI to a MongoDB server$/)
  }, 60_000)

  it('shows the stack at LOG_LEVEL=debug only', async () => {
    const { code, stderr } = await runServer({ MONGODB_URI: 'mongodb://127.0.0.1:1', WRITE_TIMEOUT_MS: '1000', LOG_LEVEL: 'debug', PORT: '0' })
    expect(code).toBe(1)
    expect(stderr.split('\n')[0]).toMatch(/^statbucket: cannot reach MongoDB/)
    expect(stderr).toMatch(/\n\s+at /)
  }, 60_000)
})

describe('describeStartupFailure', () => {
  it('names the credentials for an authentication failure (the server\'s error 18), with the password hidden', () => {
    const err = new MongoServerError({ ok: 0, code: 18, codeName: 'AuthenticationFailed', errmsg: 'Authentication failed.' })
    expect(describeStartupFailure(err, { mongodbUri: 'mongodb://app:s3cret@db.example:27017/stats' }))
      .toBe('MongoDB refused the credentials in MONGODB_URI (mongodb://app:***@db.example:27017/stats): authentication failed; fix the user, password or authSource in MONGODB_URI')
  })

  it('hides passwords in every URI it names', () => {
    expect(redactUri('mongodb+srv://u:p@x.net/db?w=1')).toBe('mongodb+srv://u:***@x.net/db?w=1')
    expect(describeStartupFailure(new MongoServerSelectionError('Server selection timed out', {}), { mongodbUri: 'mongodb://u:pw@h:1' })).not.toMatch(/pw/)
  })

  it('names COLLECTION_COMPRESSOR and the ways out when the server refuses to create a collection with it', () => {
    const err = Object.assign(new MongoServerError({ ok: 0, code: 2, codeName: 'BadValue', errmsg: 'unknown option storageEngine\nmore' }), { collection: { name: 'daily', compressor: 'zstd' } })
    expect(describeStartupFailure(err, {})).toBe('the database refused to create the collection daily with WiredTiger\'s block_compressor=zstd (COLLECTION_COMPRESSOR): unknown option storageEngine; ' +
      'set COLLECTION_COMPRESSOR to snappy or none, or create statbucket\'s collections yourself (existing ones are used as they are)')
    // a lost connection during the create is not a refusal
    const lost = Object.assign(new MongoServerSelectionError('Server selection timed out', {}), { collection: { name: 'daily', compressor: 'zstd' } })
    expect(describeStartupFailure(lost, { mongodbUri: 'mongodb://h:1' })).toMatch(/^cannot reach MongoDB at mongodb:\/\/h:1/)
  })

  it('names the boot step that outlived Fastify\'s plugin timeout (avvio\'s own error) and the registry', async () => {
    const hangs = fp(async () => { await new Promise(() => {}) }, { name: 'registry' })
    // buildApp awaits each register (avvio's error); ready() wraps it (Fastify's)
    const registered = await Fastify({ pluginTimeout: 20 }).register(hangs).then(() => null, e => e)
    const ready = await Fastify({ pluginTimeout: 20 }).register(hangs).ready().then(() => null, e => e)
    expect([registered?.code, ready?.code]).toEqual(['AVV_ERR_PLUGIN_EXEC_TIMEOUT', 'FST_ERR_PLUGIN_TIMEOUT'])
    for (const err of [registered, ready]) {
      expect(describeStartupFailure(err, { mongodbUri: 'mongodb://u:pw@db:27017' })).toBe(
        `the boot step "registry" did not finish in ${PLUGIN_TIMEOUT_MS / 1000} s (the registry's load grows with its entries): check that MongoDB at mongodb://u:***@db:27017 answers quickly, or delete unused metrics (docs/operations.md#boot)`)
    }
  })

  it('falls back to the first line of anything else, pointing at LOG_LEVEL=debug', () => {
    expect(describeStartupFailure(new Error('something odd\nmore'))).toBe('failed to start: something odd (LOG_LEVEL=debug shows the stack)')
  })
})
