// The latency panel: p50, p90 and p99 of one selected distribution as three
// lines, over the series chart's window and zone, at its step, minutes
// included, where the API answers it (latency-plan.js), saying so when a
// refusal made it coarser. Shown only while a distribution is selected; with
// several, its selector picks the one drawn.
import { createSeriesChart } from './charts.js'
import { PERCENTILES, PERCENTILE_COLORS, latencyAxisLabel, latencyNote } from './latency-plan.js'
import { readStats } from './series-read.js'

/**
 * els: { panel, select, chart, empty, note, partialKey }; zone(): the zone
 * shown; onPick(metric): the selector picked another distribution
 */
export function createLatencyPanel (els, { zone, onPick }) {
  const chart = createSeriesChart(els.chart, zone)
  let loadSeq = 0
  els.select.addEventListener('change', () => onPick(els.select.value))

  function clear () {
    chart.clear()
    els.partialKey.hidden = true
    els.note.textContent = ''
    els.chart.dataset.step = ''
    els.chart.dataset.metric = ''
  }

  function showError (text) {
    clear()
    els.empty.textContent = text
    els.empty.hidden = false
  }

  return {
    /**
     * distributions: the selected ones; metric: the one drawn. No
     * distribution: the panel hidden, no room taken. → whether the panel
     * came or went (the other charts then have another height)
     */
    show (distributions, metric) {
      const was = els.panel.hidden
      els.panel.hidden = distributions.length === 0
      els.select.replaceChildren(...distributions.map(m => new Option(m, m, false, m === metric)))
      if (distributions.length === 0) {
        loadSeq++ // a load under way is not drawn
        clear()
      }
      return els.panel.hidden !== was
    },

    /**
     * Draws `metric`'s percentiles over query ({ from, to, tz }) for a series
     * chart at `seriesStep`, asked at that step; coarsen: step back on the
     * API's refusals, as `auto` does for the series chart (else a refusal is
     * shown, as the series chart shows it under a step picked by hand).
     */
    async load (metric, { query, seriesStep, coarsen }) {
      const seq = ++loadSeq
      const read = await readStats(metric, PERCENTILES, { query, step: seriesStep, coarsen })
      if (seq !== loadSeq) return
      const failed = read.results.find(r => r.error)
      if (failed) return showError(`${metric} ${failed.stat}: ${failed.error.message}`)
      const first = read.results[0].answer
      els.empty.hidden = true
      els.partialKey.hidden = !chart.render(PERCENTILES, PERCENTILE_COLORS, {
        timestamps: first.timestamps,
        valuesList: read.results.map(r => r.answer.values),
        to: first.to
      }, { axes: [{ label: latencyAxisLabel(read.step), fromZero: false }], axisOf: PERCENTILES.map(() => 0) })
      els.chart.dataset.step = read.step
      els.chart.dataset.metric = metric
      els.note.textContent = latencyNote(seriesStep, read.step)
    },

    resize: () => chart.resize()
  }
}
