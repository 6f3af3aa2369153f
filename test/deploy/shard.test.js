// scripts/shard.js: --dry-run prints the commands; a real run refuses
// anything that is not a mongos.
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { mongodbUri } from '../helpers/test-app.js'

const script = fileURLToPath(new URL('../../scripts/shard.js', import.meta.url))

async function run (args, env = {}) {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [script, ...args], { env: { PATH: process.env.PATH, ...env }, timeout: 20_000 })
    return { code: 0, stdout, stderr }
  } catch (err) {
    return { code: err.code, stdout: err.stdout, stderr: err.stderr }
  }
}

describe('scripts/shard.js', () => {
  it('--dry-run prints the sharding commands for every kind\'s day and month collections on { _id: 1 } and sends nothing', async () => {
    const { code, stdout } = await run(['--dry-run', '--uri', 'mongodb://admin:secret@mongos.example:27017'])
    expect(code).toBe(0)
    expect(stdout.trim().split('\n')).toEqual([
      '// dry run: nothing is sent. Through a mongos (mongodb://***@mongos.example:27017), e.g. mongosh "<uri>":',
      'db.adminCommand({ enableSharding: "statbucket" })  // sh.enableSharding("statbucket")',
      'db.adminCommand({ shardCollection: "statbucket.daily", key: { _id: 1 } })  // sh.shardCollection("statbucket.daily", { _id: 1 })',
      'db.adminCommand({ shardCollection: "statbucket.monthly", key: { _id: 1 } })  // sh.shardCollection("statbucket.monthly", { _id: 1 })',
      ...['distributionDaily', 'distributionMonthly', 'distributionMinutes', 'gaugeDaily', 'gaugeMonthly'].map(name =>
        `db.adminCommand({ shardCollection: "statbucket.${name}", key: { _id: 1 } })  // sh.shardCollection("statbucket.${name}", { _id: 1 })`)
    ])
    // the collections the service writes are the ones sharded (the registry, small, stays unsharded)
    // every kind's documents; the registry, the rollups' and the SLOs' few records stay unsharded
    const { KIND_COLLECTIONS } = await import('../../src/kinds/index.js')
    const written = [...KIND_COLLECTIONS].sort()
    const sharded = stdout.trim().split('\n').map(l => /shardCollection: "statbucket\.(\w+)"/.exec(l)?.[1]).filter(Boolean).sort()
    expect(sharded).toEqual(written)
    expect(stdout).not.toContain('secret')
  })

  it('--dry-run follows --db / MONGODB_DB and the flat layout', async () => {
    const { code, stdout } = await run(['--dry-run', '--layout', 'flat'], { MONGODB_DB: 'metrics_prod' })
    expect(code).toBe(0)
    expect(stdout).toContain('db.adminCommand({ enableSharding: "metrics_prod" })')
    expect(stdout).toContain('db.adminCommand({ shardCollection: "metrics_prod.daily_flat", key: { _id: 1 } })')
    expect(stdout).toContain('db.adminCommand({ shardCollection: "metrics_prod.monthly", key: { _id: 1 } })')
  })

  it('has --help and usage errors with exit code 2', async () => {
    const help = await run(['--help'])
    expect(help.code).toBe(0)
    expect(help.stdout).toMatch(/^Usage: node scripts\/shard\.js --uri MONGOS_URI/)
    expect((await run([])).code).toBe(2)
    expect((await run(['--dry-run', '--layout', 'wide'])).code).toBe(2)
    const unknown = await run(['--frobnicate'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain('--help')
  })

  it('refuses a server that is not a mongos, with exit code 1', async () => {
    const { code, stderr } = await run(['--uri', mongodbUri()])
    expect(code).toBe(1)
    expect(stderr).toMatch(/is not a mongos/)
  })
})
