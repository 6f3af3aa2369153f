// The dashboard: state (kept in the URL hash, so a view can be linked and
// survives a reload), the controls, and the loading of series, latency and ytd.
// A metric's tag filters and group-by keys (tag-selection.js) go with each
// of its reads; a grouped read draws a line per group.
// What a metric gets (its panels, badge, series label, y axis) its kind
// decides, as GET /v1/kinds describes it, asked once (kind-views.js).
import { getKinds, getYtd, listMetrics } from './api.js'
import { createSeriesChart, createYtdChart } from './charts.js'
import { colorsOf } from './colors.js'
import { axisLabel, badgeOf, chartAxes, kindBook, namesWithPanel, seriesLabel } from './kind-views.js'
import { createLatencyPanel } from './latency-panel.js'
import { latencyMetric } from './latency-plan.js'
import { createMetricKinds } from './metric-kinds.js'
import { createMetricPicker } from './metric-picker.js'
import { formatNumber } from './format.js'
import { readNames, writeNames } from './hash-names.js'
import { PRESETS, fromInputValue, presetWindow, toInputValue, windowYear } from './ranges.js'
import { readSeries } from './series-read.js'
import { fitStep } from './step-fit.js'
import { createTagControls } from './tag-controls.js'
import { isEmpty, lineLabel, linesOf, readTagParams, tagQuery, writeTagParams, ytdOfGroups } from './tag-selection.js'
import { formatIn, isZone, viewerZone, zoneNames } from './zone.js'

const $ = id => document.getElementById(id)

const state = {
  selected: [],
  tags: new Map(), // metric → { filters, by }: its tag selection (tag-selection.js), none when empty
  range: '24h',
  custom: null, // { from, to } when range is 'custom'
  step: 'auto',
  tz: viewerZone(), // the zone shown and asked in; the viewer's unless the URL names another
  ytdMetric: null,
  latencyMetric: null, // the distribution the latency panel shows
  autoRefresh: false,
  refreshEvery: 30000
}

// ---- URL hash <-> state
function readHash () {
  const q = new URLSearchParams(location.hash.slice(1))
  if (q.get('m')) state.selected = readNames(q.get('m'))
  state.tags = readTagParams(q, state.selected)
  if (q.get('r') in PRESETS || q.get('r') === 'custom') state.range = q.get('r')
  if (state.range === 'custom') {
    const from = Number(q.get('from')); const to = Number(q.get('to'))
    if (from < to) state.custom = { from, to }
    else state.range = '24h'
  }
  if (['auto', 'minute', 'quarter-hour', 'hour', 'day', 'month'].includes(q.get('s'))) state.step = q.get('s')
  if (q.get('ytd')) state.ytdMetric = q.get('ytd')
  if (q.get('lat')) state.latencyMetric = q.get('lat')
  if (q.get('tz') && isZone(q.get('tz'))) state.tz = q.get('tz')
  state.autoRefresh = q.get('auto') === '1'
  if (Number(q.get('every')) >= 1000) state.refreshEvery = Number(q.get('every'))
}

function writeHash () {
  const q = new URLSearchParams()
  if (state.selected.length) q.set('m', writeNames(state.selected))
  writeTagParams(q, state.tags, state.selected)
  q.set('r', state.range)
  if (state.range === 'custom') { q.set('from', state.custom.from); q.set('to', state.custom.to) }
  q.set('s', state.step)
  q.set('tz', state.tz)
  if (state.ytdMetric) q.set('ytd', state.ytdMetric)
  if (state.latencyMetric) q.set('lat', state.latencyMetric)
  if (state.autoRefresh) { q.set('auto', '1'); q.set('every', state.refreshEvery) }
  history.replaceState(null, '', `#${q}`)
}

// ---- helpers
const currentWindow = () => (state.range === 'custom' ? { ...state.custom } : presetWindow(state.range, Date.now(), state.tz))

/** The colour of a selected metric: its own, or one no metric selected before it has (colors.js) */
const colorOf = name => colorsOf(state.selected)[state.selected.indexOf(name)]

function setStatus (text, isError = false) {
  const el = $('status')
  el.textContent = text
  el.classList.toggle('error', isError)
}

