// The labels of the series chart's time axis (src/dashboard/js/time-axis.js),
// without a browser; that they never overlap is checked in the browser
// (dashboard.test.js), where they are drawn.
import { describe, expect, it } from 'vitest'
import { INCRS, tickLabels } from '../../src/dashboard/js/time-axis.js'

const MIN = 60_000
const HOUR = 60 * MIN
const DAY = 24 * HOUR
const at = (...parts) => Date.UTC(...parts)

describe('tickLabels', () => {
  it('below a day: HH:MM, the day under the first tick and where the day changes', () => {
    const splits = [at(2026, 10, 20, 18), at(2026, 10, 20, 21), at(2026, 10, 21, 0), at(2026, 10, 21, 3)]
    expect(tickLabels(splits, 3 * HOUR)).toEqual(['18:00\n11-20', '21:00', '00:00\n11-21', '03:00'])
  })

  it('from a day: MM-DD, the year under the first tick and where the year changes', () => {
    const splits = [at(2026, 11, 30), at(2026, 11, 31), at(2027, 0, 1), at(2027, 0, 2)]
    expect(tickLabels(splits, DAY)).toEqual(['12-30\n2026', '12-31', '01-01\n2027', '01-02'])
  })

  it('from a month: the month’s name, with the year the same way', () => {
    const splits = [at(2026, 10, 1), at(2026, 11, 1), at(2027, 0, 1)]
    expect(tickLabels(splits, 30 * DAY)).toEqual(['Nov\n2026', 'Dec', 'Jan\n2027'])
  })

  it('from a year: the year', () => {
    expect(tickLabels([at(2025, 0, 1), at(2026, 0, 1)], 365 * DAY)).toEqual(['2025', '2026'])
  })

  it('has no increment finer than the API’s finest step, a minute', () => {
    expect(Math.min(...INCRS)).toBe(MIN)
    expect([...INCRS].sort((a, b) => a - b)).toEqual(INCRS)
  })
})
