// The SLO service (docs/slos.md): the definitions in force — SLO_FILE's and
// those stored through PUT /v1/slos/:name — and their reports. A report reads
// each selector once, through the one read path (reader/reader.js
// counterTotals, or a distribution's thresholdCounts; reader/tagged-reads.js
// for a selector with tag filters): the period's local days and the
// burn-rate windows are ranges of one plan, read with one projected request
// per collection. The summaries of a listing or a scrape read every SLO's
// selectors together (./summary-counts.js).
import { BadRequestError, ConflictError, NotFoundError, withDetails } from '../errors.js'
import { descriptorOf } from '../kinds/index.js'
import { distribution } from '../kinds/distribution.js'
import { MAX_SLOS, SloDefinitionError, parseSlo, parseSloYamlBody } from './definitions.js'
import { PeriodError, burnWindows, periodOf } from './periods.js'
import { SelectorCountError, buildReport, statusOf } from './report.js'
import { timeZone } from '../bucket/time-zone.js'
import { ZONE_FIELD, declaredZones, zoneOverflow } from './zone-declarations.js'
import { createSummaryCounts } from './summary-counts.js'

/** A distribution's selectors the listing reads at once */
const LIST_CONCURRENCY = 8

const badPeriod = (message) => withDetails(new BadRequestError(`period: ${message}`), { details: [{ path: 'period', message }] })
const badDefinition = (err) => withDetails(new BadRequestError(err.message), { details: [{ path: err.field, message: err.message }] })

/**
 * A counter's ranges as read for `metric`: a whole local day ({ zone, day }) from its month documents once its zone's
 * local days are complete there (since ≤ its start; docs/adr/0073-local-days-in-the-month.md), else from its day documents
 */
const localDaysOf = (zones, metric, ranges) => ranges.map(({ from, to, zone, day }) => {
  const since = zone === undefined || zones === null ? undefined : zones.sinceOf(zone, metric)
  return since !== undefined && since <= from ? { from, to, zone, day } : { from, to }
})

/**
 * reader, taggedReads, registry: the app's; clock; definitions: () → [definition]
 * (definitions.js), SLO_FILE's in force; stored: stored-slos.js's, or null;
 * zones: registry/zone-records.js's (the zones whose local days the month documents keep), or null
 */
