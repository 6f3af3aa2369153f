// The tags side-by-side tool's command line (scripts/bench/tags-side-by-side.js):
// its usage, and a bad size refused with exit code 2 before any database starts.
import { describe, expect, it } from 'vitest'
import { main } from '../../../scripts/bench/tags-side-by-side.js'

const io = () => {
  const text = { out: '', err: '' }
  return { text, io: { out: { write: s => { text.out += s } }, err: { write: s => { text.err += s } } } }
}

describe('tags side-by-side', () => {
  it('prints its usage with --help', async () => {
    const { text, io: streams } = io()
    expect(await main(['--help'], streams)).toBe(0)
    expect(text.out).toMatch(/--base DIR/)
    expect(text.out).toMatch(/--profile/)
  })

  it('refuses a size that is not a positive number, naming the flag, with exit code 2', async () => {
    for (const [flag, value] of [['--rounds', '0'], ['--names=-1', null], ['--busy', 'many'], ['--seconds', '0']]) {
      const { text, io: streams } = io()
      expect(await main(value === null ? [flag] : [flag, value], streams)).toBe(2)
      expect(text.err).toMatch(new RegExp(`${flag.split('=')[0]} must be a positive number`))
    }
  })
})
