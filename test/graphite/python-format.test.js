import { describe, expect, it } from 'vitest'
import { formatG, pyStr } from '../../src/graphite/python-format.js'

// Expected values printed by Python 3.11: '%g' % v and str(float(v))
describe('Python number formatting in series names', () => {
  it("formats like '%g'", () => {
    const python = [[2, '2'], [0.5, '0.5'], [1e-5, '1e-05'], [1234567, '1.23457e+06'], [100, '100'], [-3.25, '-3.25'], [0.1, '0.1'], [123456, '123456'], [1 / 3, '0.333333']]
    for (const [value, text] of python) expect(formatG(value), String(value)).toBe(text)
  })

  it('writes floats like str()', () => {
    expect(pyStr(100, false)).toBe('100.0')
    expect(pyStr(1.5, false)).toBe('1.5')
    expect(pyStr(1e-7, false)).toBe('1e-07')
    expect(pyStr(100, true)).toBe('100')
    // repr's thresholds: exponent form below 1e-4 and from 1e16
    const python = [[1e-5, '1e-05'], [0.0001, '0.0001'], [1e16, '1e+16'], [1e15, '1000000000000000.0'], [123456789012345680, '1.2345678901234568e+17'],
      [-0.000123, '-0.000123'], [1 / 3, '0.3333333333333333'], [5e-324, '5e-324'], [1.7976931348623157e308, '1.7976931348623157e+308'], [-0, '-0.0'], [12345.678, '12345.678']]
    for (const [value, text] of python) expect(pyStr(value, false), String(value)).toBe(text)
  })
})
