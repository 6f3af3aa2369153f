// The two charts (uPlot, global from /vendor/uplot/uPlot.iife.min.js):
// the series of the selected metrics over time, and the year's months.
//
// null (no document for that day) is a gap in the line over a hatched band;
// zero is a line on 0. A value with no neighbour is drawn as a dot, since a
// line of one point would not show. A last point whose bucket is not over
// (partial.js) is drawn as partial: the segment to it dashed and lighter, the
// point a dotted ring, the ytd month a light bar with a dashed outline, and
// "(partial)" after its value in the legend; every other line is solid.
//
// Each y axis has a title, what a point is (kind-views.js: "count per
// minute", "level"), written level above its column of tick labels (a
// title along the axis would not fit a short chart): one axis per title,
// the first left of the plot, the next right, and so on outwards, a column
// farther out titled a line higher. An axis of sums starts at 0. The SLO
// page's charts (slo-charts.js) share the sizing, axes and titles.
import { formatNumber } from './format.js'
import { seriesLastPartial, ytdLastPartial } from './partial.js'
import { formatIn } from './zone.js'
import { AXIS_FONT, INCRS, MONTHS, labelSpace, tickLabels } from './time-axis.js'

const UPlot = globalThis.uPlot
const MIN_WIDTH = 300
const MIN_HEIGHT = 120 // the canvas: plot and x axis
const LEGEND_GUESS = 30 // the legend's height before there is one to measure
const Y_AXIS_SIZE = 60
const PADDING = [16, 24, 0, 0] // top, right, bottom, left (CSS px) around the plot and its axes
const TITLE_GAP = 10 // CSS px from the plot's top up to the baseline of the titles next to it (the top tick label sits at the top)
const TITLE_LINE = 16 // CSS px from one line of titles to the next

const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 2 })

function hatchPattern (ctx, pxRatio) {
  const size = Math.round(8 * pxRatio)
  const tile = document.createElement('canvas')
  tile.width = tile.height = size
  const t = tile.getContext('2d')
  t.strokeStyle = 'rgba(120, 120, 135, 0.35)'
  t.lineWidth = Math.max(1, pxRatio)
  t.beginPath()
  t.moveTo(0, size)
  t.lineTo(size, 0)
  t.stroke()
  return ctx.createPattern(tile, 'repeat')
}

/** The size of a uPlot filling `el`: its width, and its height less the legend's (measured on `plot` when there is one) */
export function sizeIn (el, plot) {
  const legend = plot ? plot.root.offsetHeight - plot.height : LEGEND_GUESS
  return { width: Math.max(MIN_WIDTH, el.clientWidth), height: Math.max(MIN_HEIGHT, el.clientHeight - legend) }
}

/** A uPlot in `el`, sized to fill it once it is drawn and its legend can be measured */
export function plotIn (el, opts, data) {
  const fit = u => {
    const size = sizeIn(el, u)
    if (size.width !== u.width || size.height !== u.height) u.setSize(size)
  }
  return new UPlot({ ...opts, ...sizeIn(el, null), hooks: { ...opts.hooks, ready: [...(opts.hooks?.ready ?? []), fit] } }, data, el)
}

/** Legend value at the cursor: '—' with no cursor, 'no data' for null, '(partial)' after the last value when isPartial() */
const legendValue = isPartial => (u, v, seriesIdx, idx) => {
  if (idx === null || idx === undefined) return '—'
  return formatNumber(v) + (isPartial() && v !== null && idx === u.data[0].length - 1 ? ' (partial)' : '')
}

/**
 * A uPlot path builder drawing up to the point before the last when
 * isPartial(): the last point is drawn by partialPlugin. null (nothing)
 * when the last point is the only one.
 */
function withoutPartial (build, isPartial) {
  return (u, seriesIdx, idx0, idx1) => {
    if (!isPartial() || idx1 !== u.data[0].length - 1) return build(u, seriesIdx, idx0, idx1)
    return idx1 > idx0 ? build(u, seriesIdx, idx0, idx1 - 1) : null
  }
}

const DASH = [4, 3] // CSS px

/**
 * Draws the last point of each series as partial when isPartial(): with
 * `bars`, the path builder of the bars, a light bar with a dashed outline;
 * else the segment from the point before dashed and lighter, and a dotted
 * ring on the point.
 */
