// The SLO series of GET /metrics (docs/slos.md#alerting): prom-client gauges
// set at scrape time from one read of every SLO's current report, shared by
// all of them (a scrape asks every gauge at once). The reports come from the
// SLO service, their counter selectors read together
// (docs/adr/0074-slo-summaries-read-together.md); a scrape never fails for a
// report (docs/adr/0067-slo-metrics.md).
import { Gauge } from 'prom-client'
import { SLO_GAUGES, sloSamples } from '../slos/slo-samples.js'
import { isDatabaseError } from '../errors.js'

/** A distribution's selectors (read one by one, not together) read at once by a scrape */
export const SLO_SCRAPE_CONCURRENCY = 8

/**
 * register: the app's prom-client Registry; currentReports({ concurrency }):
 * the SLO service's, or null where there is none; log: where a report's
 * failure is told (once a scrape)
 */
export function registerSloGauges (register, { currentReports, log }) {
  let pending = null

  async function read () {
    let samples
    try {
      const outcomes = await currentReports({ concurrency: SLO_SCRAPE_CONCURRENCY }) ?? []
      samples = sloSamples({ outcomes })
      const failed = outcomes.filter(o => o.failed !== undefined)
      if (failed.length > 0) {
        const err = failed.find(o => o.failed !== null)?.failed
        log[isDatabaseError(err) ? 'warn' : 'error']({ err, slos: failed.map(o => o.name) }, 'SLO series left out of /metrics: their reports failed (statbucket_slo_report_errors)')
      }
    } catch (err) {
      samples = sloSamples({ outcomes: [], listFailed: err })
      log[isDatabaseError(err) ? 'warn' : 'error']({ err }, 'SLO series left out of /metrics: the SLOs could not be listed')
    }
    return samples
  }
  /** One read for the gauges of one scrape (and of any scrape that starts while it runs) */
  const scrape = () => (pending ??= read().finally(() => { pending = null }))

  for (const { name, help, labelNames } of SLO_GAUGES) {
    // eslint-disable-next-line no-new -- registered by its `registers`
    new Gauge({
      name,
      help,
      labelNames,
      registers: [register],
      async collect () {
        const samples = (await scrape())[name]
        this.reset()
        for (const { labels, value } of samples) this.set(labels, value)
      }
    })
  }
}
