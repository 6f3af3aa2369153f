// The SLO series of GET /metrics (docs/slos.md#alerting,
// docs/adr/0067-slo-metrics.md) from the current period's reports
// (slo-service.js currentReports): a figure a report does not have (no
// events, nothing allowed) is left out, never a zero; a report not made is
// left out whole and counted in statbucket_slo_report_errors. Pure.
import { isDatabaseError } from '../errors.js'

export const BURN_WINDOW_NAMES = ['5m', '30m', '1h', '6h', '1d', '3d']
const ERROR_REASONS = ['refused', 'database', 'internal']

/** The gauges, in the order /metrics prints them */
export const SLO_GAUGES = [
  { name: 'statbucket_slo_target', labelNames: ['slo'], help: 'The SLO\'s objective (0–1), for each SLO whose current report was made: join the others on it.' },
  { name: 'statbucket_slo_attainment', labelNames: ['slo'], help: 'Good ÷ total events of the SLO\'s current period (docs/slos.md); left out without events.' },
  { name: 'statbucket_slo_period_good_events', labelNames: ['slo'], help: 'Good events of the SLO\'s current period, exact.' },
  { name: 'statbucket_slo_period_events', labelNames: ['slo'], help: 'All events of the SLO\'s current period, exact.' },
  { name: 'statbucket_slo_error_budget_remaining_events', labelNames: ['slo'], help: 'Bad events the current period still allows: ⌊(1 − target) × total⌋ − bad (negative once spent).' },
  { name: 'statbucket_slo_error_budget_remaining_ratio', labelNames: ['slo'], help: 'The remaining error budget ÷ the allowed bad events (1 untouched, ≤ 0 spent); left out while nothing is allowed.' },
  { name: 'statbucket_slo_burn_rate', labelNames: ['slo', 'window'], help: 'Bad fraction ÷ (1 − target) over the window ending with the current minute (5m, 30m, 1h, 6h, 1d, 3d); left out for a window without events.' },
  { name: 'statbucket_slo_report_errors', labelNames: ['reason'], help: 'SLOs whose series this scrape left out: refused (GET /v1/slos says why), database (failed, or not read after a database error; 1 when the SLO list could not be read), internal (logged).' },
  { name: 'statbucket_slo_documents_read', labelNames: [], help: 'Documents this scrape\'s SLO reports read.' }
]

const reasonOf = (err) => (err === null || isDatabaseError(err) ? 'database' : 'internal')

/**
 * outcomes: currentReports' [{ name, report } | { name, refused } | { name,
 * failed }]; listFailed: the error that kept the list of SLOs from being read
 * (then outcomes is []) → { [gauge name]: [{ labels, value }] }
 */
export function sloSamples ({ outcomes, listFailed = undefined }) {
  const samples = Object.fromEntries(SLO_GAUGES.map(g => [g.name, []]))
  const add = (name, labels, value) => { if (value !== null && value !== undefined) samples[name].push({ labels, value }) }
  const errors = Object.fromEntries(ERROR_REASONS.map(r => [r, 0]))
  if (listFailed !== undefined) errors[reasonOf(listFailed)]++
  let documents = 0
  for (const outcome of outcomes) {
    if (outcome.report === undefined) {
      errors[outcome.refused !== undefined ? 'refused' : reasonOf(outcome.failed)]++
      continue
    }
    const { name: slo, report } = outcome
    documents += report.documents
    add('statbucket_slo_target', { slo }, report.target)
    add('statbucket_slo_attainment', { slo }, report.attainment)
    add('statbucket_slo_period_good_events', { slo }, report.good)
    add('statbucket_slo_period_events', { slo }, report.total)
    add('statbucket_slo_error_budget_remaining_events', { slo }, report.budget.remaining)
    add('statbucket_slo_error_budget_remaining_ratio', { slo }, report.budget.remainingRatio)
    for (const window of BURN_WINDOW_NAMES) add('statbucket_slo_burn_rate', { slo, window }, report.burnRates?.[window])
  }
  for (const reason of ERROR_REASONS) add('statbucket_slo_report_errors', { reason }, errors[reason])
  add('statbucket_slo_documents_read', {}, documents)
  return samples
}
