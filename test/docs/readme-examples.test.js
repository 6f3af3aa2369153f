// The examples of the README and of the reference pages (EXAMPLE_PAGES),
// run against the service, answer what each page shows; every relative link
// in README.md and docs/**/*.md reaches a file (and a heading, when it names
// one) that exists.
//
// What an example is. A ```sh block followed by a ```json block is an
// example and its answer. A ```sh block right after the line
// `<!-- example: no answer -->` is an example that prints nothing (StatsD
// over UDP and TCP). Every other ```sh block that calls `curl` or `node -e`
// fails the test, so no example escapes it; commands that start or deploy
// something (`npm start`, docker, the maintenance commands) are not examples.
//
// How an example runs: `bash -euo pipefail -c <block>`, in page order, on
// one service per page built in-process (testApp: a database of its own) listening on
// 127.0.0.1:0 with StatsD on a free port; `localhost:3000` and `127.0.0.1:3000` in the
// block become its address and `8125` its StatsD port.
//
// What is compared, and the rule for time. The README shows the answers of a
// service whose clock read README_NOW: the test builds the service with its
// clock fixed there and puts first on the shell's PATH a `date` that prints
// README_NOW (examples may use `date +%s` only), so relative times (`-3h`,
// "two hours ago") resolve as they did for the README and every answer is
// compared whole: JSON.parse(stdout) strictly equals JSON.parse(answer).
// PREALLOC_PROBABILITY=0, as a next day preallocated at random would change
// the counts of the DELETE example. A no-answer example must exit 0, and the
// StatsD lines it sends (its quoted `name:value|type` strings) must be stored:
// the test waits for each metric's total to reach the sum of its values.
// A second pass runs the examples again at the real clock (the real `date`,
// the system clock, a fresh database): each answer must have the README's
// fields (objects' keys, recursively) and hold data — a non-zero count under
// `accepted`, `total`, `values`, `deleted` or a datapoint — wherever the
// README's does, so the relative-time examples answer with data today too.
import { execFile } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { parseLine } from '../../src/statsd/line-parser.js'
import { anchorsOf } from '../helpers/markdown.js'
import { testApp } from '../helpers/test-app.js'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const README = join(ROOT, 'README.md')
// The pages whose examples run, each on a service of its own; no other page may hold one
const EXAMPLE_PAGES = ['README.md', 'docs/api.md', 'docs/statsd.md', 'docs/graphite.md', 'docs/tags.md']
const README_NOW = Date.UTC(2026, 2, 2, 10, 30) // 2026-03-02T10:30:00Z, as the README says
const NO_ANSWER = '<!-- example: no answer -->'

/** Fenced blocks of a markdown text: [{ lang, body, line, before }] (before: the last non-blank line above the fence) */
function fencedBlocks (text) {
  const blocks = []
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i])
    if (!open) continue
    const start = i
    const body = []
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]); i++) body.push(lines[i])
    let b = start - 1
    while (b >= 0 && lines[b].trim() === '') b--
    blocks.push({ lang: open[1], body: body.join('\n'), line: start + 1, end: i + 1, before: b >= 0 ? lines[b].trim() : '' })
  }
  return blocks
}

/** The README's examples in order: [{ line, script, answer? }] */
function readmeExamples (text) {
  const blocks = fencedBlocks(text)
  const lines = text.split('\n')
  const examples = []
  const stray = []
  for (const [i, block] of blocks.entries()) {
    if (block.lang !== 'sh') continue
    const next = blocks[i + 1]
    const between = next ? lines.slice(block.end, next.line - 1).join('').trim() : null
    if (next?.lang === 'json' && between === '') {
      examples.push({ line: block.line, script: block.body, answer: next.body })
    } else if (block.before === NO_ANSWER) {
      examples.push({ line: block.line, script: block.body })
    } else if (/\bcurl\b|\bnode -e\b/.test(block.body)) {
      stray.push(block.line)
    }
  }
  return { examples, stray }
}

function run (script, { port, statsdPort, path }) {
  const local = script
    .replaceAll(/(?:localhost|127\.0\.0\.1):3000\b/g, `127.0.0.1:${port}`)
    .replaceAll(/\b8125\b/g, String(statsdPort))
  return new Promise(resolve => {
    execFile('bash', ['-euo', 'pipefail', '-c', local], { env: { ...process.env, PATH: path }, timeout: 20_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (err.code ?? 1) : 0, stdout, stderr })
    })
  })
}

