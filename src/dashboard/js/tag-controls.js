// The tag controls: for each selected metric that has tags (GET
// /v1/metrics/:name/tags), a row with its filters (each removable), a form
// adding one (a key, an operator, a value typed or picked from the key's
// values, paged), and a checkbox per key to group by. A metric without tags
// gets no row. Keys and values are put in the page as text, never as markup.
// docs/adr/0061-dashboard-tags.md
import { getTagKeys, getTagValues } from './api.js'
import { OPERATORS, isEmpty, joinFilter } from './tag-selection.js'

export const VALUES_PAGE = 100

const node = (tag, props = {}, ...children) => {
  const el = Object.assign(document.createElement(tag), props)
  el.append(...children)
  return el
}

/**
 * el: the controls' container; onChange(metric, { filters, by }): a
 * selection changed; onError(err): a listing failed
 */
export function createTagControls (el, { onChange, onError }) {
  const keysAsked = new Map() // metric → the promise of its keys ([{ key, values }])
  const shown = new Map() // metric → [the row's signature, its row]
  let showSeq = 0
  let rowSeq = 0

  function keysOf (metric) {
    if (!keysAsked.has(metric)) {
      keysAsked.set(metric, getTagKeys(metric).then(a => a.keys, err => {
        keysAsked.delete(metric) // asked again next time
        throw err
      }))
    }
    return keysAsked.get(metric)
  }

  function row (metric, keys, sel) {
    const id = `tag-values-${++rowSeq}`
    const filters = sel.filters.map(filter => node('span', { className: 'tag-filter', title: filter }, filter, node('button', {
      type: 'button',
      title: `remove ${filter}`,
      textContent: '×',
      onclick: () => onChange(metric, { ...sel, filters: sel.filters.filter(f => f !== filter) })
    })))
    filters.forEach((f, i) => { f.dataset.filter = sel.filters[i] })

    const keySelect = node('select', { className: 'tag-key', ariaLabel: `tag key of ${metric}` }, ...keys.map(k => new Option(`${k.key} (${k.values})`, k.key)))
    const opSelect = node('select', { className: 'tag-op', ariaLabel: 'operator' }, ...OPERATORS.map(op => new Option(op, op)))
    const valueInput = node('input', { className: 'tag-value', type: 'text', placeholder: 'value or regex', autocomplete: 'off', spellcheck: false, ariaLabel: 'tag value' })
    valueInput.setAttribute('list', id)
    const datalist = node('datalist', { id })
    const more = node('button', { type: 'button', className: 'tag-more', textContent: 'more values', hidden: true })
    const count = node('span', { className: 'muted tag-count' })
    let valuesSeq = 0
    let after = null

    async function loadValues (append) {
      const seq = ++valuesSeq
      const key = keySelect.value
      try {
        const page = await getTagValues(metric, key, { limit: VALUES_PAGE, after: append ? after : undefined })
        if (seq !== valuesSeq) return
        const options = page.values.map(v => Object.assign(document.createElement('option'), { value: v.value }))
        if (append) datalist.append(...options)
        else datalist.replaceChildren(...options)
        after = page.next
        more.hidden = page.next === null
        const all = keys.find(k => k.key === key)?.values
        count.textContent = `${datalist.children.length} of ${all ?? '?'} values`
      } catch (err) {
        onError(err)
      }
    }
    keySelect.addEventListener('change', () => loadValues(false))
    more.addEventListener('click', () => loadValues(true))
    const form = node('form', { className: 'tag-add' }, keySelect, opSelect, valueInput, datalist, node('button', { type: 'submit', textContent: 'Add filter' }), more, count)
    form.addEventListener('submit', e => {
      e.preventDefault()
      const filter = joinFilter(keySelect.value, opSelect.value, valueInput.value)
      if (!sel.filters.includes(filter)) onChange(metric, { ...sel, filters: [...sel.filters, filter] })
    })
    if (keys.length) loadValues(false)
    else form.hidden = true // its tags gone (deleted): only its filters, to remove

    const byKeys = [...new Set([...keys.map(k => k.key), ...sel.by])]
    const by = node('span', { className: 'tag-by' }, 'Group by', ...byKeys.map(key => {
      const box = node('input', { type: 'checkbox', value: key, checked: sel.by.includes(key) })
      box.addEventListener('change', () => {
        const chosen = box.checked ? [...sel.by, key] : sel.by.filter(k => k !== key)
        onChange(metric, { ...sel, by: byKeys.filter(k => chosen.includes(k)) }) // in the keys' order
      })
      return node('label', {}, box, key)
    }))

    const r = node('div', { className: 'tag-row' }, node('span', { className: 'tag-metric', textContent: metric }), ...filters, form, by)
    r.dataset.metric = metric
    return r
  }

  return {
    /**
     * The rows of the metrics (names, in order) with tags or a selection
     * (selections: Map metric → { filters, by }); a row is built again only
     * when its keys or selection changed, so typing survives a refresh
     */
    async show (metrics, selections) {
      const seq = ++showSeq
      for (const m of keysAsked.keys()) if (!metrics.includes(m)) keysAsked.delete(m)
      const keys = await Promise.all(metrics.map(m => keysOf(m).catch(err => { onError(err); return [] })))
      if (seq !== showSeq) return
      const rows = []
      metrics.forEach((metric, i) => {
        const sel = selections.get(metric) ?? { filters: [], by: [] }
        if (keys[i].length === 0 && isEmpty(sel)) return
        const signature = JSON.stringify([keys[i], sel])
        if (shown.get(metric)?.[0] !== signature) shown.set(metric, [signature, row(metric, keys[i], sel)])
        rows.push(shown.get(metric)[1])
      })
      for (const m of [...shown.keys()]) if (!metrics.includes(m)) shown.delete(m)
      if (rows.length !== el.children.length || rows.some((r, i) => el.children[i] !== r)) el.replaceChildren(...rows)
      el.dataset.ready = String(seq)
    }
  }
}
