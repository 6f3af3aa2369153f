// The Graphite name index (docs/architecture.md#graphite): every
// metric name of the registry as a trie of its dot-separated parts, in
// memory, so a glob walks only the branches its parts match and
// /metrics/find costs what it visits, not the registry's size. Each name
// keeps its kind: a kind with stat leaves (kinds/*.js graphite) is shown as
// a branch of leaves that no name of the registry holds (../graphite/stat-leaves.js).
// Pure data structure; what keeps it fresh is ./name-index-refresh.js.
import { kindNamed } from '../kinds/index.js'
import { isTagged } from '../tags/series-name.js'
import { createTagIndex } from './tag-index.js'

export class GlobBudgetError extends Error {
  constructor (pattern, limit) {
    super(`${JSON.stringify(pattern)} visits more than ${limit} names and branches of the name index; narrow the pattern (a literal first part, fewer *)`)
    this.name = 'GlobBudgetError'
  }
}

// children: null until the node has one. Most nodes are leaves (a metric's last
// part), and an empty Map costs ~100 bytes: at 1,000,000 names the trie took
// 142 MB with a Map in every leaf (docs/benchmarks.md#cardinality).
// leaf: false (no metric ends here) or the name of its kind ('counter', …):
// the kind rides on the field every node has, at no cost per node.
function newNode () {
  return { children: null, leaf: false }
}

// a kind this version cannot read is shown as a counter is: a leaf
const PLAIN = Object.freeze({ nameIsLeaf: true, statLeaves: null })
const shapeOf = (leaf) => kindNamed(leaf)?.graphite ?? PLAIN
const joinPath = (path, part) => path ? `${path}.${part}` : part

