// The metric picker: GET /v1/metrics pages into memory, a search box that
// filters them on the client, and a virtual list that renders only the rows
// in view, so 10,000 metrics (or 100,000) cost a few dozen DOM nodes.
//
// With the whole registry in one page (≤ 10,000 names) the search matches
// anywhere in a name (every space-separated term). A larger registry is
// paged: the search then asks the server for names starting with the text.
//
// The keys: ↑/↓ (Home/End in the list) move the active row, Enter (Space in
// the list) picks it, from the search box or the list. The active row is
// outlined only while the keys are in use, never after load or a click.
//
// The pages tell each metric's kind (metric-kinds.js): every row carries a
// small badge naming it (badgeOf, from kind-views.js).
//
// The last row loads the next page while it is in view. A page that fails
// (any error: 400, 429, 503, the network) is said in that row and asked
// again only when the row is clicked, never by itself; a first page (or a
// search's), in the count, asked again by its retry button.
import { listMetrics } from './api.js'

const ROW_HEIGHT = 24
const OVERSCAN = 8
const PAGE = 10000
const PREFIX_CHARS = /^[A-Za-z0-9_.:-]*/

/**
 * kinds: metric-kinds.js's book, told every page loaded; badgeOf(kind name)
 * → { text, title }, or null while the kinds are not known; colorOf(name):
 * a selected metric's colour
 */
