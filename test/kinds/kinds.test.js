// The kinds are described once (src/kinds/): every descriptor complete and
// consistent, and no other file of src/ names a kind's collections or the
// flat minute layout of the talk's experiment.
import { readFileSync, readdirSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { DOCUMENT_PARTS, KINDS, KIND_COLLECTIONS, KIND_NAMES, descriptorOf, kindNamed } from '../../src/kinds/index.js'
import { COUNTER, GAUGE, distributionKind } from '../../src/bucket/metric-kinds.js'

const ROOT = resolve(import.meta.dirname, '../..')
const SOURCES = readdirSync(join(ROOT, 'src'), { recursive: true })
  .filter(f => /\.(js|html|css)$/.test(f))
  .map(f => ({ path: relative(ROOT, join(ROOT, 'src', f)), text: readFileSync(join(ROOT, 'src', f), 'utf8') }))
/** The files of src/ that hold `text` */
const filesHolding = (text) => SOURCES.filter(f => f.text.includes(text)).map(f => f.path).sort()

describe('the kinds', () => {
  it('each has a name, collections, parts writing to its own collections, stats, reads and rules', () => {
    expect(KIND_NAMES).toEqual(['counter', 'distribution', 'gauge'])
    for (const kind of KINDS) {
      expect(kindNamed(kind.name)).toBe(kind)
      expect(Object.keys(kind.collections)).toEqual(expect.arrayContaining(['daily', 'monthly']))
      expect(kind.parts.map(p => p.collection).sort()).toEqual(Object.values(kind.collections).sort())
      expect(kind.statsdTypes.length).toBeGreaterThan(0)
      for (const read of ['series', 'total', 'ytd', 'quantiles']) expect(typeof kind.reads[read]).toBe('boolean')
      for (const read of ['total', 'ytd', 'quantiles']) if (!kind.reads[read]) expect(typeof kind.refusals[read], `${kind.name} ${read}`).toBe('string')
      if (kind.stats.default !== null) {
        expect(kind.stats.names).toContain(kind.stats.default)
        for (const stat of kind.stats.names) expect(kind.consolidation[stat], `${kind.name}.${stat}`).toMatch(/^(sum|min|max|last|average)$/)
      }
      expect(typeof kind.check.verifyDaily).toBe('function')
    }
  })

  it('no two kinds share a collection, a StatsD type or a key prefix', () => {
    expect(new Set(KIND_COLLECTIONS).size).toBe(KIND_COLLECTIONS.length)
    const types = KINDS.flatMap(k => k.statsdTypes)
    expect(new Set(types).size).toBe(types.length)
    const prefixes = DOCUMENT_PARTS.map(p => p.prefix)
    expect(new Set([...prefixes, 'r:']).size).toBe(prefixes.length + 1) // r: the registry's (writer/write-operations.js)
  })

  it('a registry kind finds its descriptor; one this version cannot read finds none', () => {
    expect(descriptorOf(undefined).name).toBe('counter')
    expect(descriptorOf(COUNTER).name).toBe('counter')
    expect(descriptorOf(GAUGE).name).toBe('gauge')
    expect(descriptorOf(distributionKind(0.01)).name).toBe('distribution')
    expect(descriptorOf({ kind: 'set' })).toBeUndefined()
  })

  it('a kind\'s collections are named in src/ by its descriptor alone (and the counter\'s, which are also its field names, by its descriptor first)', () => {
    for (const kind of KINDS.slice(1)) {
      for (const name of Object.values(kind.collections)) expect(filesHolding(name), name).toEqual([`src/kinds/${kind.name}.js`])
    }
  })

  it('the flat layout of the talk\'s experiment is the load generator\'s, not the service\'s', () => {
    expect(filesHolding('BUCKET_LAYOUT')).toEqual([])
    expect(filesHolding('layout').filter(f => !f.startsWith('src/dashboard/'))).toEqual([]) // the dashboard's CSS grid is a page layout
  })
})
