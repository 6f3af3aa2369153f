// The selected metrics in the URL hash's `m`: their names joined by `,`.
// A series' tag value may hold `,` (and `%`): within a name they are
// written `%2C` (and `%25`), so every name comes back whole. A name without
// either is written as it is: the links made before (plain names, series
// without them) read the same. Pure.

const ESCAPES = { '%': '%25', ',': '%2C' }
const UNESCAPES = { '%25': '%', '%2C': ',' }

/** The names as the hash's `m` value */
export const writeNames = names => names.map(n => n.replace(/[%,]/g, c => ESCAPES[c])).join(',')

/** The hash's `m` value → the names, in order (empty entries dropped) */
export const readNames = value => value.split(',').filter(Boolean).map(n => n.replace(/%(25|2C)/gi, e => UNESCAPES[e.toUpperCase()]))
