// A metric's colour: a hash of its name into the palette, so a metric has
// the same colour in every view (chips, list, series and ytd charts) and
// keeps it when others are added, removed or reordered — unless an earlier
// metric of the selection has that colour: two metrics shown together never
// share one (colorsOf), and every line is solid, a dash meaning a partial
// bucket only (docs/adr/0053-dashboard-kinds.md). Pure.

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

/**
 * The colours of the selected metrics `names`, in their order: each name's
 * own colour (colorOf), or where an earlier name has it, the next colour of
 * the palette after it that no earlier name has. Past the palette's 10,
 * colours repeat.
 */
export function colorsOf (names) {
  const taken = new Set()
  return names.map(name => {
    const own = hashName(name) % PALETTE.length
    let color = PALETTE[own]
    // the next free colour; all taken (the 10th step is its own again): its own
    for (let i = 1; i <= PALETTE.length && taken.has(color); i++) color = PALETTE[(own + i) % PALETTE.length]
    taken.add(color)
    return color
  })
}
