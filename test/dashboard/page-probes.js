// What the browser tests read off the dashboard page: the series requests
// it sends, the plot's width, the labels uPlot draws on its canvas, and
// boxes that overlap. uPlot draws axis labels with fillText on a canvas, so
// there are no label elements to ask for their boxes: recordCanvasText
// records every fillText with its box (measureText at the moment of
// drawing, through the canvas transform), and forgets a canvas's texts each
// time uPlot clears the whole canvas to draw it again.

const MIN = 60_000
export const STEP_MS = { minute: MIN, 'quarter-hour': 15 * MIN, hour: 60 * MIN, day: 24 * 60 * MIN }
export const FINER = { 'quarter-hour': 'minute', hour: 'quarter-hour', day: 'hour' }

/** A series request's metric, stat (null: the metric's default series), step, from and to */
export function seriesRequest (url) {
  const u = new URL(url)
  const q = u.searchParams
  return { metric: decodeURIComponent(u.pathname.split('/')[3]), stat: q.get('stat'), step: q.get('step'), from: Number(q.get('from')), to: Number(q.get('to')) }
}

export const isSeriesRequest = request => new URL(request.url()).pathname.endsWith('/series')

/** Collects the page's series requests, in order, from now on */
export function recordSeriesRequests (page) {
  const requests = []
  page.on('request', r => { if (isSeriesRequest(r)) requests.push(seriesRequest(r.url())) })
  return requests
}

/** Points a request asks for: ceil(range / step) */
export const pointsAsked = ({ from, to, step }) => Math.ceil((to - from) / STEP_MS[step])

/** The width in CSS px of the series chart's plot (uPlot's .u-over covers exactly the plot) */
export const plotWidth = page => page.$eval('#chart .u-over', el => el.getBoundingClientRect().width)

/** For page.addInitScript: records fillText boxes per canvas in window.__canvasText */
export function recordCanvasText () {
  const texts = new Map()
  window.__canvasText = texts
  const proto = window.CanvasRenderingContext2D.prototype
  const clearRect = proto.clearRect
  const fillText = proto.fillText
  proto.clearRect = function (x, y, w, h) {
    if (x <= 0 && y <= 0 && x + w >= this.canvas.width && y + h >= this.canvas.height) texts.set(this.canvas, [])
    return clearRect.call(this, x, y, w, h)
  }
  proto.fillText = function (text, x, y, ...rest) {
    const m = this.measureText(text)
    const t = this.getTransform()
    const corners = [[x - m.actualBoundingBoxLeft, y - m.actualBoundingBoxAscent], [x + m.actualBoundingBoxRight, y + m.actualBoundingBoxDescent]]
      .map(([px, py]) => [t.a * px + t.c * py + t.e, t.b * px + t.d * py + t.f])
    const box = {
      text,
      left: Math.min(corners[0][0], corners[1][0]),
      right: Math.max(corners[0][0], corners[1][0]),
      top: Math.min(corners[0][1], corners[1][1]),
      bottom: Math.max(corners[0][1], corners[1][1])
    }
    if (!texts.has(this.canvas)) texts.set(this.canvas, [])
    texts.get(this.canvas).push(box)
    return fillText.call(this, text, x, y, ...rest)
  }
}

/**
 * The labels last drawn on the canvas of the chart `selector` (the series
 * chart by default), in CSS px from the canvas's left and top: { canvas: {
 * width, height }, plot: { left, right, top, bottom }, x: [boxes below the
 * plot], y: [boxes left of it] }
 */
export function chartLabels (page, selector = '#chart') {
  return page.$eval(selector, el => {
    const canvas = el.querySelector('canvas')
    const rect = canvas.getBoundingClientRect()
    const scale = rect.width / canvas.width // canvas px → CSS px
    const over = el.querySelector('.u-over').getBoundingClientRect()
    const plot = { left: over.left - rect.left, right: over.right - rect.left, top: over.top - rect.top, bottom: over.bottom - rect.top }
    const boxes = (window.__canvasText.get(canvas) ?? []).map(b => ({ text: b.text, left: b.left * scale, right: b.right * scale, top: b.top * scale, bottom: b.bottom * scale }))
    return {
      canvas: { width: rect.width, height: rect.height },
      plot,
      x: boxes.filter(b => b.top >= plot.bottom),
      y: boxes.filter(b => b.top < plot.bottom)
    }
  })
}

/** Pairs of boxes that share any area */
export function overlappingPairs (boxes) {
  const pairs = []
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i]
      const b = boxes[j]
      if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) pairs.push([a.text, b.text])
    }
  }
  return pairs
}

/** For page.addInitScript: every uPlot the page makes, kept in window.__plots (uPlot is the global its script defines) */
export function recordPlots () {
  window.__plots = []
  let recorded
  Object.defineProperty(window, 'uPlot', {
    configurable: true,
    get: () => recorded,
    set: real => {
      recorded = new Proxy(real, { construct: (target, args) => { const u = Reflect.construct(target, args); window.__plots.push(u); return u } })
    }
  })
}

/** The data (uPlot's data arrays: x, then each series) of the live uPlot drawn in the element `selector` */
export function plotData (page, selector) {
  return page.$eval(selector, el => window.__plots.filter(u => u.root.isConnected && el.contains(u.root)).at(-1)?.data ?? null)
}
