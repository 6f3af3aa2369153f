// Numbers as a reader reads them: the ytd total and the legends' values.
// Sums of fractional values carry binary rounding error (0.1 + 0.2 is
// 0.30000000000000004), so a value within a billionth of an integer is that
// integer; otherwise at most two decimals, or below 1 two significant
// digits. The exact value stays in the API's answer. Pure.

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 })
const twoDecimals = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 })
const twoSignificant = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 2 })

/** n for reading: '1,234', '1,234.62', '0.00012'; 'no data' for null */
export function formatNumber (n) {
  if (n === null || n === undefined) return 'no data'
  const rounded = Math.round(n)
  if (Math.abs(n - rounded) <= 1e-9 * Math.max(1, Math.abs(n))) return integer.format(rounded + 0) // + 0: never "-0"
  return Math.abs(n) >= 1 ? twoDecimals.format(n) : twoSignificant.format(n)
}
