// scripts/fuzz.js is a real CLI: --help, and exit code 2 for bad usage,
// before it starts anything. (The fuzzing itself is a CI step: schemathesis
// comes from PyPI.)
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const SCRIPT = fileURLToPath(new URL('../../scripts/fuzz.js', import.meta.url))
const run = args => new Promise(resolve => {
  execFile(process.execPath, [SCRIPT, ...args], { timeout: 20_000 }, (err, stdout, stderr) => resolve({ code: err ? err.code : 0, stdout, stderr }))
})

describe('scripts/fuzz.js', () => {
  it('prints its help with exit 0, and exits 2 with a message on a bad flag', async () => {
    const help = await run(['--help'])
    expect(help.code).toBe(0)
    expect(help.stdout).toMatch(/schemathesis/)
    expect(help.stdout).toMatch(/--min-requests/)
    const bad = await run(['--max-examples', 'many'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/--max-examples must be a whole number/)
    expect((await run(['--no-such-flag'])).code).toBe(2)
  })
})
