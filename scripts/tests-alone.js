#!/usr/bin/env node
// Runs every test of the suite alone (`vitest run FILE -t NAME`), two at a
// time, on one embedded database started once (TEST_MONGODB_URI), and lists
// those that fail alone or that the name does not select. Slow (a vitest
// start per test): a check to run before a release, not part of `npm test`.
//   node scripts/tests-alone.js [--match SUBSTRING] [--jobs 2]
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs, promisify } from 'node:util'
import { startEmbeddedMongo } from '../src/db/embedded.js'

const run = promisify(execFile)
const { values: opts } = parseArgs({ options: { match: { type: 'string', default: '' }, jobs: { type: 'string', default: '2' } } })
const escape = text => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
const dir = mkdtempSync(join(tmpdir(), 'statbucket-alone-'))
const quiet = { info () {}, warn () {}, debug () {}, error: (o, m) => console.error(m ?? o) }
const db = await startEmbeddedMongo({ persistent: false, logger: quiet })
const env = { ...process.env, TEST_MONGODB_URI: db.uri }

try {
  const listFile = join(dir, 'list.json')
  await run('npx', ['vitest', 'list', `--json=${listFile}`], { env, maxBuffer: 64 * 1024 * 1024 })
  const tests = JSON.parse(readFileSync(listFile, 'utf8')).filter(t => `${t.file} ${t.name}`.includes(opts.match))
  console.log(`${tests.length} tests, each alone, ${opts.jobs} at a time, on ${db.backend} at ${db.uri}`)
  const failures = []
  let next = 0
  let done = 0
  async function worker (w) {
    while (next < tests.length) {
      const test = tests[next++]
      const out = join(dir, `result-${w}.json`)
      // vitest matches -t against the names of the test and its describe blocks joined by spaces
      const pattern = `^${escape(test.name.split(' > ').join(' '))}$`
      let result = null
      rmSync(out, { force: true }) // never read the previous test's answer
      try {
        await run('npx', ['vitest', 'run', test.file, '-t', pattern, '--reporter=json', `--outputFile=${out}`], { env, maxBuffer: 64 * 1024 * 1024 })
        result = JSON.parse(readFileSync(out, 'utf8'))
      } catch (err) {
        try { result = JSON.parse(readFileSync(out, 'utf8')) } catch { result = null }
        if (!result) failures.push({ test, why: `vitest failed: ${String(err.stderr ?? err.message).split('\n').slice(-5).join(' ')}` })
      }
      if (result) {
        if (result.numFailedTests > 0) failures.push({ test, why: 'failed alone' })
        else if (result.numPassedTests + result.numPendingTests === 0) failures.push({ test, why: 'the name selected no test' })
      }
      done++
      if (done % 25 === 0) console.log(`  ${done}/${tests.length}, ${failures.length} failing`)
    }
  }
  await Promise.all(Array.from({ length: Number(opts.jobs) }, (_, w) => worker(w)))
  for (const { test, why } of failures) console.log(`FAIL ${test.file.replace(process.cwd() + '/', '')} › ${test.name}: ${why}`)
  console.log(`${tests.length - failures.length} passed alone, ${failures.length} failed`)
  process.exitCode = failures.length ? 1 : 0
} finally {
  await db.stop()
  rmSync(dir, { recursive: true, force: true })
}
