// docs/slo-alerts.yaml against a real server's /metrics (docs/slos.md#alerting):
// the rules are evaluated each simulated minute of an incident on the
// series statbucket exposes, and fire when the SRE workbook says they
// should — the fast burn within minutes and reset by its short window once
// the errors stop, the slow burn, the ticket, the spent budget, the failing
// reports after their `for` — and never for the healthy SLO. promtool (a Go
// build of Prometheus, over 20 minutes here) is not used: the rules are
// read by an evaluator of the PromQL they use, which refuses anything else.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parse } from 'yaml'
import { manualClock } from '../../src/clock.js'
import { testApp } from '../helpers/test-app.js'
import { parseMetrics } from '../helpers/prometheus-text.js'

const RULES = parse(fs.readFileSync(new URL('../../docs/slo-alerts.yaml', import.meta.url), 'utf8'))
const MINUTE = 60_000
const DAY = 1440 * MINUTE
const START = Date.UTC(2026, 10, 27, 12, 0) // minute 0 of the incident's hour
const INCIDENT = [20, 50] // checkout answers 30 % 5xx in these minutes
const clock = manualClock(START)
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'slo-alert-rules-'))

const source = (metric, tags = []) => ({ metricSource: { type: 'statbucket', spec: { metric, tags } } })
const slo = (name, route, target, metric = 'shop.requests') => JSON.stringify({
  apiVersion: 'openslo/v1',
  kind: 'SLO',
  metadata: { name },
  spec: {
    indicator: { spec: { ratioMetric: { good: source(metric, [`route=${route}`, 'status!=~5..']), total: source(metric, [`route=${route}`]) } } },
    timeWindow: [{ duration: '1M', calendar: { timeZone: 'Europe/Berlin' } }],
    budgetingMethod: 'Occurrences',
    objectives: [{ target }]
  }
})

/** The PromQL the rules use, and nothing else: `selector op number [and ignoring (labels) selector op number]` */
function compile (expr) {
  const cmp = String.raw`([a-z_:][a-z0-9_:]*)(?:\{([^}]*)\})?\s*(>|<|>=|<=|==|!=)\s*(-?[\d.]+)`
  const m = new RegExp(String.raw`^${cmp}(?:\s+and\s+ignoring\s*\(([a-z_, ]+)\)\s+${cmp})?$`).exec(expr.trim())
  if (!m) throw new Error(`not PromQL this evaluator reads: ${expr}`)
  const matchers = (text = '') => text.split(',').filter(Boolean).map(s => {
    const mm = /^\s*([a-z_]+)="([^"]*)"\s*$/.exec(s)
    if (!mm) throw new Error(`matcher ${s}`)
    return [mm[1], mm[2]]
  })
  const OPS = { '>': (a, b) => a > b, '<': (a, b) => a < b, '>=': (a, b) => a >= b, '<=': (a, b) => a <= b, '==': (a, b) => a === b, '!=': (a, b) => a !== b }
  const side = (name, sel, op, k) => (series) => series.filter(s => s.name === name && matchers(sel).every(([l, v]) => (s.labels[l] ?? '') === v) && OPS[op](s.value, Number(k)))
  const left = side(m[1], m[2], m[3], m[4])
  if (m[5] === undefined) return left
  const ignored = m[5].split(',').map(s => s.trim())
  const right = side(m[6], m[7], m[8], m[9])
  const key = s => JSON.stringify(Object.entries(s.labels).filter(([l]) => !ignored.includes(l)).sort())
  return (series) => { const keys = new Set(right(series).map(key)); return left(series).filter(s => keys.has(key(s))) }
}

