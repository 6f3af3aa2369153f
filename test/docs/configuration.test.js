// docs/configuration.md names every environment variable the service reads,
// and only those: the variables are read from src/ (`env.NAME`,
// `process.env.NAME`, `integer(env, 'NAME', …)`), the documented ones are
// the backticked names in the first cell of the page's tables. A variable the
// CHANGELOG's Unreleased section lists under "Removed" is documented no more
// while the code that still reads it awaits its own change.
import { readFileSync, readdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = resolve(import.meta.dirname, '../..')
const NOT_OURS = /^(PATH|MONGOMS_.*)$/ // the shell's, and mongodb-memory-server's own

function sources (dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap(e =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.js') ? [join(dir, e.name)] : [])
}

/** Variables read by the service: name → first file:line */
function variablesRead () {
  const read = new Map()
  for (const file of sources(join(ROOT, 'src'))) {
    for (const [i, line] of readFileSync(file, 'utf8').split('\n').entries()) {
      for (const m of line.matchAll(/\benv\.([A-Z][A-Z0-9_]+)|\benv\[['"]([A-Z][A-Z0-9_]+)['"]\]|\(env, '([A-Z][A-Z0-9_]+)'/g)) {
        const name = m[1] ?? m[2] ?? m[3]
        if (!NOT_OURS.test(name) && !read.has(name)) read.set(name, `${file.slice(ROOT.length + 1)}:${i + 1}`)
      }
    }
  }
  return read
}

function documented () {
  const text = readFileSync(join(ROOT, 'docs/configuration.md'), 'utf8')
  return [...text.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \|/gm)].map(m => m[1])
}

function announcedRemoved () {
  const text = readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8')
  const unreleased = text.slice(text.indexOf('## Unreleased'), text.indexOf('\n## ', text.indexOf('## Unreleased') + 1))
  const removed = unreleased.slice(unreleased.indexOf('### Removed'))
  return unreleased.includes('### Removed') ? [...removed.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map(m => m[1]) : []
}

describe('docs/configuration.md', () => {
  const read = variablesRead()
  const docs = documented()
  const removed = announcedRemoved()

  it('finds the variables', () => {
    expect(read.size).toBeGreaterThan(40)
    expect(read.has('STATBUCKET_EMBEDDED') && read.has('STATBUCKET_DATA_DIR')).toBe(true)
    expect(docs.filter((n, i) => docs.indexOf(n) !== i), 'documented twice').toEqual([])
  })

  it('documents every variable the service reads', () => {
    const missing = [...read].filter(([name]) => !docs.includes(name) && !removed.includes(name)).map(([name, where]) => `${name} (${where})`)
    expect(missing).toEqual([])
  })

  it('documents no variable the service does not read, nor one the CHANGELOG removes', () => {
    expect(docs.filter(name => !read.has(name))).toEqual([])
    expect(docs.filter(name => removed.includes(name))).toEqual([])
  })
})
