// The one HTTP client of the tools (the load generator, the fault tests):
// a request that never rejects and is bounded in time.
import http from 'node:http'
import https from 'node:https'

/**
 * base: 'http://127.0.0.1:3000' (or a URL); options: method, path, body (an
 * object or array is sent as JSON, a string as is), headers, timeoutMs, agent.
 * → { status, headers, text, json (null unless JSON), ms }, or
 *   { status: 0, error: 'TIMEOUT' | a socket error code | a message, ms }
 */
export function httpRequest (base, { method = 'GET', path = '/', body, headers = {}, timeoutMs = 30_000, agent = false } = {}) {
  const started = performance.now()
  const url = new URL(path, base)
  const lib = url.protocol === 'https:' ? https : http
  const isText = typeof body === 'string'
  const payload = body === undefined ? undefined : Buffer.from(isText ? body : JSON.stringify(body))
  return new Promise(resolve => {
    let settled = false
    const done = result => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve({ ...result, ms: performance.now() - started })
    }
    const req = lib.request(url, {
      method,
      agent,
      headers: {
        accept: 'application/json',
        ...(payload ? { 'content-type': isText ? 'text/plain' : 'application/json', 'content-length': payload.length } : {}),
        ...headers
      }
    }, res => {
      const chunks = []
      res.on('data', c => chunks.push(c))
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8')
        let json = null
        try { json = JSON.parse(text) } catch {}
        done({ status: res.statusCode, headers: res.headers, text, json })
      })
      res.on('error', err => done({ status: 0, error: err.code ?? err.message }))
    })
    const timer = setTimeout(() => { req.destroy(); done({ status: 0, error: 'TIMEOUT' }) }, timeoutMs)
    req.on('error', err => done({ status: 0, error: err.code ?? err.message }))
    req.end(payload)
  })
}

/** A keep-alive client for one server: request(method, path, body) with a bearer token */
export function createHttpClient ({ url, token, connections = 8, timeoutMs = 60_000 }) {
  const base = new URL(url)
  const lib = base.protocol === 'https:' ? https : http
  const agent = new lib.Agent({ keepAlive: true, maxSockets: connections })
  const auth = token ? { authorization: `Bearer ${token}` } : {}
  return {
    request: (method, path, body) => httpRequest(base, { method, path, body, headers: auth, timeoutMs, agent }),
    close: () => agent.destroy()
  }
}
