// A string as V8 keeps a property name: one shared copy with its hash
// computed. A name cached this way costs a lookup nothing more when it keys an
// object or a Map, where a freshly built one is hashed (and flattened) first.
// An engine detail that only speeds things up: the string is the same either way.

/** `s`, the engine's shared copy of it */
export const internalized = (s) => Object.keys({ [s]: 0 })[0]