export function createSloService ({ reader, taggedReads, registry, clock, definitions, stored = null, zones = null }) {
  /**
   * What a selector counts → null (a name never written) | { kind, counted (a distribution's values; else a
   * counter's events) }; any other kind, or a threshold on a counter, a 400 naming the field
   */
  async function judgeSelector ({ metric, threshold = null }) {
    const kind = await registry.describe(metric)
    if (kind === null) return null
    const counted = descriptorOf(kind) === distribution
    if (!counted && (threshold !== null || descriptorOf(kind)?.stats.default !== null)) {
      const [path, message] = threshold !== null
        ? ['threshold', `metric "${metric}" is a ${kind.kind}: a threshold counts a distribution's values at most it; leave threshold out`]
        : ['metric', `metric "${metric}" is a ${kind.kind}: an SLO counts a counter's events or a distribution's values`]
      throw withDetails(new BadRequestError(message), { details: [{ path, message }] })
    }
    return { kind, counted }
  }

  /**
   * A selector's sums over each range → { values, documents, estimated: [bool] | null, accuracy? }:
   * a counter's events, a distribution's values (≤ threshold where it has one); a name never written counts nothing
   */
  async function countsOf ({ metric, filters, threshold = null }, ranges) {
    const none = { values: ranges.map(() => 0), documents: 0, estimated: null }
    const judged = await judgeSelector({ metric, threshold })
    if (judged === null) return none
    const { kind, counted } = judged
    // a distribution's threshold counts are read from its day documents (its month keeps no local day)
    ranges = counted ? ranges.map(({ from, to }) => ({ from, to })) : localDaysOf(zones, metric, ranges)
    try {
      // the name is the exact sum of its series (docs/tags.md): no filter, one read
      if (counted) {
        const options = { filters, threshold }
        return { ...(filters.length === 0 ? await reader.thresholdCounts(metric, ranges, options) : await taggedReads.thresholdCounts(metric, ranges, options)), accuracy: kind.accuracy }
      }
      return { ...(filters.length === 0 ? await reader.counterTotals(metric, ranges) : await taggedReads.counterTotals(metric, ranges, { filters })), estimated: null }
    } catch (err) {
      if (err instanceof NotFoundError) return none // deleted meanwhile
      throw err
    }
  }

  const countsTogether = createSummaryCounts({ reader, taggedReads, judge: judgeSelector, countsOf })

  /** Whether a selector's counts are exact (docs/slos.md#latency-slis) → { exact } or { exact: false, accuracy (α), estimatedDays } */
  const exactnessOf = ({ estimated, accuracy }, days) =>
    estimated === null || !estimated.some(Boolean) ? { exact: true } : { exact: false, accuracy, estimatedDays: estimated.slice(0, days).filter(Boolean).length }

  /** Every SLO in force: the file's, then the stored ones (a name in the file is the file's) → { slos, refused } */
  async function inForce () {
    const fromFile = definitions()
    if (stored === null) return { slos: fromFile, refused: [] }
    const names = new Set(fromFile.map(s => s.name))
    const { slos, refused } = await stored.all()
    return { slos: [...fromFile, ...slos.filter(s => !names.has(s.name))], refused }
  }

  async function find (name) {
    const slo = (await inForce()).slos.find(s => s.name === name)
    if (slo === undefined) throw new NotFoundError(`no SLO named "${name}"`)
    return slo
  }

  /**
   * An SLO's period of `label` (undefined: the current one) at `now`, and its ranges → { period, windows, ranges };
   * days false: a summary — the period as one range, from its months where each local day outside UTC would need
   * its day document (docs/adr/0068-slo-reads-outside-utc.md); a bad label a 400
   */
  function rangesOf (slo, label, now, { days = true } = {}) {
    let period
    try {
      period = periodOf(slo.window, label, now, { days })
    } catch (err) {
      if (err instanceof PeriodError) throw badPeriod(err.message)
      throw err
    }
    const windows = period.current ? burnWindows(now) : []
    // outside UTC a calendar period's days are whole local days: each may be read from the month documents (localDaysOf)
    const zone = days && !slo.window.rolling ? timeZone(slo.window.zone) : null
    const local = zone === null || zone.isUtc ? ({ from, to }) => ({ from, to }) : ({ from, to, day }) => ({ from, to, zone: zone.name, day })
    return { period, windows, ranges: [...period.days.map(local), ...windows.map(({ from, to }) => ({ from, to }))] }
  }

  /**
   * The report from the counts of an SLO's two selectors (the good or bad one first); a period whose good (or
   * bad) selector counts more than its total is refused (a 400 naming both): a selector counting events the total
   * does not would read as more than met, and hide a breach
   */
  function reportFrom (slo, { period, windows }, first, total, documents, now) {
    const { indicator } = slo
    const good = indicator.good ? first.values : total.values.map((t, i) => t - first.values[i])
    const selectors = { [indicator.good ? 'good' : 'bad']: exactnessOf(first, period.days.length), total: exactnessOf(total, period.days.length) }
    try {
      return { ...buildReport(slo, period, windows, { good, total: total.values }, documents, now), selectors }
    } catch (err) {
      if (err instanceof SelectorCountError) throw new BadRequestError(err.message)
      throw err
    }
  }

  async function report (slo, label) {
    const now = clock.now()
    const planned = rangesOf(slo, label, now)
    const { indicator } = slo
    const [first, total] = await Promise.all([countsOf(indicator.good ?? indicator.bad, planned.ranges), countsOf(indicator.total, planned.ranges)])
    return reportFrom(slo, planned, first, total, first.documents + total.documents, now)
  }

  /**
   * The current period's summary (days false) of each SLO, their selectors read together (summary-counts.js): a
   * selector several SLOs share, or a series several selectors do, read once, and each document once, counted in
   * the documents of the first SLO that reads it → [{ status: 'fulfilled', value } | { status: 'rejected', reason
   * (null: not read, after a database error) }], in the order of slos
   */
  async function summaries (slos, { concurrency }) {
    const now = clock.now()
    const requests = new Map()
    const keyOf = (selector, ranges) => {
      const key = JSON.stringify([selector.metric, selector.tags, selector.threshold ?? null, ranges])
      if (!requests.has(key)) requests.set(key, { selector, ranges })
      return key
    }
    const planned = slos.map(slo => {
      try {
        const p = rangesOf(slo, undefined, now, { days: false })
        const { indicator } = slo
        return { ...p, keys: [keyOf(indicator.good ?? indicator.bad, p.ranges), keyOf(indicator.total, p.ranges)] }
      } catch (reason) {
        return { reason }
      }
    })
    const keys = [...requests.keys()]
    const counts = new Map((await countsTogether([...requests.values()], { concurrency })).map((c, i) => [keys[i], c]))
    const counted = new Set()
    return planned.map((p, i) => {
      if (p.reason !== undefined) return { status: 'rejected', reason: p.reason }
      const [first, total] = p.keys.map(key => counts.get(key))
      const failed = [first, total].find(c => c.status === 'rejected')
      if (failed) return { status: 'rejected', reason: failed.reason }
      let documents = 0
      for (const [key, { value }] of [[p.keys[0], first], [p.keys[1], total]]) {
        // documents by id where the read names them, else the selector's, once
        for (const id of value.ids ?? [`selector ${key}`]) {
          if (counted.has(id)) continue
          counted.add(id)
          documents += value.ids ? 1 : value.documents
        }
      }
      try {
        return { status: 'fulfilled', value: reportFrom(slos[i], p, first.value, total.value, documents, now) }
      } catch (reason) {
        return { status: 'rejected', reason }
      }
    })
  }

  const inFile = (name) => definitions().some(s => s.name === name)

  /** The zones of the SLOs in force declared (registry/zone-records.js): their local days kept in the month documents from now on */
  async function declareZones () {
    if (zones === null) return null
    const { slos } = await inForce()
    await zones.declare(declaredZones(slos), clock.now())
    // SLO_FILE and the stored SLOs past 8 zones together (each checked alone when read): the SLO of the 9th is named
    return zoneOverflow(slos)
  }

  return {
    /** The report of the SLO named `name` for the period `label` (undefined: the current one) */
    report: async (name, label) => report(await find(name), label),

    /** Every SLO with its current period's figures and status */
    async list () {
      const out = []
      const { slos, refused } = await inForce()
      // every summary's selectors read together; a distribution's LIST_CONCURRENCY at a time
      const summarized = await summaries(slos, { concurrency: LIST_CONCURRENCY })
      // one SLO its selectors cannot answer (a distribution, a read past MAX_SERIES) does not hide the others; a failure does
      const failed = summarized.find(o => o.status === 'rejected' && o.reason !== null && !(o.reason instanceof BadRequestError))
      if (failed !== undefined) throw failed.reason
      for (const [i, slo] of slos.entries()) {
        const described = {
          name: slo.name,
          displayName: slo.displayName,
          service: slo.service,
          target: slo.target,
          timeWindow: { duration: slo.window.duration, rolling: slo.window.rolling, timeZone: slo.window.zone },
          source: slo.stored ? 'stored' : 'file'
        }
        const { status, value: r, reason } = summarized[i]
        if (status === 'rejected') {
          out.push({ ...described, status: 'refused', error: reason.message, documents: 0 })
          continue
        }
        out.push({
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
      for (const { name, error } of refused) out.push({ name, source: 'stored', status: 'refused', error, documents: 0 })
      return out
    },

    /** Store an OpenSLO document (an object, or YAML text) under `name` (PUT /v1/slos/:name) → { name, created } */
    async put (name, body) {
      let document, slo
      try {
        document = typeof body === 'string' ? parseSloYamlBody(body) : body
        slo = parseSlo(document)
      } catch (err) {
        if (err instanceof SloDefinitionError) throw badDefinition(err)
        throw err
      }
      if (slo.name !== name) throw badDefinition(new SloDefinitionError('metadata.name', `must be the name in the path, "${name}", got "${slo.name}"`))
      if (inFile(name)) throw new ConflictError(`the SLO "${name}" is defined in SLO_FILE: change it there, or give this one another name`)
      const { slos } = await stored.all()
      if (!slos.some(s => s.name === name) && await stored.count() >= MAX_SLOS) {
        throw new BadRequestError(`at most ${MAX_SLOS} stored SLOs: delete one first`)
      }
      const overflow = zoneOverflow([...definitions(), ...slos.filter(s => s.name !== name), slo])
      if (overflow?.slo === slo) throw badDefinition(new SloDefinitionError(ZONE_FIELD, overflow.message))
      const answer = { name, ...await stored.put(name, document, clock.now()) }
      await declareZones()
      return answer
    },

    /** Delete a stored SLO (DELETE /v1/slos/:name) → { name, deleted } */
    async delete (name) {
      if (inFile(name)) throw new ConflictError(`the SLO "${name}" is defined in SLO_FILE: take it out of the file`)
      if (!await stored.delete(name)) throw new NotFoundError(`no stored SLO named "${name}"`)
      await declareZones()
      return { name, deleted: true }
    },

    declareZones,

    /**
     * The current period's summary report (no local days) of every SLO in force, their selectors read together,
     * a distribution's `concurrency` at a time (GET /metrics, docs/adr/0067-slo-metrics.md, 0074) → [{ name,
     * report } | { name, refused: message } | { name, failed: error (null: not
     * read, after a database error) }]; a database error stops the reads not begun.
     */
    async currentReports ({ concurrency }) {
      const { slos, refused } = await inForce()
      // a summary: the series need no local day, so the period is read as one range (as the listing reads it)
      const outcomes = await summaries(slos, { concurrency })
      return [
        ...outcomes.map(({ status, value, reason }, i) => {
          const { name } = slos[i]
          if (status === 'fulfilled') return { name, report: value }
          if (reason instanceof BadRequestError) return { name, refused: reason.message }
          return { name, failed: reason ?? null }
        }),
        ...refused.map(({ name, error }) => ({ name, refused: error }))
      ]
    }
  }
}
