// The public JSON API, and the read token: when an answer is 401/403 the
// page asks for a token (READ_TOKENS), keeps it in localStorage and sends
// it as `Authorization: Bearer <token>` from then on.

const TOKEN_KEY = 'statbucket.readToken'

export class ApiError extends Error {
  /** details: the answer's `details` ([{ path, message, … }]) when it has them */
  constructor (status, message, details) {
    super(message)
    this.status = status
    this.details = details
  }
}

export function storedToken () {
  try {
    return localStorage.getItem(TOKEN_KEY)
  } catch {
    return null
  }
}

function storeToken (token) {
  try {
    if (token) localStorage.setItem(TOKEN_KEY, token)
    else localStorage.removeItem(TOKEN_KEY)
  } catch { /* private mode: the token lives for this page only */ }
}

let sessionToken = storedToken()
let asking = null // one dialog for all the requests that hit 401/403 at once

// The dialog's markup, the same on every page: built here, once, when a read is refused
const TOKEN_DIALOG = `
  <form method="dialog" id="token-form">
    <h2>Read token needed</h2>
    <p id="token-reason" class="muted">This statbucket requires a bearer token to read.</p>
    <input id="token-input" type="password" autocomplete="off" placeholder="token from READ_TOKENS" required minlength="1">
    <div class="dialog-buttons">
      <button value="cancel" formnovalidate>Cancel</button>
      <button value="save" id="token-save">Save</button>
    </div>
  </form>`

function tokenDialog () {
  let dialog = document.getElementById('token-dialog')
  if (!dialog) {
    dialog = document.createElement('dialog')
    dialog.id = 'token-dialog'
    dialog.innerHTML = TOKEN_DIALOG
    document.body.append(dialog)
  }
  return dialog
}

/** Shows the token dialog; resolves to the token, or null when cancelled. */
function askForToken (status, message) {
  if (asking) return asking
  const dialog = tokenDialog()
  const input = document.getElementById('token-input')
  document.getElementById('token-reason').textContent = status === 403
    ? `The token was refused (${message}). Enter another read token.`
    : `This statbucket requires a read token (${message}).`
  input.value = ''
  asking = new Promise(resolve => {
    dialog.addEventListener('close', () => {
      asking = null
      resolve(dialog.returnValue === 'save' && input.value.trim() ? input.value.trim() : null)
    }, { once: true })
  })
  dialog.showModal()
  input.focus()
  return asking
}

/** GET path → parsed JSON; throws ApiError with the API's message. */
export async function getJson (path, { signal } = {}) {
  for (;;) {
    const headers = { accept: 'application/json' }
    const token = sessionToken
    if (token) headers.authorization = `Bearer ${token}`
    const res = await fetch(path, { headers, signal })
    const body = await res.json().catch(() => null)
    if (res.status === 401 || res.status === 403) {
      if (sessionToken !== token) continue // another request got a new token meanwhile
      const fresh = await askForToken(res.status, body?.message ?? res.statusText)
      if (!fresh) throw new ApiError(res.status, `${body?.message ?? res.statusText} (no token given)`)
      sessionToken = fresh
      storeToken(fresh)
      continue
    }
    if (!res.ok) throw new ApiError(res.status, body?.message ?? `${res.status} ${res.statusText}`, body?.details)
    return body
  }
}

const enc = encodeURIComponent

/**
 * The one place a query string is built: every parameter given (undefined
 * and null left out), as text; an array repeats its parameter (`tag=`). A
 * parameter the API gains is one more key in the object the caller passes.
 */
export function toQuery (params) {
  const q = new URLSearchParams()
  for (const [name, value] of Object.entries(params)) {
    if (Array.isArray(value)) for (const item of value) q.append(name, String(item))
    else if (value !== undefined && value !== null) q.set(name, String(value))
  }
  return q
}

/** What each kind can show (kind-views.js) */
export function getKinds (opts) {
  return getJson('/v1/kinds', opts)
}

export function listMetrics ({ prefix = '', after, limit = 10000 } = {}, opts) {
  return getJson(`/v1/metrics?${toQuery({ limit, prefix: prefix || undefined, after })}`, opts)
}

/** params: { from, to, step } (epoch ms; step one of the API's), and tag, by (tag-selection.js tagQuery) */
export function getSeries (metric, params, opts) {
  return getJson(`/v1/metrics/${enc(metric)}/series?${toQuery(params)}`, opts)
}

/** params: { year }, and tag, by */
export function getYtd (metric, params, opts) {
  return getJson(`/v1/metrics/${enc(metric)}/ytd?${toQuery(params)}`, opts)
}

/** A metric's tag keys: { series, keys: [{ key, values }] } (docs/tags.md#listings) */
export function getTagKeys (metric, opts) {
  return getJson(`/v1/metrics/${enc(metric)}/tags`, opts)
}

/** A page of a tag key's values: { values: [{ value, series }], next } (pass next as after) */
export function getTagValues (metric, key, { limit, after } = {}, opts) {
  return getJson(`/v1/metrics/${enc(metric)}/tags/${enc(key)}?${toQuery({ limit, after })}`, opts)
}

/** Every SLO with its current period's status (docs/slos.md#reports) */
export function listSlos (opts) {
  return getJson('/v1/slos', opts)
}

/** An SLO's report for `period` (a label; undefined: the current one) */
export function getSloReport (name, period, opts) {
  return getJson(`/v1/slos/${enc(name)}/report?${toQuery({ period })}`, opts)
}