// ---- the charts
const seriesChart = createSeriesChart($('chart'), () => state.tz)
const ytdChart = createYtdChart($('ytd-chart'))
const latency = createLatencyPanel({
  panel: $('latency-panel'),
  select: $('latency-metric'),
  chart: $('latency-chart'),
  empty: $('latency-empty'),
  note: $('latency-note'),
  partialKey: $('latency-partial-key')
}, {
  zone: () => state.tz,
  onPick: metric => {
    state.latencyMetric = metric
    writeHash()
    loadLatency(loadSeq, currentWindow())
  }
})
const metricKinds = createMetricKinds(name => listMetrics({ prefix: name, limit: 1 }))
let book = null // GET /v1/kinds (kind-views.js kindBook), once answered
let bookAsked = null
/** The kinds' book, asked once; asked again after a failure */
function loadBook () {
  bookAsked ??= getKinds().then(answer => {
    book = kindBook(answer)
    picker.refresh() // the list's badges
    return book
  }, err => {
    bookAsked = null
    throw err
  })
  return bookAsked
}
let kindOfShown = () => null // name → the kind (of the book) of a metric of the last load's selection
let loadSeq = 0
let askedStep = null // the step the last load asked for first (before any refusal)
let seriesStep = null // the step the series chart's answers are at (after any refusal)
/** The step to ask for: the chosen one, or for `auto` the finest with ≤ 2 points per pixel of the plot (with `axes` y axes) */
const stepFor = (window, axes) => (state.step === 'auto' ? fitStep({ ...window, plotWidth: seriesChart.plotWidth(axes) }) : state.step)

async function loadCharts () {
  const seq = ++loadSeq
  const metrics = [...state.selected]
  $('chart-empty').hidden = metrics.length > 0
  renderChips()
  tagControls.show(metrics, state.tags)
  if (metrics.length === 0) {
    showYtdPicker([], [])
    showLatency([])
    seriesChart.clear()
    ytdChart.clear()
    $('series-partial-key').hidden = true
    $('ytd-partial-key').hidden = true
    setYtdTotal(null)
    setStatus('')
    return
  }
  const window = currentWindow()
  setStatus('loading…')
  let kindOf
  try {
    const [kinds, names] = await Promise.all([loadBook(), metricKinds.resolve(metrics)])
    kindOf = name => kinds.kindOf(names.get(name))
  } catch (err) {
    if (seq === loadSeq) setStatus(`kinds: ${err.message}`, true)
    return
  }
  if (seq !== loadSeq) return
  kindOfShown = kindOf
  const withYtd = namesWithPanel(metrics, kindOf, 'ytd')
  showYtdPicker(withYtd, metrics.filter(m => !withYtd.includes(m)))
  // one y axis per kind of point: the plot's width, and so the step `auto` fits, depends on how many
  askedStep = stepFor(window, chartAxes(metrics.map(kindOf), 'minute').axes.length)
  const { step, results } = await readSeries(metrics, { query: { from: window.from, to: window.to, tz: state.tz }, step: askedStep, coarsen: state.step === 'auto' }, m => tagQuery(state.tags.get(m)))
  if (seq !== loadSeq) return
  seriesStep = step
  showLatency(namesWithPanel(metrics, kindOf, 'latency')) // before the series chart is drawn: the panel takes its height from it
  const ok = results.filter(r => r.answer)
  const failed = results.filter(r => r.error)
  // a metric's line, or with by= one per group (the groups after the metrics in the colours: a metric keeps its own)
  const lines = ok.flatMap(r => linesOf(r.metric, r.answer).map(line => ({ ...line, metric: r.metric })))
  if (lines.length) {
    const first = ok[0].answer
    const groupKeys = lines.filter(l => l.tags).map(l => l.key)
    const colors = colorsOf([...metrics, ...groupKeys])
    const colorOfLine = l => colors[l.tags ? metrics.length + groupKeys.indexOf(l.key) : metrics.indexOf(l.metric)]
    $('series-partial-key').hidden = !seriesChart.render(lines.map(l => lineLabel(seriesLabel(l.metric, kindOf(l.metric)), state.tags.get(l.metric), l.tags)), lines.map(colorOfLine), {
      timestamps: first.timestamps,
      valuesList: lines.map(l => l.values),
      to: first.to
    }, chartAxes(lines.map(l => kindOf(l.metric)), first.step))
    $('step').options[0].textContent = state.step === 'auto' ? `auto (${first.step})` : 'auto'
    $('series-title').textContent = `${formatIn(state.tz, first.from)} → ${formatIn(state.tz, first.to)}`
  } else {
    seriesChart.clear()
    $('series-partial-key').hidden = true
    $('series-title').textContent = `${formatIn(state.tz, window.from)} → ${formatIn(state.tz, window.to)}`
  }
  const unmatched = ok.filter(r => r.answer.groups?.length === 0).map(r => `${r.metric}: no series match`).join(' · ')
  const summary = [lines.length ? `${ok[0].answer.timestamps.length.toLocaleString('en-US')} points per metric at step ${ok[0].answer.step}` : '', unmatched].filter(Boolean).join(' · ')
  const errors = refusals(failed)
  setStatus([summary, errors].filter(Boolean).join(' · '), failed.length > 0)
  await Promise.all([loadLatency(seq, window), loadYtd(seq, windowYear(window, state.tz))])
}