export function createMetricPicker ({ listEl, searchEl, countEl, isSelected, kinds, badgeOf, colorOf, onToggle, onError }) {
  const spacer = listEl.querySelector('.metric-list-spacer')
  let base = null // { prefix, names, next, failed }: the registry from its start
  let view = null // { prefix, names, next, failed }: what the list shows before filtering (failed: the error of its last page asked, until asked again)
  let shown = [] // names after the client filter
  let loadSeq = 0
  let loading = false // a first page (the registry's or a search's) on its way
  let loadingMore = false
  const pool = [] // row elements, reused
  let active = 0 // keyboard focus in `shown`

  const terms = () => searchEl.value.trim().toLowerCase().split(/\s+/).filter(Boolean)

  function applyFilter () {
    const t = terms()
    const names = view?.names ?? []
    shown = t.length === 0 ? names : names.filter(n => { const l = n.toLowerCase(); return t.every(x => l.includes(x)) })
    active = Math.min(active, Math.max(0, shown.length - 1))
    if (view === null) {
      countEl.textContent = 'loading…'
    } else {
      const n = view.names.length.toLocaleString('en-US')
      const total = view.next === null ? `${n} metrics` : `${n}+ metrics loaded`
      const prefixNote = view.prefix ? ` starting with “${view.prefix}”` : ''
      countEl.textContent = `${shown.length.toLocaleString('en-US')} shown · ${total}${prefixNote}`
    }
    listEl.dataset.shown = String(shown.length)
    render()
  }

  function rowCount () {
    return shown.length + (view?.next ? 1 : 0) // a last row that loads the next page
  }

  function render () {
    spacer.style.height = `${rowCount() * ROW_HEIGHT}px`
    // the scroll position within the rows now: a list that just got shorter (a filter) may not have moved it back yet
    const top = Math.max(0, Math.min(listEl.scrollTop, rowCount() * ROW_HEIGHT - listEl.clientHeight))
    const first = Math.max(0, Math.floor(top / ROW_HEIGHT) - OVERSCAN)
    const last = Math.min(rowCount(), Math.ceil((top + listEl.clientHeight) / ROW_HEIGHT) + OVERSCAN)
    // as many rows as the list's height can ever draw, made at once: a pool that grew later would move every row to another element
    const needed = Math.max(last - first, Math.ceil(listEl.clientHeight / ROW_HEIGHT) + 1 + 2 * OVERSCAN)
    while (pool.length < needed) {
      const row = document.createElement('div')
      row.className = 'metric-row'
      row.id = `metric-option-${pool.length}`
      row.setAttribute('role', 'option')
      row.append(document.createElement('span'), document.createElement('span'), document.createElement('span'))
      row.firstChild.className = 'swatch'
      row.children[1].className = 'metric-name'
      row.lastChild.className = 'kind-badge'
      listEl.append(row)
      pool.push(row)
    }
    listEl.removeAttribute('aria-activedescendant')
    // row `index` is drawn by pool[index % pool.length]: a row in view keeps its element while the list scrolls,
    // so a click or a hover that lands during a redraw stays on the row under it
    const size = pool.length
    for (let slot = 0; slot < size; slot++) {
      const index = first + ((slot - (first % size)) + size) % size
      const row = pool[slot]
      if (index >= last) { row.hidden = true; continue }
      row.hidden = false
      row.style.top = `${index * ROW_HEIGHT}px`
      row.setAttribute('aria-posinset', String(index + 1)) // the elements' order is not the rows'
      row.setAttribute('aria-setsize', String(rowCount()))
      if (index >= shown.length) {
        const failed = view.failed
        row.className = failed ? 'metric-row more failed' : 'metric-row more'
        row.dataset.name = ''
        row.removeAttribute('aria-selected')
        row.firstChild.style.background = 'transparent'
        row.children[1].textContent = failed ? `couldn’t load more (${failed.message}): click to retry` : loadingMore ? 'loading more…' : 'load more…'
        row.title = failed ? failed.message : ''
        row.lastChild.hidden = true
        if (!failed) loadMore()
        continue
      }
      const name = shown[index]
      const selected = isSelected(name)
      row.className = index === active ? 'metric-row active' : 'metric-row'
      if (index === active) listEl.setAttribute('aria-activedescendant', row.id)
      row.dataset.name = name
      row.title = name
      row.setAttribute('aria-selected', String(selected))
      row.firstChild.style.background = selected ? colorOf(name) : 'transparent'
      row.children[1].textContent = name
      const kind = kinds.kindOf(name)
      const badge = kind === undefined ? null : badgeOf(kind)
      row.lastChild.hidden = badge === null
      row.lastChild.textContent = badge?.text ?? ''
      row.lastChild.title = badge?.title ?? ''
    }
  }

  async function load (prefix) {
    const seq = ++loadSeq
    loading = true
    countEl.textContent = 'loading…' // and a failed load's retry button goes
    try {
      const page = await listMetrics({ prefix, limit: PAGE })
      kinds.learn(page.metrics)
      if (seq !== loadSeq) return
      loading = false
      view = { prefix, names: page.metrics.map(m => m.name), next: page.next, failed: null }
      if (!prefix) base = view
      listEl.scrollTop = 0
      applyFilter()
    } catch (err) {
      if (seq !== loadSeq) return
      loading = false
      // said where the count goes, and asked again only at a click on its button, as a failed next page is
      const retry = document.createElement('button')
      retry.type = 'button'
      retry.id = 'metric-list-retry'
      retry.textContent = 'retry'
      retry.addEventListener('click', () => { if (seq === loadSeq) load(prefix) }) // unless a newer load began
      countEl.replaceChildren(`couldn’t load the metrics (${err.message}) `, retry)
      onError(err)
    }
  }

  /** The next page of the view, unless one is on its way or the last one failed (a click on its row asks again) */
  async function loadMore () {
    if (!view?.next || view.failed || loadingMore) return
    loadingMore = true
    const seq = loadSeq
    const target = view
    try {
      const page = await listMetrics({ prefix: target.prefix, after: target.next, limit: PAGE })
      kinds.learn(page.metrics)
      if (seq !== loadSeq || target !== view) return
      target.names.push(...page.metrics.map(m => m.name))
      target.next = page.next
    } catch (err) {
      target.failed = err // shown in the last row: asked again at a click, not at the next render
      if (seq !== loadSeq || target !== view) return // another list is shown, or on its way
      onError(err)
    } finally {
      loadingMore = false
    }
    applyFilter()
  }

  let debounce = null
  function onSearch () {
    clearTimeout(debounce)
    debounce = setTimeout(() => {
      active = 0
      if (base === null) return
      if (base.next === null) { // the whole registry is here: filter only
        view = base
        return applyFilter()
      }
      const prefix = searchEl.value.trim().match(PREFIX_CHARS)[0]
      if (prefix === (view?.prefix ?? '') || !prefix) {
        // shown without a load: a search's page still on its way would replace it
        if (loading) { loadSeq++; loading = false }
        if (!prefix) view = base
        return applyFilter()
      }
      load(prefix)
    }, 120)
  }

  /** Makes row `index` the active one, scrolled into view */
  function activate (index) {
    active = Math.max(0, Math.min(shown.length - 1, index))
    const top = active * ROW_HEIGHT
    if (top < listEl.scrollTop) listEl.scrollTop = top
    else if (top + ROW_HEIGHT > listEl.scrollTop + listEl.clientHeight) listEl.scrollTop = top + ROW_HEIGHT - listEl.clientHeight
    render()
  }

  /** The keys both the search box and the list answer; `inList` adds Home, End and Space */
  function onKey (e, inList) {
    const moves = { ArrowDown: active + 1, ArrowUp: active - 1, ...(inList ? { Home: 0, End: shown.length - 1 } : {}) }
    if (e.key in moves) {
      e.preventDefault()
      listEl.classList.add('keyboard')
      activate(moves[e.key])
    } else if ((e.key === 'Enter' || (inList && e.key === ' ')) && shown[active]) {
      e.preventDefault()
      listEl.classList.add('keyboard')
      onToggle(shown[active])
    }
  }

  searchEl.addEventListener('input', onSearch)
  searchEl.addEventListener('keydown', e => onKey(e, false))
  listEl.addEventListener('keydown', e => onKey(e, true))
  // the active row's outline goes with the keys: at a click, or when focus leaves the search box and the list
  listEl.addEventListener('pointerdown', () => listEl.classList.remove('keyboard'))
  for (const el of [searchEl, listEl]) {
    el.addEventListener('focusout', e => { if (e.relatedTarget !== searchEl && e.relatedTarget !== listEl) listEl.classList.remove('keyboard') })
  }
  listEl.addEventListener('scroll', () => requestAnimationFrame(render), { passive: true })
  listEl.addEventListener('click', e => {
    const row = e.target.closest('.metric-row')
    if (row?.classList.contains('failed') && view?.failed) { // the failed page, asked again
      view.failed = null
      render()
      return
    }
    if (!row?.dataset.name) return
    active = shown.indexOf(row.dataset.name) // the keys go on from the row clicked
    onToggle(row.dataset.name)
  })
  new ResizeObserver(() => render()).observe(listEl)

  return {
    reload: () => load(''),
    refresh: render
  }
}
