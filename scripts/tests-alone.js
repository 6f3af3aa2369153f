#!/usr/bin/env node
// Runs every test of the suite alone (`vitest run FILE -t NAME`, in its
// project), two at a time, on one embedded database started once
// (TEST_MONGODB_URI) when a project that needs it is run, and lists those
// that fail alone or that the name does not select. Slow (a vitest
// start per test): a check to run before a release, not part of `npm test`.
// `npm run test:alone -- --help` for usage.
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { EXIT, UsageError, defineCommand, parseFlags, runIfMain } from '../src/cli.js'
import { startEmbeddedMongo } from '../src/db/embedded.js'
import { PROJECTS } from '../vitest.config.js'

const HELP = `Usage: npm run test:alone -- [options]

Runs every test of the suite alone (vitest run FILE -t NAME) on one embedded
database started once, and lists those that fail alone or that their name
does not select. Slow: a vitest start per test.

Options:
  --match TEXT   only the tests whose file and name contain TEXT
  --project NAME only the tests of a project of vitest.config.js (${Object.keys(PROJECTS).join(', ')})
  --jobs N       tests run at a time (default 2)
  --help         this text

Exit codes: 0 every test passed alone, 1 some did not, 2 bad usage.
`

function parse (argv) {
  const { values } = parseFlags(argv, { match: { type: 'string', default: '' }, project: { type: 'string' }, jobs: { type: 'string', default: '2' } })
  if (values.help) return { help: true }
  if (!/^[1-9]\d*$/.test(values.jobs)) throw new UsageError(`--jobs must be a whole number from 1, got ${JSON.stringify(values.jobs)}`)
  if (values.project !== undefined && !Object.hasOwn(PROJECTS, values.project)) throw new UsageError(`--project must be one of ${Object.keys(PROJECTS).join(', ')}, got ${JSON.stringify(values.project)}`)
  return { match: values.match, project: values.project ?? null, jobs: Number(values.jobs) }
}

const execute = promisify(execFile)
const escape = text => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

async function run (opts) {
  const quiet = { info () {}, warn () {}, debug () {}, error: (o, m) => console.error(m ?? o) }
  // the suite's database only for a run of projects that need it (vitest.config.js)
  const needsDatabase = opts.project === null || PROJECTS[opts.project].database === true
  const db = needsDatabase ? await startEmbeddedMongo({ persistent: false, logger: quiet }) : null
  const dir = mkdtempSync(join(tmpdir(), 'statbucket-alone-'))
  const env = db ? { ...process.env, TEST_MONGODB_URI: db.uri } : process.env
  const project = opts.project === null ? [] : ['--project', opts.project]
  try {
    const listFile = join(dir, 'list.json')
    await execute('npx', ['vitest', 'list', ...project, `--json=${listFile}`], { env, maxBuffer: 64 * 1024 * 1024 })
    const tests = JSON.parse(readFileSync(listFile, 'utf8')).filter(t => `${t.file} ${t.name}`.includes(opts.match))
    console.log(`${tests.length} tests, each alone, ${opts.jobs} at a time, ${db ? `on ${db.backend} at ${db.uri}` : 'without the suite\'s database'}`)
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
          await execute('npx', ['vitest', 'run', '--project', test.projectName, test.file, '-t', pattern, '--reporter=json', `--outputFile=${out}`], { env, maxBuffer: 64 * 1024 * 1024 })
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
    await Promise.all(Array.from({ length: opts.jobs }, (_, w) => worker(w)))
    for (const { test, why } of failures) console.log(`FAIL ${test.file.replace(process.cwd() + '/', '')} › ${test.name}: ${why}`)
    console.log(`${tests.length - failures.length} passed alone, ${failures.length} failed`)
    return failures.length ? EXIT.PROBLEM : EXIT.OK
  } finally {
    await db?.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

export const main = defineCommand({ name: 'tests-alone', usage: HELP, parse, run })

runIfMain(import.meta.url, 'tests-alone', main)
