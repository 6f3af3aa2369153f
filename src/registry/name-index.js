// The Graphite name index (docs/architecture.md, "The Graphite API"): every
// metric name of the registry as a trie of its dot-separated parts, in
// memory, so a glob walks only the branches its parts match and
// /metrics/find costs what it visits, not the registry's size. Pure data
// structure; what keeps it fresh is ./name-index-refresh.js.

export class GlobBudgetError extends Error {
  constructor (pattern, limit) {
    super(`${JSON.stringify(pattern)} visits more than ${limit} names and branches of the name index; narrow the pattern (a literal first part, fewer *)`)
    this.name = 'GlobBudgetError'
  }
}

// children: null until the node has one. Most nodes are leaves (a metric's last
// part), and an empty Map costs ~100 bytes: at 1,000,000 names the trie took
// 142 MB with a Map in every leaf (docs/benchmarks.md, "Cardinality").
function newNode () {
  return { children: null, leaf: false }
}

export function createNameIndex () {
  let root = newNode()
  let size = 0

  return {
    /** Adds a metric name (idempotent) */
    add (name) {
      let node = root
      for (const part of name.split('.')) {
        node.children ??= new Map()
        let child = node.children.get(part)
        if (!child) { child = newNode(); node.children.set(part, child) }
        node = child
      }
      if (!node.leaf) { node.leaf = true; size++ }
    },
    /** Removes a metric name (a deleted metric); branches left empty go too */
    remove (name) {
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
      return node.leaf
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
    },
    root: () => root,
    /**
     * The nodes whose parts match `matchers` (one per dot-separated part of
     * a glob, ./glob.js globParts): [{ path, text, leaf, branch }], sorted by
     * path. Throws GlobBudgetError once more than `maxVisits` trie nodes were
     * looked at: the cost of one query is bounded whatever the registry holds.
     */
    match (pattern, matchers, { maxVisits }) {
      let level = [{ node: root, path: '' }]
      let visits = 0
      for (const match of matchers) {
        const next = []
        for (const { node, path } of level) {
          if (match.literal !== undefined) {
            // a literal part: one lookup, whatever the number of children
            const child = node.children?.get(match.literal)
            if (++visits > maxVisits) throw new GlobBudgetError(pattern, maxVisits)
            if (child) next.push({ node: child, path: path ? `${path}.${match.literal}` : match.literal, text: match.literal })
            continue
          }
          for (const [part, child] of node.children ?? []) {
            if (++visits > maxVisits) throw new GlobBudgetError(pattern, maxVisits)
            if (match(part)) next.push({ node: child, path: path ? `${path}.${part}` : part, text: part })
          }
        }
        level = next
        if (level.length === 0) break
      }
      return level
        .map(({ node, path, text }) => ({ path, text, leaf: node.leaf, branch: node.children?.size > 0 }))
        .sort((a, b) => a.path < b.path ? -1 : a.path > b.path ? 1 : 0)
    }
  }
}
