// The docs stay a reference one can read: all Markdown of the repository
// (node_modules aside) at most 150 KB (docs/adr/0054-docs-budget-grows-with-the-doors.md), and the pages read first smaller.
import { execFileSync } from 'node:child_process'
import { statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = resolve(import.meta.dirname, '../..')
const LIMITS = { 'README.md': 12_000, 'docs/architecture.md': 15_000, 'docs/benchmarks.md': 15_000 }

const markdown = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '--', '*.md'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n').filter(f => f && !f.startsWith('node_modules/') && !f.includes('/node_modules/') && !f.startsWith('java/mongo-java-server/target/'))
const size = file => statSync(join(ROOT, file)).size

describe('the size of the docs', () => {
  it('all Markdown together: at most 150 KB', () => {
    expect(markdown).toEqual(expect.arrayContaining(Object.keys(LIMITS)))
    const total = markdown.reduce((n, f) => n + size(f), 0)
    expect(total, markdown.map(f => `${f} ${size(f)}`).join('\n')).toBeLessThanOrEqual(150_000)
  })

  it.each(Object.entries(LIMITS))('%s: at most %i bytes', (file, limit) => {
    expect(size(file)).toBeLessThanOrEqual(limit)
  })
})