function partialPlugin (isPartial, bars = null) {
  return {
    hooks: {
      draw: u => {
        if (!isPartial()) return
        const { ctx } = u
        const px = UPlot.pxRatio
        const xs = u.data[0]
        const last = xs.length - 1
        ctx.save()
        for (let si = 1; si < u.series.length; si++) {
          const s = u.series[si]
          const ys = u.data[si]
          if (!s.show || ys[last] === null || ys[last] === undefined) continue
          const color = s.stroke(u, si)
          ctx.strokeStyle = color
          ctx.lineWidth = s.width * px
          ctx.setLineDash(DASH.map(d => d * px))
          if (bars) {
            const { fill } = bars(u, si, last, last)
            ctx.fillStyle = color + '33'
            ctx.fill(fill)
            ctx.stroke(fill)
            continue
          }
          const x = u.valToPos(xs[last], 'x', true)
          const y = u.valToPos(ys[last], s.scale, true)
          if (last > 0 && ys[last - 1] !== null && ys[last - 1] !== undefined) {
            ctx.globalAlpha = 0.6
            ctx.beginPath()
            ctx.moveTo(u.valToPos(xs[last - 1], 'x', true), u.valToPos(ys[last - 1], s.scale, true))
            ctx.lineTo(x, y)
            ctx.stroke()
            ctx.globalAlpha = 1
          }
          ctx.setLineDash([2 * px, 2 * px])
          ctx.fillStyle = '#fff'
          ctx.beginPath()
          ctx.arc(x, y, 4 * px, 0, 2 * Math.PI)
          ctx.fill()
          ctx.stroke()
        }
        ctx.restore()
      }
    }
  }
}

/** A y range that holds 0: bars and sums stand on it (below 0 too, where values are negative) */
export const fromZero = (u, min, max) => UPlot.rangeNum(Math.min(0, min ?? 0), Math.max(0, max ?? 0), 0.1, true)
/** A y range around the values, or 0 to 1 when there is none: the axis and its title stay */
const aroundValues = (u, min, max) => (min === null || max === null ? [0, 1] : UPlot.rangeNum(min, max, 0.1, true))

/** Y axis k (0 the first): left of the plot for even k, right for odd; its column's place outwards on its side (0 next to the plot) */
const isLeft = k => k % 2 === 0
const depthOf = k => Math.floor(k / 2)
/** The padding above a plot of `count` y axes: room for a line of titles per column on the fuller side */
export const paddingTop = count => 8 + TITLE_LINE * Math.ceil(Math.max(1, count) / 2)

/** Y axis k on scale `scale`, the first with the grid */
export function yAxis (scale, k) {
  return {
    scale,
    side: isLeft(k) ? 3 : 1,
    stroke: '#555',
    grid: k === 0 ? { stroke: '#eee' } : { show: false },
    font: AXIS_FONT,
    size: Y_AXIS_SIZE,
    values: (u, splits) => splits.map(v => compact.format(v))
  }
}

/** Draws titles[k] above y axis k's column: left-aligned at its outer edge left of the plot, right-aligned right of it */
export function axisTitlesPlugin (titles) {
  return {
    hooks: {
      draw: u => {
        const px = UPlot.pxRatio
        const { ctx, bbox } = u
        ctx.save()
        ctx.font = AXIS_FONT.replace(/^(\d+)px/, (m, size) => `${size * px}px`)
        ctx.fillStyle = '#555'
        ctx.textBaseline = 'alphabetic'
        titles.forEach((title, k) => {
          const out = (depthOf(k) + 1) * Y_AXIS_SIZE * px
          ctx.textAlign = isLeft(k) ? 'left' : 'right'
          ctx.fillText(title, isLeft(k) ? bbox.left - out : bbox.left + bbox.width + out, bbox.top - (TITLE_GAP + depthOf(k) * TITLE_LINE) * px)
        })
        ctx.restore()
      }
    }
  }
}

/** Index runs [start, end] where every series is null */
export function noDataRuns (valuesList, length) {
  const runs = []
  let start = -1
  for (let i = 0; i < length; i++) {
    const empty = valuesList.every(values => values[i] === null)
    if (empty && start === -1) start = i
    if (!empty && start !== -1) { runs.push([start, i - 1]); start = -1 }
  }
  if (start !== -1) runs.push([start, length - 1])
  return runs
}

/** Indices of values whose neighbours are both null (or the ends) */
export function isolatedPoints (values) {
  const idx = []
  for (let i = 0; i < values.length; i++) {
    if (values[i] === null) continue
    const before = i === 0 || values[i - 1] === null
    const after = i === values.length - 1 || values[i + 1] === null
    if (before && after) idx.push(i)
  }
  return idx
}

