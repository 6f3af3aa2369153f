// Python's order of strings, by code point (graphite-web sorts tags and
// values so): where UTF-16's differs, a surrogate pair sorts above
// U+E000–U+FFFF. Pure.

/** Python's order of strings (code points), where UTF-16's differs: a surrogate pair above U+E000–U+FFFF */
export function byCodePoint (a, b) {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i)
    const y = b.charCodeAt(i)
    if (x === y) continue
    const surrogateX = x >= 0xd800 && x <= 0xdfff
    const surrogateY = y >= 0xd800 && y <= 0xdfff
    if (surrogateX !== surrogateY) return surrogateX ? 1 : -1
    return x - y
  }
  return a.length - b.length
}
