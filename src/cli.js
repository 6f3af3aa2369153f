// The one skeleton of every command line (npm run check, retention, loadgen,
// bench; scripts/shard.js, fuzz.js, tests-alone.js): flags parsed by
// node:util parseArgs with a bad flag as a UsageError, --help printing the
// usage text, `name: message` and `See --help.` on a usage error, and one
// meaning for the exit codes. No dependency: it runs in the image too.
import { realpathSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'

/** Exit codes: the command did its work, found a problem (or failed), was used wrongly */
export const EXIT = Object.freeze({ OK: 0, PROBLEM: 1, USAGE: 2 })

/**
 * Bad usage: exit code 2. seeHelp: false where --help would not help (a bad
 * environment variable, a missing program).
 */
export class UsageError extends Error {
  constructor (message, { seeHelp = true } = {}) {
    super(message)
    this.name = 'UsageError'
    this.seeHelp = seeHelp
  }
}

/**
 * argv (without node and the script) → { values, positionals } by
 * node:util parseArgs, strict, with --help/-h added; an unknown flag, a
 * missing value or an unexpected positional throws a UsageError.
 */
export function parseFlags (argv, options, { allowPositionals = false } = {}) {
  try {
    return parseArgs({ args: argv, options: { ...options, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals })
  } catch (err) {
    throw new UsageError(err.message)
  }
}

/** The number a flag's text gives, which must be positive; fallback when the flag is absent */
export function positiveFlag (name, text, fallback) {
  if (text === undefined) return fallback
  const n = Number(text)
  if (!/^\d+(\.\d+)?$/.test(text) || !(n > 0)) throw new UsageError(`--${name} must be a positive number, got ${JSON.stringify(text)}`)
  return n
}

/** `name: message` and, unless seeHelp is false, `See --help.`: the text of a usage error */
export function usageText (name, err) {
  return `${name}: ${err.message}\n${err.seeHelp === false ? '' : 'See --help.\n'}`
}

/**
 * A command: name (its messages' prefix), usage (the --help text),
 * parse(argv, io) → options ({ help: true } for --help; throws UsageError),
 * run(options, io) → exit code (may throw UsageError too); badSettings: the
 * error classes of a bad environment variable (such as the service's
 * ConfigError), bad usage too but without "See --help.".
 * → main(argv, io) → exit code: the usage text and 0 for --help, the usage
 * error and 2. io: { out, err, env } (default the process's) and whatever
 * else the command takes, plus argv. Anything else thrown is the caller's.
 */
export function defineCommand ({ name, usage, parse, run, badSettings = [] }) {
  return async function main (argv = process.argv.slice(2), io = {}) {
    const context = { out: process.stdout, err: process.stderr, env: process.env, ...io, argv }
    try {
      const options = await parse(argv, context)
      if (options.help) {
        context.out.write(usage)
        return EXIT.OK
      }
      return await run(options, context)
    } catch (err) {
      const badSetting = badSettings.some(kind => err instanceof kind)
      if (!(err instanceof UsageError) && !badSetting) throw err
      context.err.write(usageText(name, badSetting ? new UsageError(err.message, { seeHelp: false }) : err))
      return EXIT.USAGE
    }
  }
}

/** Whether the module at `url` (its import.meta.url) is the one node was started with */
export function isMain (url, argv1 = process.argv[1]) {
  if (!argv1) return false
  let file = argv1
  try { file = realpathSync(argv1) } catch {}
  return url === pathToFileURL(file).href
}

/**
 * When `url` is the main module: runs main on the process's arguments and
 * sets the exit code; an unexpected error is `name: stack` and exit 1.
 * exit: end the process at once (for a command whose leftovers, such as a
 * database client, would keep it running).
 */
export function runIfMain (url, name, main, { exit = false } = {}) {
  if (!isMain(url)) return
  const done = code => {
    if (exit) process.exit(code)
    process.exitCode = code
  }
  main(process.argv.slice(2)).then(done, err => {
    process.stderr.write(`${name}: ${err?.stack ?? err}\n`)
    done(EXIT.PROBLEM)
  })
}