export function createNameIndex () {
  let root = newNode()
  let size = 0
  // tagged series are not names of the trie: they are found by their tags (./tag-index.js)
  const tags = createTagIndex()
  // while a rebuild reads the registry: the adds and removals made here meanwhile, in order (null: none is reading)
  let journal = null

  /**
   * Runs read(), then applies to `into` (a rebuild's index, or this one) what
   * was added or removed here meanwhile, in order — also when read() fails: a
   * look that failed half-way has added what it read (a rebuild's index is
   * dropped then). A read within another's adds its journal to the outer one.
   */
  async function replayingOnto (into, read) {
    const outer = journal
    const ops = journal = []
    try {
      await read()
    } finally {
      journal = outer
      for (const [name, kind] of ops) {
        if (kind === null) into.remove(name)
        else into.add(name, kind)
      }
      if (outer !== null && into !== api) outer.push(...ops)
    }
  }

  const api = {
    tags,
    /** Adds a metric name (idempotent) of a kind ('counter' by default; kinds/index.js); a tagged series goes to the tag index */
    add (name, kind = 'counter') {
      journal?.push([name, kind])
      if (isTagged(name)) return tags.add(name)
      let node = root
      for (const part of name.split('.')) {
        node.children ??= new Map()
        let child = node.children.get(part)
        if (!child) { child = newNode(); node.children.set(part, child) }
        node = child
      }
      if (!node.leaf) size++
      node.leaf = kind
    },
    /** Removes a metric name (a deleted metric); branches left empty go too */
    remove (name) {
      journal?.push([name, null])
      if (isTagged(name)) return tags.remove(name)
      const parts = name.split('.')
      const path = [root]
      for (const part of parts) {
        const child = path.at(-1).children?.get(part)
        if (!child) return
        path.push(child)
      }
      const node = path.at(-1)
      if (!node.leaf) return
      node.leaf = false
      size--
      for (let i = parts.length; i > 0 && !path[i].leaf && !(path[i].children?.size > 0); i--) path[i - 1].children.delete(parts[i - 1])
    },
    has (name) {
      let node = root
      for (const part of name.split('.')) {
        node = node.children?.get(part)
        if (!node) return false
      }
      return node.leaf !== false
    },
    /** The kind name a name is in the index with, or null */
    kindOf (name) {
      let node = root
      for (const part of name.split('.')) {
        node = node.children?.get(part)
        if (!node) return null
      }
      return node.leaf === false ? null : node.leaf
    },
    size: () => size,
    /** Replaces every name at once (a rebuild from the registry) */
    replaceAll (names) {
      const fresh = createNameIndex()
      for (const name of names) fresh.add(name)
      this.adopt(fresh)
    },
    /** Takes another index's names as its own, at once (a rebuild built beside it) */
    adopt (other) {
      root = other.root()
      size = other.size()
      tags.adopt(other.tags)
    },
    /**
     * A rebuild from the registry: build(fresh) fills a new index from a
     * scan; what was added or removed here while it read (a metric written,
     * or deleted, meanwhile) is applied to it in order before it is adopted,
     * so a deletion the scan read past is not undone
     */
    async rebuildFrom (build) {
      const fresh = createNameIndex()
      await replayingOnto(fresh, () => build(fresh.add))
      this.adopt(fresh)
    },
    /**
     * A look at the registry: read(add) adds what it reads here (add(name,
     * kind)); what was added or removed here meanwhile otherwise is applied
     * again after it, in order, so a name read before its deletion stays deleted
     */
    async readInto (read) {
      await replayingOnto(this, () => read((name, kind) => {
        const ops = journal
        journal = null // the look's own adds are not replayed over what others did after them
        try { this.add(name, kind) } finally { journal = ops }
      }))
    },
    root: () => root,
    /**
     * The nodes whose parts match `matchers` (one per dot-separated part of
     * a glob, ./glob.js globParts): [{ path, text, leaf, branch }], sorted by
     * path. Throws GlobBudgetError once more than `maxVisits` trie nodes were
     * looked at: the cost of one query is bounded whatever the registry holds.
     * A metric is a leaf where its kind's name is one (a counter's, a
     * gauge's) and a branch where its kind has stat leaves (a
     * distribution's, a gauge's): with `statLeaves` (matcher, kind → the
     * stat leaf names it picks, ../graphite/stat-leaves.js) each of those
     * below it is a leaf { …, metric, stat, kind } (metric the metric's name, stat
     * the leaf's name, kind the metric's kind; each counts as a visit),
     * unless a metric of the registry has that very name: the stored metric
     * is never hidden. A stat leaf where the registry has only a branch is
     * both.
     */
    match (pattern, matchers, { maxVisits, statLeaves = null }) {
      let level = [{ node: root, path: '' }]
      let visits = 0
      const visit = () => { if (++visits > maxVisits) throw new GlobBudgetError(pattern, maxVisits) }
      for (const match of matchers) {
        const next = []
        for (const { node, path } of level) {
          if (node === null) continue // a stat leaf: nothing below it
          const found = []
          if (match.literal !== undefined) {
            // a literal part: one lookup, whatever the number of children
            const child = node.children?.get(match.literal)
            visit()
            if (child) found.push({ node: child, path: joinPath(path, match.literal), text: match.literal })
          } else {
            for (const [part, child] of node.children ?? []) {
              visit()
              if (match(part)) found.push({ node: child, path: joinPath(path, part), text: part })
            }
          }
          if (node.leaf !== false && statLeaves && shapeOf(node.leaf).statLeaves) {
            for (const text of statLeaves(match, kindNamed(node.leaf))) {
              visit()
              const real = node.children?.get(text)
              if (real && real.leaf !== false) continue // a stored metric of that name wins
              const leaf = { metric: path, stat: text, of: node.leaf }
              // a branch of the registry there (it matched too): it is a stat leaf as well
              if (real) Object.assign(found.find(e => e.node === real), leaf)
              else found.push({ node: null, path: joinPath(path, text), text, ...leaf })
            }
          }
          next.push(...found)
        }
        level = next
        if (level.length === 0) break
      }
      return level
        .map(({ node, path, text, metric, stat, of }) => {
          // built whole, no spread: a glob may answer thousands of leaves
          const shape = node !== null && node.leaf !== false ? shapeOf(node.leaf) : null
          const branch = node !== null && (node.children?.size > 0 || (shape !== null && shape.statLeaves !== null))
          // kind: the kind of the metric the leaf reads (a stat leaf's metric's, or its own name's)
          if (stat !== undefined) return { path, text, leaf: true, branch, metric, stat, kind: of }
          if (shape !== null && shape.nameIsLeaf) return { path, text, leaf: true, branch, kind: node.leaf }
          return { path, text, leaf: false, branch }
        })
        .sort((a, b) => a.path < b.path ? -1 : a.path > b.path ? 1 : 0)
    }
  }
  return api
}
