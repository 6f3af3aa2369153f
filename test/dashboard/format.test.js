// Numbers as the dashboard shows them to a reader (src/dashboard/js/format.js):
// the ytd total and the legends' values. The exact value stays in the API's
// answer (and in #ytd-total's data-total).
import { describe, expect, it } from 'vitest'
import { formatNumber } from '../../src/dashboard/js/format.js'

describe('formatNumber', () => {
  it('shows an integral value as an integer with thousands separators', () => {
    expect(formatNumber(1122)).toBe('1,122')
    expect(formatNumber(6_715_000)).toBe('6,715,000')
    expect(formatNumber(0)).toBe('0')
    expect(formatNumber(-42_000)).toBe('-42,000')
  })

  it('shows a value off an integer by a sum’s rounding error as that integer', () => {
    expect(formatNumber(1234.0000000001)).toBe('1,234')
    expect(formatNumber(999_999.9999999999)).toBe('1,000,000')
    expect(formatNumber(Array(10).fill(0.1).reduce((a, b) => a + b))).toBe('1') // 0.9999999999999999
    expect(formatNumber(-1e-12)).toBe('0') // not "-0"
  })

  it('shows at most two decimals from 1 on', () => {
    expect(formatNumber(1234.623456)).toBe('1,234.62')
    expect(formatNumber(1_000_000.25)).toBe('1,000,000.25')
    expect(formatNumber(1.5)).toBe('1.5')
    expect(formatNumber(-1234.567)).toBe('-1,234.57')
    expect(formatNumber(0.1 + 0.2)).toBe('0.3')
  })

  it('shows two significant digits below 1', () => {
    expect(formatNumber(0.123456)).toBe('0.12')
    expect(formatNumber(0.000123456)).toBe('0.00012')
    expect(formatNumber(-0.0456789)).toBe('-0.046')
  })

  it('says "no data" for null', () => {
    expect(formatNumber(null)).toBe('no data')
    expect(formatNumber(undefined)).toBe('no data')
  })
})
