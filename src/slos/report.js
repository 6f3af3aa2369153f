// An SLO's report from exact counts (docs/slos.md#reports): good, total,
// attainment, the error budget in bad events, each local day, the burn
// rates and the attainment the period ends at if the last hour's rates
// hold. Counts stay exact integers (the budget's floor is taken in BigInt
// from the target's decimal digits, so 0.9 × 10 allows 1, not 0); a ratio is
// one division of two exact integers. Pure.
import { HOUR_MS } from '../bucket/time.js'

/** ⌊a / b⌋ for BigInt b > 0 */
const floorDiv = (a, b) => (a >= 0n ? a / b : -((-a + b - 1n) / b))
const exact = (n) => Number.isSafeInteger(n)

/** The bad events the target allows among `total`: ⌊(1 − target) × total⌋ */
export function allowedBad (total, { numerator, denominator }) {
  if (!exact(total)) return Math.floor(total * Number(denominator - numerator) / Number(denominator))
  return Number(floorDiv(BigInt(total) * (denominator - numerator), denominator))
}

/**
 * The burn rate of `bad` among `total` events: the bad fraction ÷ the fraction the target allows; null without
 * events; 0 where the window's good count passes its total (the two selectors' writes landing apart, a moment)
 */
export function burnRate (bad, total, { numerator, denominator }) {
  if (total === 0) return null
  if (bad < 0) return 0
  if (!exact(bad) || !exact(total)) return (bad / total) * Number(denominator) / Number(denominator - numerator)
  return Number(BigInt(bad) * denominator) / Number(BigInt(total) * (denominator - numerator))
}

const ratio = (a, b) => (b === 0 ? null : a / b)

/** A period whose good (or bad) selector counts more than its total: a selector mistake, which would read as more than met */
export class SelectorCountError extends Error {}

/**
 * slo: a definition (definitions.js); period: periods.js periodOf's; now;
 * counts: { good: number[], total: number[] } per range in the order
 * [...period.days, ...windows] (windows: periods.js burnWindows(now), read
 * only for the current period); documents: read in all. Throws
 * SelectorCountError where the period's good passes its total, or is below 0.
 */
export function buildReport (slo, period, windows, { good, total }, documents, now) {
  const n = period.days.length
  const days = period.days.map(({ day }, i) => ({ day, good: good[i], total: total[i] }))
  const sum = (values) => values.slice(0, n).reduce((s, v) => s + v, 0)
  const g = sum(good)
  const t = sum(total)
  // good ≤ total (bad ≥ 0), up to float rounding of fractional counts: else the two selectors do not count one set of events
  if (g > t + 1e-9 * Math.max(1, t) || g < -1e-9 * Math.max(1, t)) {
    const [which, counted] = slo.indicator.good ? ['good', g] : ['bad', t - g]
    throw new SelectorCountError(`the ${which} selector counts ${counted} events in ${period.label} and the total ${t}: it must count a subset of the total's events (check both selectors' metric and tags)`)
  }
  const allowed = allowedBad(t, slo.targetParts)
  const consumed = t - g
  let burnRates = null
  let projectedAttainment = ratio(g, t)
  if (period.current && windows.length) {
    burnRates = Object.fromEntries(windows.map(({ name }, i) => [name, burnRate(total[n + i] - good[n + i], total[n + i], slo.targetParts)]))
    if (!slo.window.rolling) {
      // the rates of the last hour, held to the period's end
      const hour = windows.findIndex(w => w.name === '1h')
      const left = period.to - windows[hour].to
      const [g1h, t1h] = [good[n + hour], total[n + hour]]
      projectedAttainment = exact(g) && exact(t) && exact(g1h) && exact(t1h)
        ? ratio(Number(BigInt(g) * BigInt(HOUR_MS) + BigInt(g1h) * BigInt(left)), Number(BigInt(t) * BigInt(HOUR_MS) + BigInt(t1h) * BigInt(left)))
        : ratio(g + g1h * left / HOUR_MS, t + t1h * left / HOUR_MS)
    }
  }
  return {
    name: slo.name,
    period: period.label,
    timeZone: slo.window.zone,
    from: period.from,
    to: period.to,
    good: g,
    total: t,
    attainment: ratio(g, t),
    target: slo.target,
    budget: { allowed, consumed, remaining: allowed - consumed, remainingRatio: ratio(allowed - consumed, allowed) },
    days,
    burnRates,
    projectedAttainment,
    documents,
    asOf: now
  }
}

/** An SLO's state in a report: "no data", "breached" (budget spent past zero), "at risk" (the projection falls short) or "met" */
export function statusOf ({ total, budget, projectedAttainment, target }) {
  if (total === 0) return 'no data'
  if (budget.remaining < 0) return 'breached'
  if (projectedAttainment !== null && projectedAttainment < target) return 'at risk'
  return 'met'
}