/** The latency panel for the selected distributions: hidden when there is none */
function showLatency (distributions) {
  state.latencyMetric = latencyMetric(distributions, state.latencyMetric)
  writeHash()
  if (latency.show(distributions, state.latencyMetric)) {
    // the column's heights changed: the charts take theirs now, not after the resize observer's pause
    seriesChart.resize()
    ytdChart.resize()
  }
}

/** The latency panel's lines over `window`, at the series chart's step (coarser under `auto` where the API refuses it) */
async function loadLatency (seq, window) {
  if (!state.latencyMetric || seq !== loadSeq) return
  const filters = state.tags.get(state.latencyMetric)?.filters ?? [] // its filters; the panel's lines are its percentiles, never groups
  await latency.load(state.latencyMetric, {
    query: { from: window.from, to: window.to, tz: state.tz, ...tagQuery({ filters, by: [] }) },
    seriesStep,
    coarsen: state.step === 'auto'
  })
}

/** The chart's refused metrics, one message per reason: metrics refused alike (MAX_POINTS, a step too fine) are named together */
function refusals (failed) {
  const byMessage = new Map()
  for (const { metric, error } of failed) byMessage.set(error.message, [...(byMessage.get(error.message) ?? []), metric])
  return [...byMessage].map(([message, metrics]) => `${metrics.join(', ')}: ${message}`).join(' · ')
}

function setYtdTotal (answer) {
  const el = $('ytd-total')
  el.textContent = answer ? formatNumber(answer.total) : '—'
  el.dataset.total = answer ? String(answer.total) : ''
  el.title = answer ? `exactly ${answer.total}` : '' // the text is rounded for reading
  $('ytd-asof').textContent = answer ? `${answer.metric}, ${answer.year} through ${formatIn(answer.tz, answer.asOf, { withZone: false }).slice(0, 10)} (${answer.tz})` : ''
}

/**
 * The ytd panel's metric selector (withYtd: the selected metrics whose kind
 * has a year to date) and total; with none, the text saying what to do, or
 * which metrics have none (without)
 */
function showYtdPicker (withYtd, without) {
  if (!withYtd.includes(state.ytdMetric)) state.ytdMetric = withYtd[0] ?? null
  const none = state.ytdMetric === null
  $('ytd-empty').hidden = !none
  $('ytd-empty').textContent = without.length === 0
    ? 'Pick a metric on the left to see its year to date.'
    : `No year to date for ${without.map(m => `${m} (${kindOfShown(m).name})`).join(', ')}.`
  $('ytd-metric').hidden = none
  $('ytd-summary').hidden = none
  $('ytd-metric').replaceChildren(...withYtd.map(m => new Option(m, m, false, m === state.ytdMetric)))
}

async function loadYtd (seq, year) {
  const metric = state.ytdMetric
  if (!metric) {
    ytdChart.clear()
    $('ytd-partial-key').hidden = true
    setYtdTotal(null)
    return
  }
  try {
    const sel = state.tags.get(metric)
    const answer = await getYtd(metric, { year, tz: state.tz, ...tagQuery(sel) })
    if (seq !== loadSeq) return
    const label = axisLabel(kindOfShown(metric), 'month')
    if (answer.groups) {
      // a line per group over the months, their colours as on the series chart
      const keys = answer.groups.map(g => `${metric} ${JSON.stringify(g.tags)}`)
      const colors = colorsOf([...state.selected, ...keys]).slice(state.selected.length)
      const summed = ytdOfGroups(answer)
      $('ytd-partial-key').hidden = !ytdChart.renderLines(summed, answer.groups.map((g, i) => ({ label: lineLabel('', null, g.tags).trim(), color: colors[i], values: g.months.map(m => m.total) })), label)
      setYtdTotal(summed)
    } else {
      $('ytd-partial-key').hidden = !ytdChart.render(answer, colorOf(metric), label)
      setYtdTotal(answer)
    }
  } catch (err) {
    if (seq !== loadSeq) return
    ytdChart.clear()
    $('ytd-partial-key').hidden = true
    setYtdTotal(null)
    setStatus(`${$('status').textContent} · ytd ${metric}: ${err.message}`, true)
  }
}

function renderChips () {
  $('selected').replaceChildren(...state.selected.map(name => {
    const chip = document.createElement('span')
    chip.className = 'chip'
    chip.dataset.name = name
    const swatch = document.createElement('span')
    swatch.className = 'swatch'
    swatch.style.background = colorOf(name)
    const remove = document.createElement('button')
    remove.type = 'button'
    remove.title = `remove ${name}`
    remove.textContent = '×'
    remove.addEventListener('click', () => toggleMetric(name))
    chip.append(swatch, name, remove)
    return chip
  }))
}

