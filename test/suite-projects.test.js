// The suite's projects (vitest.config.js): every test file belongs to exactly
// one, so none silently falls out of `npm test`; a unit file uses no
// database, no child process and no browser (it runs without the global
// setup), itself or through the test helpers it imports.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import config, { PROJECTS } from '../vitest.config.js'

const ROOT = path.resolve(import.meta.dirname, '..')
const FOLDER = /^(test\/(?:[\w.-]+\/)*)\*\*\/\*\.test\.js$/

function testFiles (dir = 'test') {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap(entry => {
    const rel = `${dir}/${entry.name}`
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : testFiles(rel)
    return entry.name.endsWith('.test.js') ? [rel] : []
  })
}

/** A pattern of vitest.config.js: a file's path, or <folder>/**\/*.test.js (every test file below the folder) */
function matches (pattern, file) {
  const folder = FOLDER.exec(pattern)
  return folder ? file.startsWith(folder[1]) : file === pattern
}

const inProject = (p, file) => p.include.some(i => matches(i, file)) && !(p.exclude ?? []).some(e => matches(e, file))

// what a unit file must not import, itself or through a test helper: [module (the end of its specifier), names (any if null), what it is]
const NEEDS = [
  [/(^|\/)helpers\/test-app\.js$|(^|\/)statsd\/helpers\.js$/, null, 'the suite\'s database'],
  [/^vitest$/, 'inject', 'the suite\'s database (inject)'],
  [/^mongodb$/, 'MongoClient', 'a database client'],
  [/^(node:)?child_process$|(^|\/)helpers\/run-node\.js$|(^|\/)faults\/harness\.js$|(^|\/)src\/db\/(java-server|embedded)\.js$|(^|\/)scripts\/shared\/child-server\.js$|(^|\/)scripts\/bench\/server-process\.js$/, null, 'a child process'],
  [/^playwright/, null, 'a browser']
]

/** [{ spec, names }] of a source's static and dynamic imports */
function importsOf (text) {
  const statics = [...text.matchAll(/^import\s+([\s\S]*?)\s+from\s+'([^']+)'/gm)].map(([, names, spec]) => ({ spec, names }))
  const dynamics = [...text.matchAll(/\bimport\('([^']+)'\)/g)].map(([, spec]) => ({ spec, names: '*' }))
  return [...statics, ...dynamics]
}

/** A file's imports and those of the test helpers (test/**, not *.test.js) it imports, transitively: [{ source, spec, names }] */
function importsFrom (file, seen = new Set()) {
  if (seen.has(file)) return []
  seen.add(file)
  // a relative specifier as the path from the root it names
  const own = importsOf(fs.readFileSync(path.join(ROOT, file), 'utf8'))
    .map(i => ({ source: file, ...i, spec: i.spec.startsWith('.') ? path.posix.join(path.posix.dirname(file), i.spec) : i.spec }))
  const helpers = own.map(i => i.spec).filter(dep => dep.startsWith('test/') && !dep.endsWith('.test.js'))
  return [...own, ...helpers.flatMap(dep => importsFrom(dep, seen))]
}

describe('the suite\'s projects', () => {
  it('are the five, each named as vitest runs it, and only those that need it start the database', () => {
    const projects = config.test.projects.map(p => p.test)
    expect(projects.map(p => p.name)).toEqual(['unit', 'database', 'faults', 'browser', 'oracle'])
    expect(Object.fromEntries(projects.map(p => [p.name, p.globalSetup]))).toEqual({
      unit: [], database: ['test/helpers/global-setup.js'], faults: [], browser: ['test/helpers/global-setup.js'], oracle: ['test/helpers/global-setup.js']
    })
    for (const p of projects) expect(p.include, p.name).toEqual(PROJECTS[p.name].include)
  })

  it('have patterns this test reads as vitest does: a file that exists, or a folder\'s test files', () => {
    for (const [name, p] of Object.entries(PROJECTS)) {
      for (const pattern of [...p.include, ...(p.exclude ?? [])]) {
        const folder = FOLDER.exec(pattern)
        const exists = folder ? fs.statSync(path.join(ROOT, folder[1])).isDirectory() : fs.existsSync(path.join(ROOT, pattern))
        expect(exists, `${name}: ${pattern}`).toBe(true)
      }
    }
  })

  it('hold every test file exactly once', () => {
    const files = testFiles()
    expect(files.length).toBeGreaterThan(100)
    const owners = Object.fromEntries(files.map(f => [f, Object.entries(PROJECTS).filter(([, p]) => inProject(p, f)).map(([name]) => name)]))
    const unassigned = files.filter(f => owners[f].length === 0)
    const twice = files.filter(f => owners[f].length > 1).map(f => `${f}: ${owners[f].join(', ')}`)
    expect(unassigned, 'test files in no project of vitest.config.js (add each to the one whose needs it has)').toEqual([])
    expect(twice, 'test files in more than one project').toEqual([])
  })

  it('keep the unit project free of the database, child processes and the browser', () => {
    const unit = testFiles().filter(f => inProject(PROJECTS.unit, f))
    expect(unit.length).toBeGreaterThan(50)
    const uses = []
    for (const file of unit) {
      for (const { source, spec, names } of importsFrom(file)) {
        for (const [module, name, what] of NEEDS) {
          if (module.test(spec) && (name === null || names === '*' || new RegExp(`\\b${name}\\b`).test(names))) uses.push(`${file} uses ${what}: ${spec}${source === file ? '' : ` (through ${source})`}`)
        }
      }
    }
    expect(uses).toEqual([])
  })
})
