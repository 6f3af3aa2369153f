// The SLO service (docs/slos.md): the definitions in force — SLO_FILE's and
// those stored through PUT /v1/slos/:name — and their reports. A report reads
// each selector once, through the one read path (reader/reader.js
// counterTotals, or a distribution's thresholdCounts; reader/tagged-reads.js
// for a selector with tag filters): the period's local days and the
// burn-rate windows are ranges of one plan, read with one projected request
// per collection.
import { BadRequestError, ConflictError, NotFoundError, isDatabaseError, withDetails } from '../errors.js'
import { descriptorOf } from '../kinds/index.js'
import { distribution } from '../kinds/distribution.js'
import { MAX_SLOS, SloDefinitionError, parseSlo, parseSloYamlBody } from './definitions.js'
import { PeriodError, burnWindows, periodOf } from './periods.js'
import { buildReport, statusOf } from './report.js'
import { settleLimited } from './settle-limited.js'
import { timeZone } from '../bucket/time-zone.js'
import { ZONE_FIELD, declaredZones, zoneOverflow } from './zone-declarations.js'

/** The SLOs the listing reads at once */
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
   * A selector's sums over each range → { values, documents, estimated: [bool] | null, accuracy? }:
   * a counter's events, a distribution's values (≤ threshold where it has one); a name never written counts nothing
   */
  async function countsOf ({ metric, filters, threshold = null }, ranges) {
    const none = { values: ranges.map(() => 0), documents: 0, estimated: null }
    const kind = await registry.describe(metric)
    if (kind === null) return none
    const counted = descriptorOf(kind) === distribution
    // a distribution's threshold counts are read from its day documents (its month keeps no local day)
    ranges = counted ? ranges.map(({ from, to }) => ({ from, to })) : localDaysOf(zones, metric, ranges)
    if (!counted && (threshold !== null || descriptorOf(kind)?.stats.default !== null)) {
      const [path, message] = threshold !== null
        ? ['threshold', `metric "${metric}" is a ${kind.kind}: a threshold counts a distribution's values at most it; leave threshold out`]
        : ['metric', `metric "${metric}" is a ${kind.kind}: an SLO counts a counter's events or a distribution's values`]
      throw withDetails(new BadRequestError(message), { details: [{ path, message }] })
    }
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
   * A selector's counts over `ranges` (countsOf), read once per `reads`: a
   * listing's or a scrape's SLOs often share a selector (one total for
   * several good ones) and, in one zone and window, their ranges
   */
  function countsOnce (reads, selector, ranges) {
    if (reads === null) return countsOf(selector, ranges)
    const key = JSON.stringify([selector.metric, selector.tags, selector.threshold ?? null, ranges])
    const read = reads.get(key)
    if (read !== undefined) return read.then(counts => ({ ...counts, documents: 0 }))
    const first = countsOf(selector, ranges)
    reads.set(key, first)
    return first
  }

  /**
   * options.days false: a summary (the listing) — the period read as one range, from its months where each local day
   * outside UTC would need its day document (docs/adr/0068-slo-reads-outside-utc.md); options.reads: a Map the SLOs of
   * one listing or scrape share, each selector and ranges read once (its documents counted by the first to read them)
   */
  async function report (slo, label, { days = true, reads = null } = {}) {
    const now = clock.now()
    let period
    try {
      period = periodOf(slo.window, label, now)
    } catch (err) {
      if (err instanceof PeriodError) throw badPeriod(err.message)
      throw err
    }
    const windows = period.current ? burnWindows(now) : []
    if (!days) period = { ...period, days: [{ day: null, from: period.from, to: period.to }] }
    // outside UTC a calendar period's days are whole local days: each may be read from the month documents (localDaysOf)
    const zone = days && !slo.window.rolling ? timeZone(slo.window.zone) : null
    const local = zone === null || zone.isUtc ? ({ from, to }) => ({ from, to }) : ({ from, to, day }) => ({ from, to, zone: zone.name, day })
    const ranges = [...period.days.map(local), ...windows.map(({ from, to }) => ({ from, to }))]
    const { indicator } = slo
    const [first, total] = await Promise.all([countsOnce(reads, indicator.good ?? indicator.bad, ranges), countsOnce(reads, indicator.total, ranges)])
    const good = indicator.good ? first.values : total.values.map((t, i) => t - first.values[i])
    const selectors = { [indicator.good ? 'good' : 'bad']: exactnessOf(first, period.days.length), total: exactnessOf(total, period.days.length) }
    return { ...buildReport(slo, period, windows, { good, total: total.values }, first.documents + total.documents, now), selectors }
  }

  const inFile = (name) => definitions().some(s => s.name === name)

  /** The zones of the SLOs in force declared (registry/zone-records.js): their local days kept in the month documents from now on */
  async function declareZones () {
    if (zones === null) return
    await zones.declare(declaredZones((await inForce()).slos), clock.now())
  }

  return {
    /** The report of the SLO named `name` for the period `label` (undefined: the current one) */
    report: async (name, label) => report(await find(name), label),

    /** Every SLO with its current period's figures and status */
    async list () {
      const out = []
      const { slos, refused } = await inForce()
      // LIST_CONCURRENCY summaries at a time, each a request per selector and collection: not one round trip after another;
      // a selector the SLOs share read once
      const summaries = []
      const reads = new Map()
      for (let i = 0; i < slos.length; i += LIST_CONCURRENCY) {
        summaries.push(...await Promise.all(slos.slice(i, i + LIST_CONCURRENCY).map(slo => report(slo, undefined, { days: false, reads }).catch(err => err))))
      }
      for (const [i, slo] of slos.entries()) {
        const described = {
          name: slo.name,
          displayName: slo.displayName,
          service: slo.service,
          target: slo.target,
          timeWindow: { duration: slo.window.duration, rolling: slo.window.rolling, timeZone: slo.window.zone },
          source: slo.stored ? 'stored' : 'file'
        }
        let r
        try {
          r = summaries[i]
          if (r instanceof Error) throw r
        } catch (err) {
          // one SLO its selectors cannot answer (a distribution, a read past MAX_SERIES) does not hide the others
          if (!(err instanceof BadRequestError)) throw err
          out.push({ ...described, status: 'refused', error: err.message, documents: 0 })
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
     * The current period's summary report (no local days) of every SLO in force, at most `concurrency`
     * read at once (GET /metrics, docs/adr/0067-slo-metrics.md) → [{ name,
     * report } | { name, refused: message } | { name, failed: error (null: not
     * read, after a database error) }]; a database error stops the reads not begun.
     */
    async currentReports ({ concurrency }) {
      const { slos, refused } = await inForce()
      // a summary: the series need no local day, so the period is read as one range (as the listing reads it)
      const reads = new Map()
      const outcomes = await settleLimited(slos, concurrency, slo => report(slo, undefined, { days: false, reads }), { stopsAll: isDatabaseError })
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
