// What kind each metric is, as GET /v1/metrics lists it (a kind's name;
// GET /v1/kinds says what each can show: kind-views.js): learnt from the
// pages the metric picker loads, and for a name not among them (a metric
// named in the URL before the list is in, or past its first page) asked
// once by prefix: the name itself is the first of the names it prefixes. A
// tagged series (`name;key=value…`) is of its name's kind (docs/tags.md):
// its name is asked, never the series (a prefix is a name's start, without
// `;`). A lookup that fails or finds nothing is asked again next time. Pure
// but for the lookup it is given.

/** A series' name (the metric name before its first `;`); a name itself */
export const nameOf = series => series.split(';', 1)[0]

/**
 * listPrefixed(name) → a page of GET /v1/metrics ({ metrics: [{ name, kind }] })
 * whose first entry is `name` when the registry holds it
 */
export function createMetricKinds (listPrefixed) {
  const known = new Map() // name → kind
  const asking = new Map() // name → the lookup in flight

  function learn (metrics) {
    for (const { name, kind } of metrics) if (typeof kind === 'string') known.set(name, kind)
  }

  /** The kind known for a name or series: its own, else its name's */
  const kindOf = name => known.get(name) ?? known.get(nameOf(name))

  function ask (name) {
    if (!asking.has(name)) {
      asking.set(name, (async () => {
        try {
          learn((await listPrefixed(name)).metrics.filter(m => m.name === name))
        } catch { /* unknown for now: asked again next time */ } finally {
          asking.delete(name)
        }
      })())
    }
    return asking.get(name)
  }

  return {
    learn,
    /** The kind known for `name` (a series: its own or its name's), or undefined */
    kindOf,
    /** → Map name → kind (null when the registry does not say), asking for the names not known yet (a series': its name) */
    async resolve (names) {
      await Promise.all([...new Set(names.filter(n => kindOf(n) === undefined).map(nameOf))].map(ask))
      return new Map(names.map(n => [n, kindOf(n) ?? null]))
    }
  }
}
