// Markdown as GitHub renders it, for the tests that keep the docs true:
// a heading's anchor, and the anchors of a file.
import { readFileSync } from 'node:fs'

/** GitHub's anchor of a heading: lower case, punctuation removed, spaces → hyphens */
export function slug (heading) {
  return heading
    .replace(/`([^`]*)`/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-')
}

/** The anchors of a Markdown file's headings (outside code blocks), repeated ones numbered as GitHub numbers them */
export function anchorsOf (file) {
  const seen = new Map()
  const anchors = new Set()
  const text = readFileSync(file, 'utf8').replace(/^```[\s\S]*?^```/gm, '')
  for (const [, heading] of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(heading)
    const n = seen.get(base) ?? 0
    seen.set(base, n + 1)
    anchors.add(n === 0 ? base : `${base}-${n}`)
  }
  return anchors
}
