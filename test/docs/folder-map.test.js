// docs/architecture.md holds the one folder map: every folder of the
// repository's code (tracked by git under src/, test/, scripts/, docker/,
// java/) is named in its table, and every folder it names exists.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

const root = path.resolve(import.meta.dirname, '../..')
const ROOTS = ['src', 'test', 'scripts', 'docker', 'java']

/** The folders named in the map's table: every `folder/` in a row's first cell */
function mapped () {
  const text = fs.readFileSync(path.join(root, 'docs/architecture.md'), 'utf8')
  const section = text.slice(text.indexOf('## The folder map'))
  const table = section.slice(0, section.indexOf('\n## '))
  const names = []
  for (const line of table.split('\n')) {
    const cell = line.match(/^\| ([^|]+) \|/)?.[1]
    if (!cell) continue
    for (const [, folder] of cell.matchAll(/`([^`]+)\/`/g)) names.push(folder)
  }
  return names
}

/** The folders that hold a tracked file, and their parents, under ROOTS */
function tracked () {
  const files = execFileSync('git', ['ls-files', '--', ...ROOTS], { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean)
  const folders = new Set()
  for (const file of files) {
    for (let dir = path.posix.dirname(file); dir !== '.'; dir = path.posix.dirname(dir)) folders.add(dir)
  }
  return [...folders].sort()
}

describe('the folder map in docs/architecture.md', () => {
  const names = mapped()

  it('names each folder once', () => {
    expect(names.length).toBeGreaterThan(20)
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([])
  })

  it('names every folder of the tree', () => {
    expect(tracked().filter(dir => !names.includes(dir))).toEqual([])
  })

  it('names no folder that does not exist', () => {
    expect(names.filter(dir => !fs.existsSync(path.join(root, dir)))).toEqual([])
  })
})
