// The OpenAPI document at /docs/json: valid OpenAPI 3.0, every route of the
// app in it with a summary, examples and its errors, examples that match
// their schemas, and answers of the running app that match the document.
import SwaggerParser from '@apidevtools/swagger-parser'
import Ajv from 'ajv'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { testApp } from '../helpers/test-app.js'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

const NOW = Date.UTC(2026, 10, 21, 12, 0)
const MAX_EVENTS = 50
let app
let doc // as served
let resolved // $refs dereferenced
const ajv = new Ajv({ strict: false, allErrors: true }) // OpenAPI 3.0 `nullable` is built into Ajv

// the SLO the report's example names (docs/slos.md), over the counter the events' examples write
const sloDir = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-slos-'))
const SLO_FILE = path.join(sloDir, 'slos.yaml')
fs.writeFileSync(SLO_FILE, `apiVersion: openslo/v1
kind: SLO
metadata: { name: availability }
spec:
  indicator: { spec: { ratioMetric: { good: { metricSource: { type: statbucket, spec: { metric: api.requests, tags: ["status!=~5.."] } } }, total: { metricSource: { type: statbucket, spec: { metric: api.requests } } } } } }
  timeWindow: [{ duration: 1M, calendar: { timeZone: Europe/Berlin } }]
  budgetingMethod: Occurrences
  objectives: [{ target: 0.999 }]
`)

beforeAll(async () => {
  app = await testApp('openapi', {
    sloReloadOnHangup: false,
    clock: manualClock(NOW),
    env: {
      PREALLOC_PROBABILITY: '0',
      MAX_EVENTS_PER_REQUEST: String(MAX_EVENTS),
      MAX_PENDING_EVENTS: String(MAX_EVENTS),
      FLUSH_INTERVAL_MS: '150', // a queued request stays queued long enough to fill the queue
      MAX_EVENT_LOOP_DELAY_MS: '0', // this file's own schema compiles block the loop it shares with the app: no 503 for that
      SLO_FILE
    }
  })
  const res = await app.inject('/docs/json')
  expect(res.statusCode).toBe(200)
  doc = res.json()
  resolved = await SwaggerParser.dereference(structuredClone(doc))
})
afterAll(async () => {
  await app?.close()
  fs.rmSync(sloDir, { recursive: true, force: true })
})

function operations (document) {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ key: `${method.toUpperCase()} ${path}`, path, method, operation })))
}

/** Fastify's route table, from printRoutes: ['GET /v1/metrics/:metric/series', …] */
function appRoutes () {
  const routes = []
  const stack = []
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^([\s│├└─]*?)([└├]── )(.*) \(([A-Z, ]+)\)$/.exec(line)
    if (!m) continue
    const depth = m[1].length / 4
    stack.length = depth
    stack[depth] = m[3]
    const url = stack.join('')
    for (const method of m[4].split(', ')) routes.push(`${method} ${url}`)
  }
  return routes
}

const asOpenapiPath = url => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')
// Routes that are not the API: the dashboard's files and the docs themselves.
const NOT_API = /^(HEAD|OPTIONS) |^GET \/(docs|vendor\/|css\/|js\/|(index|slos)\.html$|$)/

/** Checks one answer of the app against the document: status declared, headers, body schema. */
function conformsToDocument (method, path, res) {
  const operation = resolved.paths[path][method.toLowerCase()]
  const response = operation.responses[String(res.statusCode)]
  expect(response, `${method} ${path} answered ${res.statusCode}, not declared`).toBeDefined()
  for (const [name, header] of Object.entries(response.headers ?? {})) {
    if (header.required) expect(res.headers[name.toLowerCase()], `${method} ${path} ${res.statusCode}: header ${name}`).toBeDefined()
    if (res.headers[name.toLowerCase()] !== undefined && header.schema.type === 'integer') {
      expect(res.headers[name.toLowerCase()]).toMatch(/^\d+$/)
    }
  }
  const [mediaType, media] = Object.entries(response.content ?? {})[0] ?? []
  if (!media) return
  expect(res.headers['content-type']).toContain(mediaType)
  const body = mediaType === 'application/json' ? res.json() : res.body
  const validate = ajv.compile(media.schema)
  expect(validate(body), `${method} ${path} ${res.statusCode}: ${ajv.errorsText(validate.errors)} in ${res.body.slice(0, 300)}`).toBe(true)
}

