// A memo of pure answers keyed by clients' text, bounded whatever they send:
// at most `maxEntries` entries and `maxChars` characters (each entry weighs
// what its setter says: its key's and its answer's text). Two generations: a
// key is set in the current one; a full current one becomes the previous,
// and the previous is dropped; a key found in the previous moves to the
// current, so the keys in use stay and the others age out. Pure.

/** → { get(key), set(key, value, chars), size, chars } */
export function createBoundedCache ({ maxEntries, maxChars }) {
  const entriesPerGeneration = Math.max(1, Math.floor(maxEntries / 2))
  const charsPerGeneration = Math.floor(maxChars / 2)
  let current = new Map() // key → [value, chars]
  let previous = new Map()
  let currentChars = 0
  let previousChars = 0

  function set (key, value, chars) {
    if (chars > charsPerGeneration || current.has(key)) return
    if (current.size >= entriesPerGeneration || currentChars + chars > charsPerGeneration) {
      previous = current
      previousChars = currentChars
      current = new Map()
      currentChars = 0
    }
    current.set(key, [value, chars])
    currentChars += chars
  }

  return {
    /** The value set for `key`, or undefined */
    get (key) {
      const hit = current.get(key)
      if (hit !== undefined) return hit[0]
      const old = previous.get(key)
      if (old === undefined) return undefined
      previous.delete(key)
      previousChars -= old[1]
      set(key, old[0], old[1])
      return old[0]
    },
    set,
    get size () { return current.size + previous.size },
    get chars () { return currentChars + previousChars }
  }
}