/** The StatsD lines a no-answer example sends: the quoted strings holding `name:value|type` → { metric: total } */
function statsdSums (script) {
  const sums = {}
  for (const [, quoted] of script.matchAll(/'([^']*:[^']*\|[^']*)'/g)) {
    for (const line of quoted.split('\\n').filter(Boolean)) {
      const { samples, problems } = parseLine(line)
      expect(problems, `README StatsD line ${line}`).toEqual([])
      // a distribution's total is its count of values
      for (const { metric, value, kind, weight } of samples) sums[metric] = (sums[metric] ?? 0) + (kind === 'distribution' ? weight : value)
    }
  }
  return sums
}

/** Waits until each metric's total around `now` reaches the sum sent (the listeners sum for up to STATSD_FLUSH_INTERVAL_MS) */
async function waitForStored (app, sums, now) {
  const minute = Math.floor(now / 60_000) * 60_000
  const deadline = Date.now() + 10_000
  for (const [metric, sum] of Object.entries(sums)) {
    let total
    for (;;) {
      const res = await app.inject(`/v1/metrics/${encodeURIComponent(metric)}/total?from=${minute - 120_000}&to=${minute + 120_000}`)
      total = res.statusCode === 200 ? res.json().total : null
      if (total === sum || Date.now() > deadline) break
      await new Promise(resolve => setTimeout(resolve, 100))
    }
    expect(total, `${metric} stored after the StatsD example`).toBe(sum)
  }
}

/** The service the examples run against, and the PATH their shell gets */
async function service ({ fixed, page }) {
  const label = `${page.replace(/\W/g, '').toLowerCase()}${fixed ? 'fixed' : 'real'}`
  const app = await testApp(label, {
    ...(fixed ? { clock: manualClock(README_NOW) } : {}),
    env: { PREALLOC_PROBABILITY: '0' },
    statsd: true
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const bin = mkdtempSync(join(tmpdir(), 'readme-date-'))
  if (fixed) {
    writeFileSync(join(bin, 'date'), `#!/bin/sh\n[ "$#" -eq 1 ] && [ "$1" = "+%s" ] && { echo ${README_NOW / 1000}; exit 0; }\necho "README examples may call date +%s only, got: date $*" >&2\nexit 2\n`)
    chmodSync(join(bin, 'date'), 0o755)
  }
  return {
    app,
    port: app.server.address().port,
    statsdPort: app.statsd.port,
    path: [bin, dirname(process.execPath), process.env.PATH].join(':'),
    now: () => app.clock.now(),
    close: async () => { await app.close(); rmSync(bin, { recursive: true, force: true }) }
  }
}

/** The fields of a JSON value: keys of objects, recursively; arrays by their first element */
function fields (value) {
  if (Array.isArray(value)) return value.length ? [fields(value[0])] : []
  if (value && typeof value === 'object') return Object.fromEntries(Object.keys(value).sort().map(k => [k, fields(value[k])]))
  return value === null ? 'number' : typeof value // null stands where a number may be
}

/** The absolute sum of the counts an answer holds (not its times) */
function counts (value, key = null) {
  if (Array.isArray(value)) {
    if (key === 'datapoints') return value.reduce((n, [v]) => n + Math.abs(v ?? 0), 0)
    return value.reduce((n, v) => n + counts(v, key), 0)
  }
  if (value && typeof value === 'object') {
    return Object.entries(value).reduce((n, [k, v]) => n + counts(v, key === 'deleted' ? key : k), 0)
  }
  return typeof value === 'number' && ['accepted', 'total', 'values', 'deleted'].includes(key) ? Math.abs(value) : 0
}

// Every Markdown file of the docs: README.md and every .md under docs/
function markdownFiles (dir = join(ROOT, 'docs')) {
  const files = dir === join(ROOT, 'docs') ? [README] : []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) files.push(...markdownFiles(join(dir, entry.name)))
    else if (entry.name.endsWith('.md')) files.push(join(dir, entry.name))
  }
  return files
}

const pages = Object.fromEntries(EXAMPLE_PAGES.map(page => [page, readmeExamples(readFileSync(join(ROOT, page), 'utf8'))]))

