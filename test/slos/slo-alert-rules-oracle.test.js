// docs/slo-alerts.yaml and the SLO series of /metrics read by Prometheus'
// own grammar and client, from PyPI (scripts/promql-oracle/setup-venv.sh):
// every rule's expression parses with promql-parser and selects series
// a real scrape has, as gauges; prometheus_client's text parser reads that
// scrape exactly as the suite's helper does. (promtool itself, a Go build
// of over 20 minutes here, is not built: test/slos/slo-alert-rules.test.js
// evaluates the rules through an incident.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFile, spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { parse } from 'yaml'
import { manualClock } from '../../src/clock.js'
import { testApp } from '../helpers/test-app.js'
import { parseMetrics } from '../helpers/prometheus-text.js'

const run = promisify(execFile)
const scripts = new URL('../../scripts/promql-oracle/', import.meta.url).pathname
const RULES = parse(fs.readFileSync(new URL('../../docs/slo-alerts.yaml', import.meta.url), 'utf8')).groups.flatMap(g => g.rules)
const NOW = Date.UTC(2026, 10, 28, 12, 0, 30)
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'slo-alert-oracle-'))
const source = (metric, tags = []) => ({ metricSource: { type: 'statbucket', spec: { metric, tags } } })
const slo = (name, metric, target) => JSON.stringify({
  apiVersion: 'openslo/v1',
  kind: 'SLO',
  metadata: { name },
  spec: { indicator: { spec: { ratioMetric: { good: source(metric, ['status!=~5..']), total: source(metric) } } }, timeWindow: [{ duration: '1M', calendar: { timeZone: 'Europe/Berlin' } }], budgetingMethod: 'Occurrences', objectives: [{ target }] }
})

let oracle
let exposition
beforeAll(async () => {
  const { stdout: venv } = await run('sh', [`${scripts}setup-venv.sh`], { timeout: 300_000 })
  fs.writeFileSync(path.join(dir, 'slos.yaml'), [slo('checkout', 'shop.requests', 0.999), slo('idle', 'shop.idle', 0.99), slo('latency', 'shop.latency', 0.99)].join('\n---\n'))
  const app = await testApp('slo_alert_oracle', { clock: manualClock(NOW), env: { SLO_FILE: path.join(dir, 'slos.yaml') }, sloReloadOnHangup: false })
  try {
    const events = ['200', '200', '503'].flatMap(status => [60_000, 3_600_000, 2 * 86_400_000].map(ago => ({ metric: 'shop.requests', tags: { status }, ts: NOW - ago })))
    events.push({ metric: 'shop.latency', kind: 'gauge', value: 90, ts: NOW - 60_000 })
    expect((await app.inject({ method: 'POST', url: '/v1/events', payload: events })).json()).toEqual({ accepted: events.length })
    exposition = (await app.inject('/metrics')).body
  } finally {
    await app.close()
  }
  const child = spawn(`${venv.trim()}/bin/python`, [`${scripts}oracle.py`])
  const out = []
  const err = []
  child.stdout.on('data', c => out.push(c))
  child.stderr.on('data', c => err.push(c))
  child.stdin.end(JSON.stringify({ rules: RULES.map(({ alert, expr }) => ({ alert, expr })), exposition }))
  const code = await new Promise(resolve => child.on('close', resolve))
  expect(code, Buffer.concat(err).toString()).toBe(0)
  oracle = JSON.parse(Buffer.concat(out).toString())
}, 360_000)
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

describe('Prometheus\' grammar and client on the rules and the series', () => {
  it('every rule\'s expression parses, and selects a gauge family of the scrape with samples for each matcher', () => {
    const families = new Map(oracle.families.map(f => [f.name, f]))
    expect(oracle.rules.map(r => r.alert)).toEqual(RULES.map(r => r.alert))
    for (const rule of oracle.rules) {
      expect(rule.error, rule.alert).toBeUndefined()
      expect(rule.selectors.length, rule.alert).toBeGreaterThan(0)
      for (const { name, matchers } of rule.selectors) {
        expect(families.get(name)?.type, `${rule.alert}: ${name}`).toBe('gauge')
        const wanted = [...matchers.matchAll(/(\w+)="([^"]*)"/g)].map(m => [m[1], m[2]])
        expect(families.get(name).samples.some(s => wanted.every(([l, v]) => s.labels[l] === v)), `${rule.alert}: ${name}${matchers}`).toBe(true)
      }
    }
  })

  it('prometheus_client reads the scrape as the suite does: the same samples, every SLO gauge with its help', () => {
    const theirs = new Map(oracle.families.flatMap(f => f.samples.map(s => {
      const labels = Object.entries(s.labels).map(([l, v]) => `${l}="${v}"`).join(',')
      return [`${s.name}${labels ? `{${labels}}` : ''}`, s.value]
    })))
    const ours = parseMetrics(exposition)
    const slo = ([k]) => k.startsWith('statbucket_slo_')
    expect([...theirs].filter(slo).sort()).toEqual([...ours].filter(slo).sort())
    expect([...ours].filter(slo).length).toBeGreaterThan(15)
    expect(ours.has('statbucket_slo_attainment{slo="idle"}')).toBe(false) // no events: left out
    expect(ours.get('statbucket_slo_report_errors{reason="refused"}')).toBe(1) // the gauge
  })

  it('a refusal is a refusal: the parser rejects what is not PromQL', async () => {
    const { stdout: venv } = await run('sh', [`${scripts}setup-venv.sh`])
    const { stdout } = await run(`${venv.trim()}/bin/python`, ['-c', 'import promql_parser, sys\ntry:\n  promql_parser.parse("statbucket_slo_burn_rate{window=1h} > 14.4")\nexcept Exception as e:\n  print("refused")'])
    expect(stdout.trim()).toBe('refused')
  })
})
