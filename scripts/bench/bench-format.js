// How the benchmark's report writes numbers and sizes. Pure.

const isNum = v => typeof v === 'number' && Number.isFinite(v)

export function fmt (v, digits = 0) {
  if (!isNum(v)) return 'n/a'
  return v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
}

export function bytes (n) {
  if (!isNum(n)) return 'n/a'
  if (n >= 1e9) return `${(n / 1e9).toFixed(2)} GB`
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)} MB`
  if (n >= 1e3) return `${(n / 1e3).toFixed(0)} kB`
  return `${n} B`
}
