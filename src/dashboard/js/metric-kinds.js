// What kind each metric is, as GET /v1/metrics lists it (a kind's name;
// GET /v1/kinds says what each can show: kind-views.js): learnt from the
// pages the metric picker loads, and for a name not among them (a metric
// named in the URL before the list is in, or past its first page) asked
// once by prefix: the name itself is the first of the names it prefixes. A
// lookup that fails or finds nothing is asked again next time. Pure but for
// the lookup it is given.

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
    /** The kind known for `name`, or undefined */
    kindOf: name => known.get(name),
    /** → Map name → kind (null when the registry does not say), asking for the names not known yet */
    async resolve (names) {
      await Promise.all(names.filter(n => !known.has(n)).map(ask))
      return new Map(names.map(n => [n, known.get(n) ?? null]))
    }
  }
}
