// The bench's writer of docs/benchmarks.md (scripts/bench/bench-docs.js):
// string in, string out; the page's own markers are where it writes.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { LATEST_END, LATEST_START, latestRunSection, markersOf, writeLatestRun, writeSection } from '../../../scripts/bench/bench-docs.js'
import { renderMarkdown } from '../../../scripts/bench/bench-report.js'
import { benchEnv } from '../../helpers/bench-env.js'

const run = renderMarkdown({ env: benchEnv(), notes: ['Scaled down (small): a note.'] })
const page = `# Benchmarks\n\nHow to run.\n\n## The latest run\n\n${LATEST_START}\n\nold figures\n\n${LATEST_END}\n\n## After\n\ntext\n`

describe('latestRunSection', () => {
  it('keeps the heading, the targets table and the notes of a run', () => {
    const section = latestRunSection(run)
    expect(section.startsWith('**Run** 2026-11-21T14:00:00Z · `npm run bench`')).toBe(true)
    expect(section).toContain('**Service** defaults')
    expect(section).toContain('| figure | target | measured | met |')
    expect(section).toContain('| Service RSS under load (peak) | ≤ 250 MB | n/a | n/a |')
    expect(section.endsWith('- Scaled down (small): a note.')).toBe(true)
  })

  it('leaves out the tables every run prints', () => {
    const withIngest = run.replace('\n\n- Scaled', '\n\n**Ingest** (100 metrics)\n\n| path | events/s |\n|---|---|\n| naive | 1 |\n\n- Scaled')
    expect(latestRunSection(withIngest)).toBe(latestRunSection(run))
  })

  it('keeps the yardsticks with their table, the timers\' CPU and the RSS of each phase, where the run printed them', () => {
    const withThem = run.replace('\n\n- Scaled', '\n\n**Ingest** (100 metrics)\n\n| path | events/s |\n|---|---|\n| naive | 1 |\n\nService side of the HTTP timer batches: 2.5 µs per value.\n\n**Single events beside the yardsticks**: in turns:\n\n| connections | service |\n|---|---|\n| 1 | 500 |\n\n**Service RSS** (sampled): peak 200 MB.\n\n- Scaled')
    const section = latestRunSection(withThem)
    expect(section).not.toContain('**Ingest**')
    expect(section).toContain('| figure | target | measured | met |\n')
    expect(section.endsWith('**Single events beside the yardsticks**: in turns:\n\n| connections | service |\n|---|---|\n| 1 | 500 |\n\nService side of the HTTP timer batches: 2.5 µs per value.\n\n**Service RSS** (sampled): peak 200 MB.\n\n- Scaled down (small): a note.')).toBe(true)
  })

  it('refuses what is not a run', () => {
    expect(() => latestRunSection('# a page\n\ntext\n')).toThrow(/targets table/)
  })
})

describe('writeLatestRun', () => {
  it('replaces what lies between the markers, and nothing else', () => {
    const written = writeLatestRun(page, run)
    expect(written).not.toContain('old figures')
    expect(written.startsWith(`# Benchmarks\n\nHow to run.\n\n## The latest run\n\n${LATEST_START}\n\n**Run** `)).toBe(true)
    expect(written.endsWith(`- Scaled down (small): a note.\n\n${LATEST_END}\n\n## After\n\ntext\n`)).toBe(true)
  })

  it('writes the same page twice over', () => {
    const once = writeLatestRun(page, run)
    expect(writeLatestRun(once, run)).toBe(once)
  })

  it('refuses a page without its markers once each, in order', () => {
    expect(() => writeLatestRun('# no markers\n', run)).toThrow(/bench:latest/)
    expect(() => writeLatestRun(`${LATEST_END}\n${LATEST_START}\n`, run)).toThrow(/once each/)
    expect(() => writeLatestRun(`${LATEST_START}\n${LATEST_START}\n${LATEST_END}\n`, run)).toThrow(/once each/)
  })

  it('finds its markers in docs/benchmarks.md', () => {
    const docs = readFileSync(join(import.meta.dirname, '../../../docs/benchmarks.md'), 'utf8')
    expect(() => writeLatestRun(docs, run)).not.toThrow()
  })
})

describe('writeSection', () => {
  const { start, end } = markersOf('amplification')
  const withBoth = page.replace('## After', `## After\n\n${start}\n\nold table\n\n${end}`)

  it('writes a named section between its own markers, leaving the latest run', () => {
    const written = writeSection(writeLatestRun(withBoth, run), 'amplification', '**Write amplification** new table\n')
    expect(written).not.toContain('old table')
    expect(written).toContain(`${start}\n\n**Write amplification** new table\n\n${end}`)
    expect(written).toContain('- Scaled down (small): a note.')
    expect(() => writeSection(page, 'amplification', 'x')).toThrow(/bench:amplification:start/)
  })

  it('finds the amplification markers in docs/benchmarks.md', () => {
    const docs = readFileSync(join(import.meta.dirname, '../../../docs/benchmarks.md'), 'utf8')
    expect(() => writeSection(docs, 'amplification', 'x')).not.toThrow()
  })

  it('finds the otlp, tags and slos markers in docs/benchmarks-tags-otlp-slos.md', () => {
    const docs = readFileSync(join(import.meta.dirname, '../../../docs/benchmarks-tags-otlp-slos.md'), 'utf8')
    for (const name of ['otlp', 'tags', 'slos']) expect(() => writeSection(docs, name, 'x'), name).not.toThrow()
  })
})
