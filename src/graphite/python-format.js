// Python's number formatting where graphite-web puts numbers in series names. Pure.

/**
 * Python str() of a parsed number: ints as written, floats as repr — the
 * shortest digits that read back, fixed from 1e-4 up to 1e16 (100.0, 1.5),
 * else exponent form (1e-05, 1e+16)
 */
export function pyStr (value, isInteger) {
  if (isInteger) return String(value)
  if (!Number.isFinite(value)) return Number.isNaN(value) ? 'nan' : value > 0 ? 'inf' : '-inf'
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0'
  const [mantissa, exp] = value.toExponential().split('e')
  const exponent = Number(exp)
  if (exponent < -4 || exponent >= 16) return `${mantissa}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`
  const sign = value < 0 ? '-' : ''
  const digits = mantissa.replace(/^-/, '').replace('.', '')
  if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`
  const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, '0')
  return `${sign}${whole}.${digits.slice(exponent + 1) || '0'}`
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
