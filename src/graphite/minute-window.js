// The minutes whisper's fetch returns for (from, until] in epoch seconds
// (whisper.py fetch: both ends moved to the next step boundary). Pure.
export const NATIVE_STEP_S = 60

export function minuteWindow (fromS, untilS, step = NATIVE_STEP_S) {
  const start = Math.floor(fromS / step) * step + step
  let end = Math.floor(untilS / step) * step + step
  if (start === end) end += step
  return { start, end, points: (end - start) / step }
}

/** treejson answer of /metrics/find (graphite-web metrics/views.py tree_json) */
export function treeJson (query, nodes) {
  const basePath = query.includes('.') ? query.slice(0, query.lastIndexOf('.') + 1) : ''
  const sorted = [...nodes].sort((a, b) => a.text < b.text ? -1 : a.text > b.text ? 1 : 0)
  const seen = new Set()
  const branches = []
  const leaves = []
  for (const node of sorted) {
    if (seen.has(node.text)) continue
    seen.add(node.text)
    const entry = { text: node.text, id: basePath + node.text }
    if (node.branch) branches.push({ ...entry, allowChildren: 1, expandable: 1, leaf: 0 })
    else leaves.push({ ...entry, allowChildren: 0, expandable: 0, leaf: 1 })
  }
  return [...branches, ...leaves]
}

/** The glob format=completer looks up (metrics/views.py find_view): '..' as '*.', and a '*' at the end */
export function completerQuery (query) {
  const q = query.replaceAll('..', '*.')
  return q.endsWith('*') ? q : q + '*'
}

/**
 * completer answer of /metrics/find: { path, name, is_leaf } per node sorted
 * by name, a branch's path ending in '.'; a node that is both a branch and a
 * leaf is both, the branch first, as graphite-web's store yields them
 */
export function completer (nodes) {
  const out = []
  for (const node of nodes) {
    if (node.branch) out.push({ path: node.path + '.', name: node.text, is_leaf: '0' })
    if (node.leaf) out.push({ path: node.path, name: node.text, is_leaf: '1' })
  }
  // Array.prototype.sort is stable: equal names keep the order above, as Python's sort does
  return out.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
}