function toggleMetric (name) {
  const i = state.selected.indexOf(name)
  if (i === -1) state.selected.push(name)
  else {
    state.selected.splice(i, 1)
    state.tags.delete(name)
  }
  picker.refresh()
  writeHash()
  loadCharts()
}

// ---- controls
const tagControls = createTagControls($('tag-controls'), {
  onChange: (metric, sel) => {
    if (isEmpty(sel)) state.tags.delete(metric)
    else state.tags.set(metric, sel)
    writeHash()
    loadCharts()
  },
  onError: err => setStatus(`tags: ${err.message}`, true)
})

/** The zone in the picker and beside the custom range's inputs */
function showZone () {
  $('tz').value = state.tz
  for (const el of document.querySelectorAll('.zone-name')) el.textContent = state.tz
}

function showRange () {
  for (const b of document.querySelectorAll('[data-range]')) b.setAttribute('aria-pressed', String(b.dataset.range === state.range))
  $('step').value = state.step
}

function wireControls () {
  for (const button of document.querySelectorAll('[data-range]')) {
    button.addEventListener('click', () => {
      const range = button.dataset.range
      if (range === 'custom') {
        const form = $('custom-range')
        const w = currentWindow()
        $('custom-from').value = toInputValue(w.from, state.tz)
        $('custom-to').value = toInputValue(w.to, state.tz)
        form.hidden = !form.hidden
        return
      }
      $('custom-range').hidden = true
      state.range = range
      showRange()
      writeHash()
      loadCharts()
    })
  }
  $('custom-range').addEventListener('submit', e => {
    e.preventDefault()
    const from = fromInputValue($('custom-from').value, state.tz)
    const to = fromInputValue($('custom-to').value, state.tz)
    if (!(from < to)) return setStatus('the custom range needs From before To', true)
    state.range = 'custom'
    state.custom = { from, to }
    showRange()
    writeHash()
    loadCharts()
  })
  const zones = $('tz')
  zones.replaceChildren(...[...new Set([...zoneNames(), state.tz])].map(z => new Option(z, z, false, z === state.tz)))
  zones.addEventListener('change', e => {
    state.tz = e.target.value
    showZone()
    writeHash()
    loadCharts()
  })
  $('step').addEventListener('change', e => {
    state.step = e.target.value
    writeHash()
    loadCharts()
  })
  $('ytd-metric').addEventListener('change', e => {
    state.ytdMetric = e.target.value
    writeHash()
    loadYtd(loadSeq, windowYear(currentWindow(), state.tz))
  })
  $('refresh').addEventListener('click', () => loadCharts())
  $('auto-refresh').checked = state.autoRefresh
  const every = $('refresh-every')
  if (![...every.options].some(o => o.value === String(state.refreshEvery))) every.add(new Option(`${state.refreshEvery / 1000} s`, String(state.refreshEvery)))
  every.value = String(state.refreshEvery)
  $('auto-refresh').addEventListener('change', e => { state.autoRefresh = e.target.checked; writeHash(); scheduleRefresh() })
  $('refresh-every').addEventListener('change', e => { state.refreshEvery = Number(e.target.value); writeHash(); scheduleRefresh() })
  let resizeTimer = null
  new ResizeObserver(() => {
    clearTimeout(resizeTimer)
    resizeTimer = setTimeout(onResize, 100)
  }).observe($('chart'))
}

/** The charts take the new size; `auto` asks again when the new width fits another step */
function onResize () {
  seriesChart.resize()
  latency.resize()
  ytdChart.resize()
  if (state.selected.length > 0 && state.step === 'auto' && stepFor(currentWindow()) !== askedStep) loadCharts()
}

let refreshTimer = null
function scheduleRefresh () {
  clearInterval(refreshTimer)
  refreshTimer = null
  if (state.autoRefresh) {
    refreshTimer = setInterval(() => { if (!document.hidden) loadCharts() }, state.refreshEvery)
  }
}

// ---- start
readHash()
const picker = createMetricPicker({
  listEl: $('metric-list'),
  searchEl: $('metric-search'),
  countEl: $('metric-count'),
  isSelected: name => state.selected.includes(name),
  kinds: metricKinds,
  badgeOf: kind => (book ? badgeOf(book.kindOf(kind)) : null),
  colorOf,
  onToggle: toggleMetric,
  onError: err => setStatus(`metrics: ${err.message}`, true)
})
wireControls()
showRange()
showZone()
writeHash()
scheduleRefresh()
picker.reload()
loadBook().catch(err => setStatus(`kinds: ${err.message}`, true)) // the list's badges, with nothing selected too
loadCharts()
