// The SLO page (/slos.html, docs/adr/0069-dashboard-slo-page.md): the SLOs
// of GET /v1/slos with their status, and the chosen one's report for a
// period — attainment against target, the budget burning down, good and bad
// per local day, the burn rates (current period only). The SLO and period
// are kept in the URL hash (#slo=<name>&period=<label>; no period: the
// current one); a calendar SLO's periods step by its own calendar
// (slo-periods.js), a rolling one has none. Errors show in the status line.
import { getSloReport, listSlos } from './api.js'
import { formatNumber } from './format.js'
import { hasPicker, stepPeriod } from './slo-periods.js'
import { createBurnDownChart, createDayBarsChart } from './slo-charts.js'
import { burnDown, dayBars, daysBegun, formatBurnRate, formatPercent } from './slo-view.js'
import { formatIn } from './zone.js'

const $ = id => document.getElementById(id)

const state = { slo: null, period: null }
let slos = [] // GET /v1/slos's
let shownPeriod = null // the label of the period the picker steps from (the report's, or the one asked for when refused)
let loadSeq = 0

function readHash () {
  const q = new URLSearchParams(location.hash.slice(1))
  state.slo = q.get('slo') || null
  state.period = q.get('period') || null
}

function writeHash () {
  const q = new URLSearchParams()
  if (state.slo) q.set('slo', state.slo)
  if (state.period) q.set('period', state.period)
  history.replaceState(null, '', `#${q}`)
}

function setStatus (text, isError = false) {
  $('status').textContent = text
  $('status').classList.toggle('error', isError)
}

/** An element's text for reading, and its exact value in data-value and the title */
function show (id, value, text) {
  const el = $(id)
  el.textContent = text
  el.dataset.value = value === null || value === undefined ? '' : String(value)
  el.title = value === null || value === undefined ? '' : `exactly ${value}`
}

const burnDownChart = createBurnDownChart($('slo-burndown'))
const dayBarsChart = createDayBarsChart($('slo-days'))
const selected = () => slos.find(s => s.name === state.slo)

function renderList () {
  $('slo-count').textContent = `${slos.length} SLO${slos.length === 1 ? '' : 's'}`
  $('slo-empty').hidden = slos.length > 0
  $('slo-list').replaceChildren(...slos.map(s => {
    const row = document.createElement('button')
    row.type = 'button'
    row.className = 'slo-row'
    row.dataset.name = s.name
    row.setAttribute('role', 'option')
    row.setAttribute('aria-selected', String(s.name === state.slo))
    const status = document.createElement('span')
    status.className = 'slo-status'
    status.dataset.status = s.status
    status.textContent = s.status
    if (s.error) row.title = s.error
    row.append(s.name, status)
    row.addEventListener('click', () => pick(s.name, null))
    return row
  }))
}

/** The header: name, status (of the current period, from the list), window and the period picker */
function renderHeader (slo, label, current) {
  $('slo-view').hidden = false
  $('slo-name').textContent = slo.displayName ?? slo.name
  $('slo-status').textContent = slo.status
  $('slo-status').dataset.status = slo.status
  $('slo-status').title = 'the current period\'s status (GET /v1/slos)'
  const w = slo.timeWindow
  $('slo-window').textContent = w ? `${w.rolling ? 'rolling' : 'calendar'} ${w.duration}${w.rolling ? '' : `, ${w.timeZone}`}` : ''
  const picker = w !== undefined && hasPicker(w)
  shownPeriod = label
  $('period-picker').hidden = !picker
  $('period-label').textContent = label ?? ''
  if (!picker) return
  $('period-prev').disabled = stepPeriod(w.duration, label, -1) === null
  $('period-next').disabled = current || stepPeriod(w.duration, label, 1) === null
  $('period-current').disabled = current
}

