// Every citation of the docs resolves: a path under docs/ ending in .md
// names a file that exists, and its #anchor a heading of that file (GitHub's
// slugs); `ADR` and a four-digit number name a record of docs/adr/; a
// heading cited by its title in quotes after a page (or after README) is a
// heading of that page. A failure names the file and line of each citation
// that does not resolve.
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { dirname, join, resolve, sep } from 'node:path'
import { describe, expect, it } from 'vitest'
import { anchorsOf, slug } from '../helpers/markdown.js'

const ROOT = resolve(import.meta.dirname, '../..')
const SCANNED = ['src', 'scripts', 'test', 'docs', 'README.md', 'DEVELOPERS.md', 'CHANGELOG.md']
const TEXT = /\.(js|mjs|cjs|md|py|sh|toml|ya?ml|json|html|css)$|^\.ci\/run$/

const records = readdirSync(join(ROOT, 'docs/adr')).filter(f => /^\d{4}-.+\.md$/.test(f))
const anchorCache = new Map()
const anchors = file => {
  if (!anchorCache.has(file)) anchorCache.set(file, anchorsOf(join(ROOT, file)))
  return anchorCache.get(file)
}

/** What is wrong with one citation of `page` (a path from the repository's root), or null */
function problem (page, anchor, title) {
  if (!existsSync(join(ROOT, page))) return `${page}: no such file`
  if (anchor && !anchors(page).has(anchor)) return `${page}#${anchor}: no heading with that anchor`
  if (title !== undefined && ![...anchors(page)].some(a => a.startsWith(slug(title)))) return `${page}, "${title}": no heading with that title`
  return null
}

/** Every citation that does not resolve, as "file:line: what" */
function unresolved (files) {
  const found = []
  for (const file of files) {
    for (const [i, line] of readFileSync(join(ROOT, file), 'utf8').split('\n').entries()) {
      const at = `${file}:${i + 1}`
      for (const m of line.matchAll(/(?<![\w./-])(docs\/[\w./-]*?\.md)(?:#([\w-]+))?(?:,? "([^"]+)")?/g)) {
        const p = problem(m[1], m[2], m[3])
        if (p) found.push(`${at}: ${p}`)
      }
      for (const m of line.matchAll(/\bREADME(?:\.md)?,? "([^"]+)"/g)) {
        const p = problem('README.md', undefined, m[1])
        if (p) found.push(`${at}: ${p}`)
      }
      for (const m of line.matchAll(/\bADR (\d{4})\b/g)) {
        if (!records.some(r => r.startsWith(`${m[1]}-`))) found.push(`${at}: ADR ${m[1]}: no such record in docs/adr/`)
      }
    }
  }
  return found
}

function filesUnder (roots) {
  return execFileSync('git', ['ls-files', '-co', '--exclude-standard', '--', ...roots], { cwd: ROOT, encoding: 'utf8' })
    .split('\n').filter(f => f && TEXT.test(f) && existsSync(join(ROOT, f)) && !f.startsWith('node_modules/'))
}

describe('citations of the docs', () => {
  const files = filesUnder(SCANNED)

  it('are found where they are', () => {
    expect(files).toEqual(expect.arrayContaining(['README.md', 'docs/adr/README.md', 'src/config.js', 'scripts/bench/bench.js', 'test/docs/folder-map.test.js']))
    expect(unresolved(['docs/adr/README.md']).length).toBe(0)
  })

  it('resolve: the file, the record, the heading', () => {
    expect(unresolved(files)).toEqual([])
  })

  it('point at nothing outside the repository (the workplace\'s shared/ folder included)', () => {
    const outside = []
    for (const file of files) {
      for (const [i, line] of readFileSync(join(ROOT, file), 'utf8').split('\n').entries()) {
        for (const [path] of line.matchAll(/(?:\.\.\/)+shared\b/g)) {
          if (!resolve(ROOT, dirname(file), path).startsWith(ROOT + sep)) outside.push(`${file}:${i + 1}: ${path}`)
        }
      }
    }
    expect(outside).toEqual([])
  })

  it('reach every record from the index, and every superseded record to its successor', () => {
    const index = readFileSync(join(ROOT, 'docs/adr/README.md'), 'utf8')
    expect(records.filter(r => !index.includes(`(${r})`))).toEqual([])
    for (const r of records) {
      const text = readFileSync(join(ROOT, 'docs/adr', r), 'utf8')
      const status = /^- Status: (.+)$/m.exec(text)?.[1]
      expect(status, r).toMatch(/^(accepted|superseded by \d{4}( and \d{4})*)$/)
      for (const [, n] of status.matchAll(/(\d{4})/g)) expect(text, `${r} links its successor ${n}`).toMatch(new RegExp(`\\(${n}-[\\w-]+\\.md\\)`))
      expect(text.split('\n').length, `${r}: at most 60 lines`).toBeLessThanOrEqual(61)
      expect(text, r).toMatch(/^- Date: \d{4}-\d{2}-\d{2}$/m)
      for (const part of ['## Context', '## Decision', '## Consequences']) expect(text, r).toContain(part)
    }
  })
})
