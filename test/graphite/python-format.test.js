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
  })
})
