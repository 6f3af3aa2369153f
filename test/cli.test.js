// The command-line skeleton every command shares (src/cli.js): flags, --help,
// usage errors and the exit codes, in-process and as a real process.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { EXIT, UsageError, defineCommand, isMain, parseFlags, positiveFlag } from '../src/cli.js'
import { runNode } from './helpers/run-node.js'

/** A stream that keeps what is written to it */
function sink () {
  const chunks = []
  return { write: chunk => { chunks.push(chunk); return true }, text: () => chunks.join('') }
}

const USAGE = 'Usage: demo [--count N]\n'
class SettingError extends Error {}
const demo = defineCommand({
  name: 'demo',
  usage: USAGE,
  badSettings: [SettingError],
  parse (argv) {
    const { values } = parseFlags(argv, { count: { type: 'string' }, fail: { type: 'string' } })
    if (values.help) return { help: true }
    return { count: positiveFlag('count', values.count, 1), fail: values.fail }
  },
  run ({ count, fail }, { out, argv }) {
    if (fail === 'usage') throw new UsageError('the server disagrees', { seeHelp: false })
    if (fail === 'setting') throw new SettingError('DEMO_LIMIT: must be a whole number')
    if (fail === 'crash') throw new Error('boom')
    out.write(`count ${count} from ${argv.join(' ')}\n`)
    return count > 1 ? EXIT.PROBLEM : EXIT.OK
  }
})

async function call (...argv) {
  const out = sink()
  const err = sink()
  const code = await demo(argv, { out, err })
  return { code, stdout: out.text(), stderr: err.text() }
}

describe('parseFlags', () => {
  it('adds --help and -h, and makes every parseArgs refusal a UsageError', () => {
    expect(parseFlags(['--help'], {}).values.help).toBe(true)
    expect(parseFlags(['-h'], {}).values.help).toBe(true)
    expect(parseFlags(['--n', '3'], { n: { type: 'string' } }).values).toEqual({ n: '3' })
    expect(() => parseFlags(['--nope'], {})).toThrow(UsageError)
    expect(() => parseFlags(['--nope'], {})).toThrow(/Unknown option '--nope'/)
    expect(() => parseFlags(['--n'], { n: { type: 'string' } })).toThrow(UsageError)
    expect(() => parseFlags(['extra'], {})).toThrow(UsageError)
    expect(parseFlags(['extra'], {}, { allowPositionals: true }).positionals).toEqual(['extra'])
  })

  it('takes a positive number, or the fallback when the flag is absent', () => {
    expect(positiveFlag('rate', '2.5', 1)).toBe(2.5)
    expect(positiveFlag('rate', undefined, Infinity)).toBe(Infinity)
    for (const bad of ['0', '-1', 'x', '1e3', '']) expect(() => positiveFlag('rate', bad, 1)).toThrow(/--rate must be a positive number/)
  })
})

describe('defineCommand', () => {
  it('prints the usage text for --help with exit 0, and runs nothing', async () => {
    expect(await call('--help')).toEqual({ code: EXIT.OK, stdout: USAGE, stderr: '' })
    expect(await call('-h', '--count', '0')).toMatchObject({ code: EXIT.OK, stdout: USAGE })
  })

  it('returns the exit code of the run, which sees the arguments', async () => {
    expect(await call('--count', '1')).toEqual({ code: EXIT.OK, stdout: 'count 1 from --count 1\n', stderr: '' })
    expect((await call('--count', '3')).code).toBe(EXIT.PROBLEM)
  })

  it('answers a usage error with `name: message`, See --help. and exit 2', async () => {
    expect(await call('--bogus')).toEqual({ code: EXIT.USAGE, stdout: '', stderr: "demo: Unknown option '--bogus'\nSee --help.\n" })
    expect(await call('--count', 'many')).toEqual({ code: EXIT.USAGE, stdout: '', stderr: 'demo: --count must be a positive number, got "many"\nSee --help.\n' })
    // from the run, where --help would not help
    expect(await call('--fail', 'usage')).toEqual({ code: EXIT.USAGE, stdout: '', stderr: 'demo: the server disagrees\n' })
  })

  it('answers a bad setting (one of badSettings) as bad usage, without See --help.', async () => {
    expect(await call('--fail', 'setting')).toEqual({ code: EXIT.USAGE, stdout: '', stderr: 'demo: DEMO_LIMIT: must be a whole number\n' })
  })

  it('leaves any other error to its caller', async () => {
    await expect(call('--fail', 'crash')).rejects.toThrow('boom')
  })
})

describe('as the main module', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'statbucket-cli-'))
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
  const cli = pathToFileURL(path.resolve('src/cli.js')).href
  const script = path.join(dir, 'demo.js')
  fs.writeFileSync(script, `import { defineCommand, parseFlags, runIfMain } from ${JSON.stringify(cli)}
export const main = defineCommand({
  name: 'demo',
  usage: 'Usage: demo\\n',
  parse: argv => parseFlags(argv, {}).values,
  run: (options, { env, out }) => {
    if (env.DEMO_CRASH) throw new Error('boom')
    out.write('ran\\n')
    return 0
  }
})
runIfMain(import.meta.url, 'demo', main)
`)

  it('knows the file node was started with', () => {
    expect(isMain(pathToFileURL(script).href, script)).toBe(true)
    expect(isMain(cli, script)).toBe(false)
    expect(isMain(cli, undefined)).toBe(false)
  })

  it('exits 0 for --help, 2 for a bad flag, 1 for an unexpected error, and runs nothing when imported', async () => {
    expect(await runNode(script, [])).toEqual({ code: 0, stdout: 'ran\n', stderr: '' })
    expect(await runNode(script, ['--help'])).toEqual({ code: 0, stdout: 'Usage: demo\n', stderr: '' })
    expect(await runNode(script, ['--bogus'])).toEqual({ code: 2, stdout: '', stderr: "demo: Unknown option '--bogus'\nSee --help.\n" })
    const crash = await runNode(script, [], { env: { ...process.env, DEMO_CRASH: '1' } })
    expect(crash.code).toBe(1)
    expect(crash.stderr).toMatch(/^demo: Error: boom\n {4}at /)
    const imported = await runNode('--input-type=module', ['-e', `await import(${JSON.stringify(pathToFileURL(script).href)})`])
    expect(imported).toEqual({ code: 0, stdout: '', stderr: '' })
  })
})