/** Hatched bands where no series has data; `half` widens each slot by half a step both ways (bars) */
function noDataPlugin (getRuns, half = 0) {
  let pattern = null
  return {
    hooks: {
      drawClear: u => {
        const runs = getRuns(u)
        if (runs.length === 0) return
        const xs = u.data[0]
        const { ctx, bbox } = u
        pattern ??= hatchPattern(ctx, UPlot.pxRatio)
        ctx.save()
        ctx.fillStyle = pattern
        const stepMs = xs.length > 1 ? xs[1] - xs[0] : 1
        const widen = half * stepMs
        for (const [a, b] of runs) {
          const left = Math.max(bbox.left, u.valToPos(xs[a] - widen, 'x', true))
          const right = Math.min(bbox.left + bbox.width, u.valToPos((b + 1 < xs.length ? xs[b + 1] : xs[b] + stepMs) - widen, 'x', true))
          if (right > left) ctx.fillRect(left, bbox.top, right - left, bbox.height)
        }
        ctx.restore()
      }
    }
  }
}

/** el: the chart's element; zone(): the IANA zone the axis and legend show */
export function createSeriesChart (el, zone = () => 'UTC') {
  let plot = null
  let shape = '' // the series names and colors the plot was built for
  let runs = []
  let isolated = []
  let partial = false // the last point's bucket is not over
  let axisCount = 1 // y axes of the last plot drawn
  const isPartial = () => partial
  const line = withoutPartial(UPlot.paths.linear(), isPartial)

  /** The points uPlot draws: all (show) or the isolated ones, never a partial last one, which partialPlugin draws */
  function pointsShown (u, si, show) {
    const last = u.data[0].length - 1
    if (!partial) return show ? null : isolated[si - 1]
    return show ? Array.from({ length: last }, (_, i) => i) : isolated[si - 1].filter(i => i !== last)
  }

  function build (labels, colors, data, { axes, axisOf }) {
    plot?.destroy()
    const tz = zone()
    const scaleOf = i => `y${i}`
    plot = plotIn(el, {
      padding: [paddingTop(axes.length), ...PADDING.slice(1)],
      ms: 1,
      // ticks at the zone's hours, days and months
      tzDate: ts => UPlot.tzDate(new Date(ts), tz),
      scales: { x: { time: true }, ...Object.fromEntries(axes.map((a, i) => [scaleOf(i), { range: a.fromZero ? fromZero : aroundValues }])) },
      cursor: { drag: { x: true, y: false } },
      series: [
        { label: `time (${tz})`, value: (u, v) => (v === null || v === undefined ? '—' : formatIn(tz, v)) },
        ...labels.map((label, i) => ({
          label,
          scale: scaleOf(axisOf[i]),
          stroke: colors[i],
          width: 1.5,
          spanGaps: false,
          paths: line,
          value: legendValue(isPartial),
          points: { filter: pointsShown }
        }))
      ],
      axes: [
        { stroke: '#555', grid: { stroke: '#eee' }, font: AXIS_FONT, incrs: INCRS, space: labelSpace, values: (u, splits, axisIdx, space, incr) => tickLabels(splits, incr, tz) },
        ...axes.map((a, i) => yAxis(scaleOf(i), i))
      ],
      plugins: [noDataPlugin(() => runs), partialPlugin(isPartial), axisTitlesPlugin(axes.map(a => a.label))]
    }, data)
  }

  return {
    /**
     * labels: the series' names; colors: per series; answer: { timestamps,
     * valuesList, to } (to: the end of the last point's bucket); axes: {
     * axes: [{ label, fromZero }], axisOf: each series' axis } (kind-views.js
     * chartAxes). → whether the last point is drawn as partial (its bucket
     * ends after now)
     */
    render (labels, colors, { timestamps, valuesList, to }, axes, now = Date.now()) {
      partial = seriesLastPartial({ to, timestamps }, now)
      runs = noDataRuns(valuesList, timestamps.length)
      isolated = valuesList.map(isolatedPoints)
      axisCount = axes.axes.length
      const data = [timestamps, ...valuesList]
      const key = JSON.stringify([labels, colors, axes, zone()])
      if (plot && key === shape) plot.setData(data)
      else { build(labels, colors, data, axes); shape = key }
      el.dataset.points = String(timestamps.length)
      el.dataset.series = String(labels.length)
      el.dataset.nulls = String(valuesList.reduce((n, values) => n + values.filter(v => v === null).length, 0))
      el.dataset.partial = String(partial)
      return partial
    },
    clear () {
      plot?.destroy()
      plot = null
      shape = ''
      partial = false
      el.dataset.partial = 'false'
      el.dataset.points = '0'
      el.dataset.series = '0'
      el.dataset.nulls = '0'
    },
    resize () {
      plot?.setSize(sizeIn(el, plot))
    },
    /**
     * The plot's width in CSS px (the chart's less its y axes and padding),
     * with or without a plot drawn; axes: how many y axes it will have
     * (default: as many as the last drawn, at least 1)
     */
    plotWidth (axes = axisCount) {
      return sizeIn(el, plot).width - Math.max(1, axes) * Y_AXIS_SIZE - PADDING[1] - PADDING[3]
    }
  }
}

