// The Prometheus text exposition read back: sample lines only.

/** Prometheus text → Map of 'name{labels}' → number (labels as printed; NaN, +Inf as Number reads them) */
export function parseMetrics (text) {
  const samples = new Map()
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue
    const m = /^([a-zA-Z_:][\w:]*(?:\{.*\})?) (\S+)$/.exec(line)
    if (m) samples.set(m[1], Number(m[2]))
  }
  return samples
}
