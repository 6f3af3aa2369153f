// PUT /v1/slos/:name with the YAML of SLO_FILE (docs/slos.md#stored-slos):
// stored as the same document sent as JSON is, sent by the real curl
// (`curl -T`, which sends no Content-Type); refused with SLO_FILE's refusals
// (a YAML bomb, several documents, too large, not YAML) and the tokens',
// storing nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { parse } from 'yaml'
import { manualClock } from '../../src/clock.js'
import { testApp } from '../helpers/test-app.js'

const run = promisify(execFile)
const NOW = Date.UTC(2026, 10, 28, 12, 0, 30)
const WRITE = 'w'.repeat(24)
const READ = 'r'.repeat(24)
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'slo-put-yaml-'))

const YAML = (name, extra = '') => `# an SLO, as in SLO_FILE
apiVersion: openslo/v1
kind: SLO
metadata:
  name: ${name}
spec:
  service: web
  indicator:
    spec:
      ratioMetric:
        counter: true
        good: { metricSource: { type: statbucket, spec: { metric: web.requests, tags: ["status!=~5.."] } } }
        total: { metricSource: { type: statbucket, spec: { metric: web.requests } } }
  timeWindow: [{ duration: 1M, isRolling: false, calendar: { timeZone: Europe/Berlin } }]
  budgetingMethod: Occurrences
  objectives: [{ target: 0.999 }]
${extra}`

let app
const bearer = (token) => ({ authorization: `Bearer ${token}` })
const put = (name, payload, headers = {}) => app.inject({ method: 'PUT', url: `/v1/slos/${name}`, payload, headers: { ...bearer(WRITE), ...headers } })
const stored = async () => (await app.mongo.db.collection('slos').find({}, { sort: { _id: 1 } }).toArray()).map(d => d._id)

beforeAll(async () => {
  app = await testApp('slo_put_yaml', { clock: manualClock(NOW), env: { WRITE_TOKENS: WRITE, READ_TOKENS: READ }, sloReloadOnHangup: false })
  const events = [['200', 7], ['503', 2]].map(([status, value]) => ({ metric: 'web.requests', tags: { status }, value, ts: NOW - 60_000 }))
  expect((await app.inject({ method: 'POST', url: '/v1/events', payload: events, headers: bearer(WRITE) })).json()).toEqual({ accepted: 2 })
})
afterAll(async () => {
  await app?.close()
  fs.rmSync(dir, { recursive: true, force: true })
})

describe('PUT /v1/slos/:name with YAML', () => {
  it.each(['application/yaml', 'application/x-yaml; charset=utf-8'])('%s: stored as the same document sent as JSON is, and reported', async (type) => {
    const res = await put('from-yaml', YAML('from-yaml'), { 'content-type': type })
    expect([res.statusCode, res.json()]).toEqual([200, { name: 'from-yaml', created: expect.any(Boolean) }])
    const json = await put('from-json', JSON.stringify(parse(YAML('from-json'))), { 'content-type': 'application/json' })
    expect(json.statusCode).toBe(200)
    const text = await app.mongo.db.collection('slos').find({ _id: { $in: ['from-yaml', 'from-json'] } }, { sort: { _id: 1 } }).toArray()
    expect(text[1].text).toBe(text[0].text.replace('from-json', 'from-yaml'))
    const report = (await app.inject({ url: '/v1/slos/from-yaml/report', headers: bearer(READ) })).json()
    expect(report).toMatchObject({ name: 'from-yaml', good: 7, total: 9, timeZone: 'Europe/Berlin' })
  })

  it('the real curl: `curl -T slo.yaml` (no Content-Type, Expect: 100-continue) stores it', async () => {
    const file = path.join(dir, 'slo.yaml')
    fs.writeFileSync(file, YAML('by-curl'))
    await app.listen({ port: 0, host: '127.0.0.1' })
    const url = `http://127.0.0.1:${app.server.address().port}/v1/slos/by-curl`
    const { stdout } = await run('curl', ['-sS', '-T', file, '-H', `Authorization: Bearer ${WRITE}`, '-w', '\n%{http_code}', url])
    expect(stdout.split('\n')).toEqual([JSON.stringify({ name: 'by-curl', created: true }), '200'])
    expect(await stored()).toContain('by-curl')
  })

  const keys = (n) => Array.from({ length: n }, (_, i) => `k${i.toString(36)}: 1`).join('\n')
  const bomb = ['a: &a [x, x, x, x, x, x, x, x, x]', ...'bcdefgh'.split('').map((k, i) => `${k}: &${k} [${Array(9).fill(`*${'abcdefgh'[i]}`).join(', ')}]`)].join('\n')
  it.each([
    ['a YAML bomb', YAML('x', `${bomb}\n`), 'application/yaml', 400, /^document 1, \(yaml\): .*at most 64 aliases/],
    ['two documents', `${YAML('x')}---\n${YAML('y')}`, 'application/yaml', 400, /^\(body\): holds 2 YAML documents: send one SLO a request/],
    ['no document', '# nothing\n', 'application/yaml', 400, /^\(body\): holds 0 YAML documents/],
    ['YAML that does not parse', `${YAML('x')}  objectives: [\n`, 'application/x-yaml', 400, /^document 1, \(yaml\): /],
    ['a duplicate key', YAML('x', 'kind: SLO\n'), 'application/yaml', 400, /^document 1, \(yaml\): Map keys must be unique/],
    ['a field outside the subset, named as in JSON', YAML('x').replace('Occurrences', 'Timeslices'), 'application/yaml', 400, /^spec.budgetingMethod: only Occurrences/],
    ['a key twice in a nested mapping', YAML('x', '  labels: { team: a, team: b }\n'), 'application/yaml', 400, /^document 1, \(yaml\): Map keys must be unique: "team" appears twice$/],
    // the most keys a body holds: checked unique in one pass (the parser's own check compared each with every earlier one)
    ['3,000 distinct keys and one of them again', `${keys(3000)}\nk0: 2\n`, 'application/yaml', 400, /^document 1, \(yaml\): Map keys must be unique: "k0" appears twice$/],
    ['3,000 distinct keys', `${keys(3000)}\n`, 'application/yaml', 400, /^\(document\)\.k0: is not supported/],
    ['over 32 KiB (one SLO is a few)', YAML('x', `  description: "${'x'.repeat(33_000)}"\n`), 'application/yaml', 413, /^the body is larger than 32768 bytes, the limit of PUT \/v1\/slos\/:name$/],
    ['another type', YAML('x'), 'text/plain', 415, /^send the OpenSLO document as JSON or YAML with Content-Type: application\/json or application\/yaml or application\/x-yaml \(got text\/plain\)$/]
  ])('refused, nothing stored: %s', async (what, payload, type, status, message) => {
    const before = await stored()
    const res = await put('x', payload, { 'content-type': type })
    expect(res.statusCode, res.body).toBe(status)
    expect(res.json().message).toMatch(message)
    expect(await stored()).toEqual(before)
    expect(before).not.toContain('x')
  })

  it('the tokens: none is a 401, a read token a 403, nothing stored', async () => {
    const before = await stored()
    const ask = async (headers) => (await app.inject({ method: 'PUT', url: '/v1/slos/t', payload: YAML('t'), headers: { 'content-type': 'application/yaml', ...headers } })).statusCode
    expect(await ask({})).toBe(401)
    expect(await ask(bearer(READ))).toBe(403)
    expect(await stored()).toEqual(before)
  })
})
