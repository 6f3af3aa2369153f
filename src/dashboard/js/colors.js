// A metric's colour: a hash of its name into the palette, so a metric has
// the same colour in every view (chips, list, series and ytd charts) and
// keeps it when metrics are added, removed or reordered. Two names can
// share a colour; on one chart the later of them is drawn dashed
// (repeatedColors). Pure.

export const PALETTE = ['#2563eb', '#dc2626', '#059669', '#d97706', '#7c3aed', '#0891b2', '#db2777', '#65a30d', '#4b5563', '#ea580c']

/** 32-bit FNV-1a of the name's UTF-16 code units, then murmur3's finaliser so that names differing in one character spread */
export function hashName (name) {
  let h = 0x811c9dc5
  for (let i = 0; i < name.length; i++) {
    h ^= name.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}

/** The colour of the metric `name`: a function of the name alone */
export function colorOf (name) {
  return PALETTE[hashName(name) % PALETTE.length]
}

/** For each colour of a chart's series, whether an earlier series has it already */
export function repeatedColors (colors) {
  return colors.map((color, i) => colors.indexOf(color) < i)
}