describe('GET /docs/json', () => {
  it('is a valid OpenAPI 3.0 document', async () => {
    expect(doc.openapi).toMatch(/^3\.0\.\d$/)
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeTruthy()
    expect(doc.info).toMatchObject({ title: 'statbucket' })
  })

  it('lists every route of the app, and only routes that exist', () => {
    const documented = operations(doc).map(o => o.key).sort()
    const api = appRoutes().filter(r => !NOT_API.test(r)).map(asOpenapiPath).sort()
    expect(api).toEqual(expect.arrayContaining([
      'POST /v1/events', 'GET /v1/metrics', 'GET /v1/metrics/{metric}/series', 'GET /v1/metrics/{metric}/ytd',
      'GET /healthz', 'GET /readyz', 'GET /metrics'
    ]))
    expect(documented).toEqual(api)
  })

  it('gives every operation a summary, tags, examples and its error answers', () => {
    for (const { key, operation } of operations(doc)) {
      expect(operation.summary, key).toMatch(/\w/)
      expect(operation.tags?.length, key).toBeGreaterThan(0)
      const success = Object.entries(operation.responses).filter(([s]) => s.startsWith('2'))
      expect(success.length, key).toBeGreaterThan(0)
      for (const [status, response] of Object.entries(operation.responses)) {
        expect(response.description, `${key} ${status}`).not.toBe('Default Response')
        for (const media of Object.values(response.content ?? {})) {
          expect(media.example ?? media.examples, `${key} ${status} example`).toBeDefined()
        }
      }
      if (key.includes(' /v1/')) {
        expect(Object.keys(operation.responses), key).toEqual(expect.arrayContaining(['400', '401', '403', '503']))
      }
      for (const parameter of operation.parameters ?? []) {
        expect(parameter.example, `${key} parameter ${parameter.name}`).toBeDefined()
      }
    }
    const ingest = doc.paths['/v1/events'].post
    expect(Object.keys(ingest.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '413', '415', '503', '504']))
    expect(ingest.responses['503'].headers['Retry-After']).toMatchObject({ required: true, schema: { type: 'integer' } })
    expect(Object.keys(ingest.requestBody.content['application/json'].examples)).toEqual(['single', 'batch', 'distribution', 'tagged', 'gauge'])
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' })
  })

  it('asks for a token only where a token list may guard the route, and names statbucket on /docs', async () => {
    expect(doc.security).toBeUndefined()
    const securityOf = (method, path) => doc.paths[path][method].security
    for (const [method, path] of [['get', '/healthz'], ['get', '/readyz']]) expect(securityOf(method, path), path).toBeUndefined()
    for (const [method, path] of [['post', '/v1/events'], ['get', '/v1/metrics'], ['get', '/v1/metrics/{metric}/series'], ['get', '/v1/metrics/{metric}/total'], ['get', '/metrics'], ['get', '/render']]) {
      expect(securityOf(method, path), path).toEqual([{}, { bearerAuth: [] }])
    }
    expect(doc.paths['/v1/events'].post.description).toMatch(/Needs a bearer token when WRITE_TOKENS is set/)
    const page = await app.inject('/docs/')
    expect(page.statusCode).toBe(200)
    expect(page.body).toMatch(/<title>statbucket API<\/title>/)
    // the page's logo is statbucket's, given as a data URL in place of Fastify's
    const init = (await app.inject('/docs/static/swagger-initializer.js')).body
    const logo = /img\.src = 'data:image\/svg\+xml;base64,([A-Za-z0-9+/=]+)'/.exec(init)
    expect(logo).not.toBeNull()
    expect(Buffer.from(logo[1], 'base64').toString()).toMatch(/>statbucket<\/text>/)
  })

  it('shows the events body as one event or a bounded array of events', () => {
    const { schema } = doc.paths['/v1/events'].post.requestBody.content['application/json']
    expect(schema).toEqual({
      oneOf: [
        { $ref: '#/components/schemas/Event' },
        { type: 'array', minItems: 1, maxItems: MAX_EVENTS, items: { $ref: '#/components/schemas/Event' } }
      ]
    })
    expect(doc.components.schemas.Event).toMatchObject({ required: ['metric'], additionalProperties: false })
  })

  it('has examples that match their own schemas', () => {
    let checked = 0
    for (const { key, operation } of operations(resolved)) {
      const medias = [
        ...Object.entries(operation.requestBody?.content ?? {}).map(([t, m]) => [`${key} body ${t}`, m]),
        ...Object.entries(operation.responses).flatMap(([s, r]) => Object.entries(r.content ?? {}).map(([t, m]) => [`${key} ${s} ${t}`, m]))
      ]
      for (const [where, media] of medias) {
        const validate = ajv.compile(media.schema)
        const examples = media.examples ? Object.values(media.examples).map(e => e.value) : [media.example]
        for (const example of examples) {
          expect(validate(example), `${where}: ${ajv.errorsText(validate.errors)}`).toBe(true)
          checked++
        }
      }
      for (const parameter of operation.parameters ?? []) {
        const validate = ajv.compile(parameter.schema)
        expect(validate(parameter.example), `${key} parameter ${parameter.name}: ${ajv.errorsText(validate.errors)}`).toBe(true)
        checked++
      }
    }
    expect(checked).toBeGreaterThan(30)
  })
})

