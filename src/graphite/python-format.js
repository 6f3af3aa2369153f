// Python's number formatting where graphite-web puts numbers in series names. Pure.

/** Python str() of a parsed number: ints as written, floats as repr (100.0, 1.5) */
export function pyStr (value, isInteger) {
  if (isInteger) return String(value)
  if (Number.isInteger(value) && Math.abs(value) < 1e16) return value.toFixed(1)
  const text = String(value)
  return text.replace(/e([+-])(\d)$/, 'e$10$2')
}

/** Python '%g': 6 significant digits, exponent form below 1e-4 or from 1e6, trailing zeros dropped */
export function formatG (value) {
  if (value === 0) return Object.is(value, -0) ? '-0' : '0'
  if (!Number.isFinite(value)) return Number.isNaN(value) ? 'nan' : value > 0 ? 'inf' : '-inf'
  const exponent = Math.floor(Math.log10(Math.abs(Number(value.toPrecision(6)))))
  if (exponent < -4 || exponent >= 6) {
    const [mantissa, exp] = value.toExponential(5).split('e')
    const trimmed = mantissa.includes('.') ? mantissa.replace(/\.?0+$/, '') : mantissa
    const sign = exp[0] === '-' ? '-' : '+'
    const digits = exp.replace(/^[+-]/, '').padStart(2, '0')
    return `${trimmed}e${sign}${digits}`
  }
  const fixed = value.toFixed(Math.max(0, 5 - exponent))
  return fixed.includes('.') ? fixed.replace(/\.?0+$/, '') : fixed
}
