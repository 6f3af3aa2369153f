// The maintenance commands on the quick-start setup (no variable set): with
// no statbucket running they open the embedded database themselves (and let
// it go), while one runs they reach its database through the address it
// published; a kill -9 leaves an address whose process is gone, which is
// ignored.
import { execFile, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ensureJavaServerBuilt } from '../../src/db/java-server.js'
import { publishEmbeddedAddress, readEmbeddedAddress } from '../../src/db/embedded-address.js'
import { request, startStatbucket } from '../faults/harness.js'

const CHECK = fileURLToPath(new URL('../../src/jobs/check-command.js', import.meta.url))
const RETENTION = fileURLToPath(new URL('../../src/jobs/retention-command.js', import.meta.url))
const cleanups = []

beforeAll(async () => { await ensureJavaServerBuilt({ buildTimeoutMs: 170_000 }) }, 180_000)
afterAll(async () => { while (cleanups.length) await cleanups.pop()().catch(() => {}) })

/** A data directory of the test's own (each test passes alone and in any order) */
function newDataDir () {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'statbucket-quickstart-'))
  cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

// the quick-start environment: nothing set but where the data lives
function run (script, args, dataDir) {
  return new Promise(resolve => {
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, STATBUCKET_EMBEDDED: 'java', STATBUCKET_DATA_DIR: dataDir }
    execFile(process.execPath, [script, ...args], { env, timeout: 90_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? error.code : 0, stdout, stderr }))
  })
}

describe('npm run check and npm run retention with no variable set', () => {
  it('open the embedded database themselves when no statbucket runs, and release it', async () => {
    const dataDir = newDataDir()
    const check = await run(CHECK, [], dataDir)
    expect(check.stderr).toMatch(/^check: using the embedded database in .+ \(mongo-java-server; opened for this command, no statbucket runs on it\)$/m)
    expect(check.stdout).toBe('checked 0 monthly and 0 daily documents: 0 violations\n')
    expect(check.code).toBe(0)
    const retention = await run(RETENTION, ['--once'], dataDir)
    expect(retention.stderr).toMatch(/^retention: using the embedded database in .+opened for this command/m)
    expect(retention.stdout).toMatch(/^retention done: 0 metrics/)
    expect(retention.code).toBe(0)
    expect(readEmbeddedAddress(dataDir)).toBe(null) // they took their address with them
  }, 120_000)

  it('reach the database of the statbucket that runs on the data directory, and find what it stored', async () => {
    const dataDir = newDataDir()
    const sb = await startStatbucket({ STATBUCKET_EMBEDDED: 'java', STATBUCKET_DATA_DIR: dataDir }, { startTimeoutMs: 60_000 })
    cleanups.push(() => sb.stop())
    const posted = await request(sb.port, { method: 'POST', path: '/v1/events', body: [{ metric: 'qs.a', value: 5 }, { metric: 'qs.b', value: 7 }] })
    expect(posted.status).toBe(200)

    const check = await run(CHECK, [], dataDir)
    expect(check.stderr).toMatch(new RegExp(`^check: using the embedded database of the statbucket running on .+ \\(mongodb://127\\.0\\.0\\.1:\\d+, pid ${sb.pid}\\)$`, 'm'))
    expect(check.stdout).toBe('checked 2 monthly and 2 daily documents: 0 violations\n')
    expect(check.code).toBe(0)
    const retention = await run(RETENTION, ['--once'], dataDir)
    expect(retention.stdout).toMatch(/^retention done: 2 metrics/)
    expect(retention.code).toBe(0)

    const minute = 60_000
    const to = Math.ceil((Date.now() + 1) / minute) * minute
    const total = await request(sb.port, { path: `/v1/metrics/qs.b/total?from=${to - 86_400_000}&to=${to}` })
    expect(total.body).toMatchObject({ metric: 'qs.b', total: 7 })
    await sb.stop({ signal: 'SIGTERM' })
  }, 120_000)
})

describe('the published address', () => {
  it('is ignored when its process has gone (kill -9), malformed, or not on loopback', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'statbucket-address-'))
    try {
      const gone = spawnSync(process.execPath, ['-e', '0']).pid // a pid that has exited
      publishEmbeddedAddress(dir, { uri: 'mongodb://127.0.0.1:4242', backend: 'mongod' }, gone)
      expect(readEmbeddedAddress(dir)).toBe(null)
      const remove = publishEmbeddedAddress(dir, { uri: 'mongodb://127.0.0.1:4242', backend: 'mongod' })
      expect(readEmbeddedAddress(dir)).toEqual({ uri: 'mongodb://127.0.0.1:4242', backend: 'mongod', pid: process.pid })
      remove()
      expect(readEmbeddedAddress(dir)).toBe(null)
      publishEmbeddedAddress(dir, { uri: 'mongodb://db.example:27017', backend: 'mongod' })
      expect(readEmbeddedAddress(dir)).toBe(null)
      fs.writeFileSync(path.join(dir, 'embedded-address.json'), '{"uri":')
      expect(readEmbeddedAddress(dir)).toBe(null)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
