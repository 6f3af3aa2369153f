// The docs stay a reference one can read (docs/adr/0072-decision-records-outside-the-docs-budget.md):
// every Markdown file but the decision records (node_modules aside) at most
// 105 KB together, the pages read first smaller; each record small, since
// records are never deleted (docs/adr/0047-docs-are-reference.md).
import { execFileSync } from 'node:child_process'
import { readFileSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = resolve(import.meta.dirname, '../..')
const LIMITS = { 'README.md': 12_000, 'docs/architecture.md': 15_000, 'docs/benchmarks.md': 15_000 }
const REFERENCE_BYTES = 105_000
const RECORD_BYTES = 1_600
const RECORD_LINES = 60

const markdown = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '--', '*.md'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n').filter(f => f && !f.startsWith('node_modules/') && !f.includes('/node_modules/') && !f.startsWith('java/mongo-java-server/target/'))
const size = file => statSync(join(ROOT, file)).size
const isRecord = file => /^docs\/adr\/\d{4}-[a-z0-9-]+\.md$/.test(file)
const reference = markdown.filter(f => !f.startsWith('docs/adr/'))
const records = markdown.filter(isRecord)

describe('the size of the docs', () => {
  it(`the reference (every page but the decision records): at most ${REFERENCE_BYTES} bytes together`, () => {
    expect(reference).toEqual(expect.arrayContaining(Object.keys(LIMITS)))
    const total = reference.reduce((n, f) => n + size(f), 0)
    expect(total, reference.map(f => `${f} ${size(f)}`).join('\n')).toBeLessThanOrEqual(REFERENCE_BYTES)
  })

  it(`each decision record: at most ${RECORD_LINES} lines and ${RECORD_BYTES} bytes; docs/adr holds records and their index only`, () => {
    expect(records.length).toBeGreaterThan(50)
    expect(markdown.filter(f => f.startsWith('docs/adr/') && !isRecord(f))).toEqual(['docs/adr/README.md'])
    for (const record of records) {
      expect(size(record), record).toBeLessThanOrEqual(RECORD_BYTES)
      expect(readFileSync(join(ROOT, record), 'utf8').split('\n').length, record).toBeLessThanOrEqual(RECORD_LINES + 1)
    }
  })

  it.each(Object.entries(LIMITS))('%s: at most %i bytes', (file, limit) => {
    expect(size(file)).toBeLessThanOrEqual(limit)
  })
})