/** A scrape → [{ name, labels, value }] */
const seriesOf = (text) => [...parseMetrics(text)].map(([k, value]) => {
  const [, name, labels = ''] = /^([^{]+)(?:\{(.*)\})?$/.exec(k)
  return { name, labels: Object.fromEntries([...labels.matchAll(/([a-z_]+)="([^"]*)"/g)].map(x => [x[1], x[2]])), value }
})

let app
const firing = [] // per minute: the set of "alert slo" that fire
beforeAll(async () => {
  fs.writeFileSync(path.join(dir, 'slos.yaml'), [slo('checkout', '/checkout', 0.999), slo('search', '/search', 0.99), slo('latency', '/checkout', 0.99, 'shop.latency')].join('\n---\n'))
  app = await testApp('slo_alert_rules', { clock, env: { SLO_FILE: path.join(dir, 'slos.yaml') }, sloReloadOnHangup: false })
  const post = async (events) => {
    for (let i = 0; i < events.length; i += 1000) {
      expect((await app.inject({ method: 'POST', url: '/v1/events', payload: events.slice(i, i + 1000) })).json()).toEqual({ accepted: Math.min(1000, events.length - i) })
    }
  }
  const minute = (t, checkoutBad) => [
    { metric: 'shop.requests', tags: { route: '/checkout', status: '200' }, value: 100 - checkoutBad, ts: t },
    ...(checkoutBad ? [{ metric: 'shop.requests', tags: { route: '/checkout', status: '503' }, value: checkoutBad, ts: t }] : []),
    { metric: 'shop.requests', tags: { route: '/search', status: '200' }, value: 100, ts: t }
  ]
  // three healthy days before, one checkout error an hour
  const history = []
  for (let t = START - 3 * DAY; t < START; t += MINUTE) history.push(...minute(t, (t / MINUTE) % 60 === 0 ? 1 : 0))
  await post(history)
  await post([{ metric: 'shop.latency', kind: 'gauge', value: 80, ts: START - MINUTE }]) // the latency SLO's selector, a gauge: refused
  const rules = RULES.groups.flatMap(g => g.rules)
  const since = new Map() // "alert labels" → the first minute its expression held, while it holds
  for (let i = 0; i < 60; i++) {
    const t = START + i * MINUTE
    await post(minute(t + 10_000, i >= INCIDENT[0] && i < INCIDENT[1] ? 30 : 0))
    clock.set(t + 30_000)
    const res = await app.inject('/metrics')
    expect(res.statusCode).toBe(200)
    const series = seriesOf(res.body)
    const holding = new Map() // "alert slo" (or reason) → its rule, where the expression holds now
    for (const rule of rules) for (const s of compile(rule.expr)(series)) holding.set(`${rule.alert} ${s.labels.slo ?? s.labels.reason}`, rule)
    for (const id of [...since.keys()]) if (!holding.has(id)) since.delete(id)
    const now = new Set()
    for (const [id, rule] of holding) {
      if (!since.has(id)) since.set(id, i)
      // Prometheus' `for`: pending until the expression has held that long at each evaluation
      if (i - since.get(id) >= (rule.for ? Number(/^(\d+)m$/.exec(rule.for)[1]) : 0)) now.add(id)
    }
    firing.push(now)
  }
}, 300_000)
afterAll(async () => {
  await app?.close()
  fs.rmSync(dir, { recursive: true, force: true })
})

const at = (minute) => [...firing[minute]].sort()

describe('docs/slo-alerts.yaml on statbucket\'s series', () => {
  it('the file is Prometheus\' rule format: named groups of alerts with expr, for, labels and annotations only', () => {
    expect(Object.keys(RULES)).toEqual(['groups'])
    for (const group of RULES.groups) {
      expect(Object.keys(group).sort()).toEqual(['name', 'rules'])
      for (const rule of group.rules) {
        expect(['alert', 'expr', 'for', 'labels', 'annotations']).toEqual(expect.arrayContaining(Object.keys(rule)))
        expect(rule.alert).toMatch(/^[A-Za-z_][A-Za-z0-9_]*$/)
        expect(['page', 'ticket']).toContain(rule.labels.severity)
        expect(() => compile(rule.expr)).not.toThrow()
      }
    }
    expect(RULES.groups.flatMap(g => g.rules.map(r => r.alert))).toEqual(['SLOBurnRateFast', 'SLOBurnRateSlow', 'SLOBurnRateTicket', 'SLOErrorBudgetSpent', 'SLOReportsFailing'])
  })

  it('healthy: nothing fires but the failing reports of the refused SLO, once they have failed 15 minutes', () => {
    for (let i = 0; i < 15; i++) expect(at(i), `minute ${i}`).toEqual([])
    for (let i = 15; i < INCIDENT[0]; i++) expect(at(i), `minute ${i}`).toEqual(['SLOReportsFailing refused'])
  })

  it('the incident: the fast burn pages within minutes, then the slow burn, the ticket and the spent budget; search never', () => {
    expect(at(INCIDENT[0] + 5)).toContain('SLOBurnRateFast checkout')
    expect(at(INCIDENT[0] + 25)).toEqual(['SLOBurnRateFast checkout', 'SLOBurnRateSlow checkout', 'SLOBurnRateTicket checkout', 'SLOErrorBudgetSpent checkout', 'SLOReportsFailing refused'])
    expect(firing.flatMap(f => [...f]).filter(id => id.endsWith(' search'))).toEqual([])
    const first = (alert) => firing.findIndex(f => f.has(`${alert} checkout`))
    expect(first('SLOBurnRateFast')).toBeGreaterThanOrEqual(INCIDENT[0])
    expect(first('SLOBurnRateFast')).toBeLessThan(first('SLOBurnRateSlow'))
    expect(first('SLOBurnRateSlow')).toBeLessThan(first('SLOBurnRateTicket'))
  })

  it('the errors stop: the fast page resets with its 5m window while the long windows still burn', () => {
    const after = at(INCIDENT[1] + 6)
    expect(after).not.toContain('SLOBurnRateFast checkout')
    expect(after).toContain('SLOBurnRateSlow checkout') // 30m still holds the incident: the slow page resets later
    expect(after).toContain('SLOErrorBudgetSpent checkout')
  })
})
