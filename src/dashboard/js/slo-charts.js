// The SLO page's two charts (uPlot): the error budget remaining over the
// period, and good and bad events per local day (slo-view.js draws their
// data). x is the day's place in the period (day i from i to i + 1), labelled
// with its date (MM-DD) at the day's middle, as many as fit. Bad events are
// on their own axis (right): beside 99.9 % good they would not show.
import { axisTitlesPlugin, fromZero, paddingTop, plotIn, sizeIn, yAxis } from './charts.js'
import { formatNumber } from './format.js'
import { dayName, formatPercent } from './slo-view.js'
import { AXIS_FONT, labelSpace } from './time-axis.js'

const UPlot = globalThis.uPlot
const EVERY = [1, 2, 7, 14, 28, 56, 91, 182] // days between two labels
const COLORS = { remaining: '#2563eb', good: '#16a34a', bad: '#dc2626' }

/** The x axis over `days` ([{ day }]): labels at the middles of every k-th day, k the least that leaves labelSpace() between them */
function dayAxis (days) {
  return {
    stroke: '#555',
    grid: { show: false },
    font: AXIS_FONT,
    splits: u => {
      const perDay = u.bbox.width / UPlot.pxRatio / Math.max(1, days.length)
      const every = EVERY.find(k => k * perDay >= labelSpace()) ?? EVERY.at(-1)
      return days.map((d, i) => i).filter(i => i % every === 0).map(i => i + 0.5)
    },
    values: (u, splits) => splits.map(x => days[Math.floor(x)]?.day.slice(5) ?? '')
  }
}

/** A chart in `el`: build(days, data) draws it (opts(days) its uPlot options), again only when the days change */
function chartIn (el, opts) {
  let plot = null
  let shape = ''
  return {
    render (days, data) {
      const key = JSON.stringify(days.map(d => d.day))
      if (plot && key === shape) plot.setData(data)
      else {
        plot?.destroy()
        plot = plotIn(el, opts(days), data)
        shape = key
      }
      el.dataset.days = String(days.length)
    },
    clear () {
      plot?.destroy()
      plot = null
      shape = ''
      el.dataset.days = '0'
    },
    resize () {
      plot?.setSize(sizeIn(el, plot))
    }
  }
}

const scaleOver = days => ({ time: false, range: [0, Math.max(1, days.length)] })
/** A legend value: '—' with no cursor */
const legend = format => (u, v, si, idx) => (idx === null || idx === undefined ? '—' : format(v))

/** The budget remaining (slo-view.js burnDown): a line from 100 % at the first local midnight; its axis holds 0 and 100 % */
export function createBurnDownChart (el) {
  let today = -1 // the point of the day in progress, if any: the budget so far, not after the day
  const pointLabel = (days, k) => (k === 0 ? `${days[0].day} 00:00` : k === today ? `${days[k - 1].day} so far` : `end of ${days[k - 1].day}`)
  const chart = chartIn(el, days => ({
    padding: [paddingTop(1), null, null, null],
    scales: { x: scaleOver(days), y: { range: (u, min, max) => fromZero(u, min, Math.max(1, max ?? 1)) } },
    cursor: { drag: { x: false, y: false } },
    series: [
      { label: 'day', value: (u, k) => (k === null || k === undefined ? '—' : pointLabel(days, k)) },
      { label: 'budget remaining', stroke: COLORS.remaining, width: 2, spanGaps: false, points: { show: days.length < 40 }, value: legend(formatPercent) }
    ],
    axes: [dayAxis(days), { ...yAxis('y', 0), values: (u, splits) => splits.map(v => `${Math.round(v * 100)} %`) }],
    plugins: [axisTitlesPlugin(['error budget remaining'])]
  }))
  return {
    /** days: the report's; data: burnDown's; inProgress: the point of the day not over (-1: none) */
    render (days, { x, remaining }, inProgress = -1) {
      today = inProgress
      chart.render(days, [x, remaining])
    },
    clear: chart.clear,
    resize: chart.resize
  }
}

/** Good and bad events per local day (slo-view.js dayBars): a pair of bars each, good on the left axis, bad on the right */
export function createDayBarsChart (el) {
  let zone = 'UTC' // the report's: a day the clock changes in is named with its hours
  const bars = align => UPlot.paths.bars({ size: [0.45, 40], align })
  const chart = chartIn(el, days => ({
    padding: [paddingTop(2), null, null, null],
    scales: { x: scaleOver(days), good: { range: fromZero }, bad: { range: fromZero } },
    cursor: { drag: { x: false, y: false } },
    series: [
      { label: 'day', value: (u, x) => (x === null || x === undefined ? '—' : dayName(zone, days[Math.floor(x)].day)) },
      { label: 'good', scale: 'good', stroke: COLORS.good, fill: COLORS.good + '99', width: 1, paths: bars(-1), points: { show: false }, value: legend(formatNumber) },
      { label: 'bad', scale: 'bad', stroke: COLORS.bad, fill: COLORS.bad + '99', width: 1, paths: bars(1), points: { show: false }, value: legend(formatNumber) }
    ],
    axes: [dayAxis(days), yAxis('good', 0), yAxis('bad', 1)],
    plugins: [axisTitlesPlugin(['good per day', 'bad per day'])]
  }))
  return {
    /** days: the report's; data: dayBars'; tz: the report's zone */
    render (days, { x, good, bad }, tz) {
      zone = tz
      chart.render(days, [x, good, bad])
    },
    clear: chart.clear,
    resize: chart.resize
  }
}
