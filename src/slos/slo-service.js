// The SLO service (docs/slos.md): the definitions in force and their
// reports. A report reads each selector once, through the one read path
// (reader/reader.js counterTotals; reader/tagged-reads.js for a selector with
// tag filters): the period's local days and the burn-rate windows are ranges
// of one plan, read with one projected request per collection.
import { BadRequestError, NotFoundError, withDetails } from '../errors.js'
import { descriptorOf } from '../kinds/index.js'
import { PeriodError, burnWindows, periodOf } from './periods.js'
import { buildReport, statusOf } from './report.js'

const badPeriod = (message) => withDetails(new BadRequestError(`period: ${message}`), { details: [{ path: 'period', message }] })

/** reader, taggedReads, registry: the app's; clock; definitions: () → [definition] (definitions.js), the ones in force */
export function createSloService ({ reader, taggedReads, registry, clock, definitions }) {
  /** A selector's sums over each range → { values, documents }; a name never written counts nothing */
  async function countsOf ({ metric, filters }, ranges) {
    const kind = await registry.describe(metric)
    if (kind === null) return { values: ranges.map(() => 0), documents: 0 }
    if (descriptorOf(kind)?.stats.default !== null) {
      const message = `metric "${metric}" is a ${kind.kind}: an SLO counts a counter's events in this version`
      throw withDetails(new BadRequestError(message), { details: [{ path: 'metric', message }] })
    }
    try {
      // the name is the exact sum of its series (docs/tags.md): no filter, one read
      return filters.length === 0 ? await reader.counterTotals(metric, ranges) : await taggedReads.counterTotals(metric, ranges, { filters })
    } catch (err) {
      if (err instanceof NotFoundError) return { values: ranges.map(() => 0), documents: 0 } // deleted meanwhile
      throw err
    }
  }

  function find (name) {
    const slo = definitions().find(s => s.name === name)
    if (slo === undefined) throw new NotFoundError(`no SLO named "${name}"`)
    return slo
  }

  async function report (slo, label) {
    const now = clock.now()
    let period
    try {
      period = periodOf(slo.window, label, now)
    } catch (err) {
      if (err instanceof PeriodError) throw badPeriod(err.message)
      throw err
    }
    const windows = period.current ? burnWindows(now) : []
    const ranges = [...period.days, ...windows].map(({ from, to }) => ({ from, to }))
    const { indicator } = slo
    const [first, total] = await Promise.all([countsOf(indicator.good ?? indicator.bad, ranges), countsOf(indicator.total, ranges)])
    const good = indicator.good ? first.values : total.values.map((t, i) => t - first.values[i])
    return buildReport(slo, period, windows, { good, total: total.values }, first.documents + total.documents, now)
  }

  return {
    /** The report of the SLO named `name` for the period `label` (undefined: the current one) */
    report: (name, label) => report(find(name), label),

    /** Every SLO with its current period's figures and status */
    async list () {
      const slos = []
      for (const slo of definitions()) {
        const described = {
          name: slo.name,
          displayName: slo.displayName,
          service: slo.service,
          target: slo.target,
          timeWindow: { duration: slo.window.duration, rolling: slo.window.rolling, timeZone: slo.window.zone }
        }
        let r
        try {
          r = await report(slo, undefined)
        } catch (err) {
          // one SLO its selectors cannot answer (a distribution, a read past MAX_SERIES) does not hide the others
          if (!(err instanceof BadRequestError)) throw err
          slos.push({ ...described, status: 'refused', error: err.message, documents: 0 })
          continue
        }
        slos.push({
          ...described,
          period: r.period,
          status: statusOf(r),
          attainment: r.attainment,
          good: r.good,
          total: r.total,
          budgetRemainingRatio: r.budget.remainingRatio,
          documents: r.documents
        })
      }
      return slos
    }
  }
}