describe('the running app answers as documented', () => {
  const post = (payload, headers = {}) => app.inject({ method: 'POST', url: '/v1/events', payload, headers })

  it('for the request examples of every operation', async () => {
    const ingest = resolved.paths['/v1/events'].post
    for (const { value } of Object.values(ingest.requestBody.content['application/json'].examples)) {
      const res = await post(value)
      expect(res.statusCode, res.body).toBe(200)
      conformsToDocument('POST', '/v1/events', res)
    }
    // a read by tag (tag=, by=) reads a counter's series: asked apart, of the counter api.requests and without stat=
    // (Graphite's /tags/autoComplete/values names its tag tag= too: asked once, whole)
    const BY_TAG = ['tag', 'by']
    for (const { path, method, operation } of operations(resolved)) {
      if (method !== 'get') continue
      const parameters = operation.parameters ?? []
      const asks = path.startsWith('/v1/') && parameters.some(p => p.name === 'tag')
        ? [parameters.filter(p => p.required || !BY_TAG.includes(p.name)), parameters.filter(p => p.name !== 'stat').map(p => (p.name === 'metric' ? { ...p, example: 'api.requests' } : p))]
        : [parameters]
      for (const asked of asks) {
        let url = path
        const query = new URLSearchParams()
        for (const p of asked) {
          if (p.in === 'path') url = url.replace(`{${p.name}}`, encodeURIComponent(p.example))
          else query.set(p.name, p.example)
        }
        const res = await app.inject({ method: 'GET', url: query.size ? `${url}?${query}` : url })
        expect(res.statusCode, `${url}: ${res.body}`).toBe(200)
        conformsToDocument('GET', path, res)
      }
    }
  })

  it('for PUT /v1/slos/{name}: JSON, and YAML as a string, each example stored as sent', async () => {
    const { content } = resolved.paths['/v1/slos/{name}'].put.requestBody
    expect(Object.keys(content)).toEqual(['application/json', 'application/yaml', 'application/x-yaml'])
    expect(content['application/json'].schema.type).toBe('object')
    for (const [type, media] of Object.entries(content)) {
      if (type !== 'application/json') expect(media.schema.type, type).toBe('string') // schemathesis sends a string there
      for (const { value } of Object.values(media.examples)) {
        const res = await app.inject({ method: 'PUT', url: '/v1/slos/checkout-latency', payload: typeof value === 'string' ? value : JSON.stringify(value), headers: { 'content-type': type } })
        expect(res.statusCode, `${type}: ${res.body}`).toBe(200)
        conformsToDocument('PUT', '/v1/slos/{name}', res)
        expect((await app.inject({ method: 'DELETE', url: '/v1/slos/checkout-latency' })).statusCode).toBe(200)
      }
    }
  })

  it('for the error answers of the events route', async () => {
    const answers = {
      400: await post([]),
      413: await post(Array.from({ length: MAX_EVENTS + 1 }, () => ({ metric: 'x' }))),
      415: await post('metric=x', { 'content-type': 'application/x-www-form-urlencoded' })
    }
    // Two batches of MAX_EVENTS while MAX_PENDING_EVENTS = MAX_EVENTS: one waits in the queue, the other is refused.
    const [a, b] = await Promise.all([post(new Array(MAX_EVENTS).fill({ metric: 'q.a' })), post(new Array(MAX_EVENTS).fill({ metric: 'q.b' }))])
    expect([a.statusCode, b.statusCode].sort()).toEqual([200, 503])
    answers[503] = a.statusCode === 503 ? a : b
    for (const [status, res] of Object.entries(answers)) {
      expect(res.statusCode, res.body).toBe(Number(status))
      conformsToDocument('POST', '/v1/events', res)
    }
    expect(answers[503].json().outcome).toBe('not_applied')
  })

  it('for the error answers of the read routes', async () => {
    const cases = [
      ['/v1/metrics', '/v1/metrics?limit=0', 400],
      ['/v1/metrics/{metric}/series', '/v1/metrics/api.requests/series?step=week', 400],
      ['/v1/metrics/{metric}/series', '/v1/metrics/no.such/series', 404],
      ['/v1/metrics/{metric}/ytd', '/v1/metrics/api.requests/ytd?year=26', 400],
      ['/v1/metrics/{metric}/ytd', '/v1/metrics/no.such/ytd', 404]
    ]
    for (const [path, url, status] of cases) {
      const res = await app.inject(url)
      expect(res.statusCode, `${url}: ${res.body}`).toBe(status)
      conformsToDocument('GET', path, res)
    }
  })
})

describe('GET /docs', () => {
  it('serves Swagger UI', async () => {
    const res = await app.inject('/docs/')
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toContain('text/html')
    expect(res.body).toContain('swagger')
    expect((await app.inject('/docs/yaml')).body).toContain('openapi: 3.0')
  })
})
