// fn over items with at most `limit` calls in flight, every outcome kept in
// the items' order, as Promise.allSettled says it; once an outcome `stopsAll`,
// the items not yet begun are not begun ({ status: 'skipped' }). No I/O of its own.

/** → [{ status: 'fulfilled', value } | { status: 'rejected', reason } | { status: 'skipped' }], one per item */
export async function settleLimited (items, limit, fn, { stopsAll = () => false } = {}) {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be a whole number ≥ 1, got ${limit}`)
  const outcomes = items.map(() => ({ status: 'skipped' }))
  let next = 0
  let stopped = false
  async function worker () {
    while (!stopped && next < items.length) {
      const i = next++
      try {
        outcomes[i] = { status: 'fulfilled', value: await fn(items[i], i) }
      } catch (reason) {
        outcomes[i] = { status: 'rejected', reason }
        if (stopsAll(reason)) stopped = true
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return outcomes
}