export function createYtdChart (el) {
  let plot = null
  let shape = ''
  let partial = false // the last month is not over
  const isPartial = () => partial
  const bars = UPlot.paths.bars({ size: [0.6, 80] })
  const line = withoutPartial(UPlot.paths.linear(), isPartial)

  /** lines: null for one metric's bars, else [{ label, color }] a line each (the groups of a read by=) */
  function build (color, label, data, lines = null) {
    plot?.destroy()
    const series = lines
      ? lines.map(l => ({ label: l.label, stroke: l.color, width: 1.5, paths: line, points: { show: true, size: 5, filter: (u, si, show) => (partial ? u.data[0].slice(0, -1).map((x, i) => i) : null) }, value: legendValue(isPartial) }))
      : [{
          label: 'total',
          stroke: color,
          fill: color + '99',
          width: 1,
          paths: withoutPartial(bars, isPartial),
          points: { show: false },
          value: legendValue(isPartial)
        }]
    plot = plotIn(el, {
      padding: [paddingTop(1), null, null, null], // room for the axis title; the others as uPlot fits them
      // bars stand on 0: a bar's height is its month's total (below 0 too, when totals are negative)
      scales: { x: { time: false, range: [0.5, 12.5] }, y: { range: fromZero } },
      cursor: { drag: { x: false, y: false } },
      series: [{ label: 'month', value: (u, v) => (v ? MONTHS[v - 1] : '—') }, ...series],
      axes: [
        { stroke: '#555', grid: { show: false }, splits: () => [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], values: (u, splits) => splits.map(m => MONTHS[m - 1]) },
        yAxis('y', 0)
      ],
      // a month without data: its slot hatched; x runs from 1, one per month
      plugins: [noDataPlugin(u => noDataRuns(u.data.slice(1), u.data[0].length), 0.5), partialPlugin(isPartial, lines ? null : bars), axisTitlesPlugin([label])]
    }, data)
  }

  return {
    /**
     * answer: the ytd answer (months up to asOf); label: what a month's bar
     * is ('count per month'). → whether the last month is drawn as partial
     * (it ends after now)
     */
    render (answer, color, label, now = Date.now()) {
      partial = ytdLastPartial(answer, now)
      const x = answer.months.map((m, i) => i + 1)
      const y = answer.months.map(m => m.total)
      const data = [x, y]
      const key = JSON.stringify([color, label])
      if (plot && shape === key) plot.setData(data)
      else { build(color, label, data); shape = key }
      el.dataset.months = String(answer.months.length)
      el.dataset.series = '1'
      el.dataset.partial = String(partial)
      return partial
    },
    /**
     * A line per group: answer: the groups summed (its months); lines: [{
     * label, color, values (a total per month) }] → as render
     */
    renderLines (answer, lines, label, now = Date.now()) {
      partial = ytdLastPartial(answer, now)
      const data = [answer.months.map((m, i) => i + 1), ...lines.map(l => l.values)]
      const key = JSON.stringify([lines.map(l => [l.label, l.color]), label])
      if (plot && shape === key) plot.setData(data)
      else { build(null, label, data, lines); shape = key }
      el.dataset.months = String(answer.months.length)
      el.dataset.series = String(lines.length)
      el.dataset.partial = String(partial)
      return partial
    },
    clear () {
      plot?.destroy()
      plot = null
      shape = ''
      partial = false
      el.dataset.partial = 'false'
    },
    resize () {
      plot?.setSize(sizeIn(el, plot))
    }
  }
}