function renderBurnRates (burnRates) {
  const windows = Object.keys(burnRates ?? {})
  $('slo-burn-note').hidden = burnRates !== null
  $('slo-burn-rates').hidden = burnRates === null
  $('slo-burn-rates').querySelector('thead tr').replaceChildren(...windows.map(w => Object.assign(document.createElement('th'), { textContent: w })))
  $('slo-burn-rates').querySelector('tbody tr').replaceChildren(...windows.map(w => {
    const td = document.createElement('td')
    td.dataset.window = w
    td.dataset.value = burnRates[w] === null ? '' : String(burnRates[w])
    td.textContent = formatBurnRate(burnRates[w])
    return td
  }))
}

function renderReport (slo, report) {
  const current = report.asOf < report.to
  renderHeader(slo, report.period, current)
  $('slo-period').textContent = `${report.period}: ${formatIn(report.timeZone, report.from)} → ${formatIn(report.timeZone, report.to)}${current ? `, as of ${formatIn(report.timeZone, report.asOf)}` : ''}`
  show('slo-attainment', report.attainment, formatPercent(report.attainment))
  show('slo-target', report.target, formatPercent(report.target))
  show('slo-good', report.good, formatNumber(report.good))
  show('slo-total', report.total, formatNumber(report.total))
  show('slo-remaining-ratio', report.budget.remainingRatio, formatPercent(report.budget.remainingRatio))
  show('slo-allowed', report.budget.allowed, formatNumber(report.budget.allowed))
  show('slo-consumed', report.budget.consumed, formatNumber(report.budget.consumed))
  show('slo-projected', report.projectedAttainment, formatPercent(report.projectedAttainment))
  $('slo-attainment').classList.toggle('short', report.attainment !== null && report.attainment < report.target)
  const begun = daysBegun(report, slo.timeWindow?.rolling ?? false)
  burnDownChart.render(report.days, burnDown(report, begun), current ? begun : -1)
  dayBarsChart.render(report.days, dayBars(report, begun), report.timeZone)
  renderBurnRates(report.burnRates)
}

/** The figures and charts emptied (a refused report): the header and its picker stay, to step elsewhere */
function clearReport (slo) {
  renderHeader(slo, state.period, state.period === null)
  $('slo-period').textContent = ''
  for (const id of ['slo-attainment', 'slo-target', 'slo-good', 'slo-total', 'slo-remaining-ratio', 'slo-allowed', 'slo-consumed', 'slo-projected']) show(id, null, '—')
  burnDownChart.clear()
  dayBarsChart.clear()
  renderBurnRates(null)
}

async function loadReport () {
  const seq = ++loadSeq
  const slo = selected()
  if (!slo) {
    $('slo-view').hidden = true
    $('period-picker').hidden = true
    return
  }
  setStatus('loading…')
  try {
    const report = await getSloReport(slo.name, state.period ?? undefined)
    if (seq !== loadSeq) return
    renderReport(slo, report)
    setStatus(`${report.documents.toLocaleString('en-US')} documents read`)
  } catch (err) {
    if (seq !== loadSeq) return
    clearReport(slo)
    setStatus(`${slo.name}${state.period ? ` ${state.period}` : ''}: ${err.message}`, true)
  }
}

async function load () {
  try {
    slos = (await listSlos()).slos
  } catch (err) {
    setStatus(`SLOs: ${err.message}`, true)
    return
  }
  if (!selected()) state.slo = slos[0]?.name ?? null
  writeHash()
  renderList()
  await loadReport()
}

function pick (name, period) {
  state.slo = name
  state.period = period
  writeHash()
  renderList()
  loadReport()
}

/** The period `delta` steps from the one shown */
function step (delta) {
  const w = selected()?.timeWindow
  const next = w && shownPeriod !== null && stepPeriod(w.duration, shownPeriod, delta)
  if (next) pick(state.slo, next)
}

$('period-prev').addEventListener('click', () => step(-1))
$('period-next').addEventListener('click', () => step(1))
$('period-current').addEventListener('click', () => pick(state.slo, null))
$('refresh').addEventListener('click', () => load())
let resizeTimer = null
new ResizeObserver(() => {
  clearTimeout(resizeTimer)
  resizeTimer = setTimeout(() => { burnDownChart.resize(); dayBarsChart.resize() }, 100)
}).observe($('slo-burndown'))

readHash()
load()