describe('examples in the docs', () => {
  it('are marked so that this test finds them, and only on the pages that run them', () => {
    const count = page => pages[page].examples.length
    expect(count('README.md')).toBeGreaterThanOrEqual(4)
    expect(count('docs/api.md')).toBeGreaterThanOrEqual(10)
    expect(EXAMPLE_PAGES.reduce((n, page) => n + count(page), 0)).toBeGreaterThanOrEqual(15)
    for (const file of markdownFiles()) {
      const page = relative(ROOT, file)
      const { examples, stray } = pages[page] ?? readmeExamples(readFileSync(file, 'utf8'))
      expect(stray, `${page}: lines of \`\`\`sh blocks calling curl or node -e that are neither followed by a \`\`\`json answer nor marked no-answer`).toEqual([])
      if (!pages[page]) expect(examples.map(e => e.line), `${page}: examples on a page that is not in EXAMPLE_PAGES`).toEqual([])
      for (const { script, line } of examples) {
        expect(script.match(/\bdate\b(?! \+%s\))/g), `${page} line ${line}: only $(date +%s) is allowed`).toBeNull()
      }
    }
  })
})

describe.each(EXAMPLE_PAGES)('%s examples', (page) => {
  const { examples } = pages[page]

  /**
   * Runs every example in page order on a service at the docs' clock
   * (fixed) or the real one; an example without an answer must print
   * nothing and its StatsD lines be stored; compare(stdout, answer, line)
   * judges the others.
   */
  function everyExample (fixed, compare) {
    let s
    beforeAll(async () => { s = await service({ fixed, page }) })
    afterAll(async () => { await s?.close() })

    it('every example, in page order', async () => {
      for (const { line, script, answer } of examples) {
        const { code, stdout, stderr } = await run(script, s)
        expect(code, `${page} line ${line} exited ${code}: ${stderr}`).toBe(0)
        if (answer !== undefined) { compare(stdout, answer, line); continue }
        expect(stdout, `${page} line ${line} prints nothing`).toBe('')
        await waitForStored(s.app, statsdSums(script), s.now())
      }
    })
  }

  describe('at the docs\' clock, answer exactly what the page shows', () => {
    everyExample(true, (stdout, answer, line) => {
      let actual
      try { actual = JSON.parse(stdout) } catch { actual = stdout }
      expect(actual, `${page} line ${line} answered ${stdout}`).toStrictEqual(JSON.parse(answer))
    })
  })

  describe('at the real clock, answer with the page\'s fields and with data', () => {
    everyExample(false, (stdout, answer, line) => {
      const actual = JSON.parse(stdout)
      const expected = JSON.parse(answer)
      expect(fields(actual), `${page} line ${line} answered ${stdout}`).toStrictEqual(fields(expected))
      if (counts(expected) > 0) expect(counts(actual), `${page} line ${line} answered ${stdout}: no data`).toBeGreaterThan(0)
    })
  })
})

/** Relative links of a markdown file, outside code: [{ target, fragment }] */
function relativeLinks (file) {
  const text = readFileSync(file, 'utf8')
    .replace(/^```[\s\S]*?^```/gm, '')
    .replace(/`[^`\n]*`/g, '')
  const links = []
  for (const [, href] of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue // http:, https:, mailto:
    const [target, fragment] = href.split('#')
    links.push({ href, target: target ? resolve(dirname(file), decodeURIComponent(target)) : file, fragment })
  }
  return links
}

describe('relative links in README.md and docs/**/*.md', () => {
  it.each(markdownFiles().map(f => [relative(ROOT, f), f]))('%s: every one reaches a file that exists', (name, file) => {
    const broken = []
    for (const { href, target, fragment } of relativeLinks(file)) {
      if (!existsSync(target)) broken.push(`${href}: no such file`)
      else if (fragment && statSync(target).isFile() && target.endsWith('.md') && !anchorsOf(target).has(fragment)) {
        broken.push(`${href}: no heading with that anchor`)
      }
    }
    expect(broken).toEqual([])
  })
})

describe('the README as a manual', () => {
  const text = readFileSync(README, 'utf8')

  it('reads in five minutes: at most 12 KB', () => {
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(12_000)
  })

  it('opens with a table of contents that reaches every section', () => {
    const sections = [...text.matchAll(/^## (.+)$/gm)].map(m => m[1])
    const contents = text.slice(text.indexOf('**Contents**'), text.indexOf('\n## '))
    const listed = [...contents.matchAll(/\]\(#([^)]+)\)/g)].map(m => m[1])
    const anchor = title => title.toLowerCase().replace(/[^\w\- ]/g, '').replace(/ /g, '-')
    expect(sections.map(anchor).filter(a => !listed.includes(a))).toEqual([])
  })
})
