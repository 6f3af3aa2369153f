// SLO definitions (src/slos/definitions.js, docs/slos.md#definitions): the
// supported OpenSLO v1 subset is read; everything else is refused with the
// field named, never ignored; hostile files (1 MB, a YAML bomb, duplicate
// keys) are refused before they cost anything; SLO_FILE's refusal is one
// line naming the variable and the fix.
import { describe, expect, it } from 'vitest'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { nestsTooDeep, parseSloFile, parseSloYamlBody, parseSlo, SloDefinitionError } from '../../src/slos/definitions.js'
import { ConfigError, loadConfig } from '../../src/config.js'

const base = () => ({
  apiVersion: 'openslo/v1',
  kind: 'SLO',
  metadata: { name: 'checkout-availability', displayName: 'Checkout availability' },
  spec: {
    service: 'checkout',
    indicator: {
      metadata: { name: 'checkout-ratio' },
      spec: {
        ratioMetric: {
          counter: true,
          good: { metricSource: { type: 'statbucket', spec: { metric: 'web.requests', tags: ['status!=~5..'] } } },
          total: { metricSource: { type: 'statbucket', spec: { metric: 'web.requests' } } }
        }
      }
    },
    timeWindow: [{ duration: '1M', isRolling: false, calendar: { startTime: '2026-01-01 00:00:00', timeZone: 'Europe/Berlin' } }],
    budgetingMethod: 'Occurrences',
    objectives: [{ displayName: '99.9 %', target: 0.999 }]
  }
})
const RATIO = 'spec.indicator.spec.ratioMetric'
const with_ = (edit) => { const slo = base(); edit(slo); return slo }

describe('the supported subset', () => {
  it('reads the example: selectors with tag filters, the calendar in its zone, the target as exact digits', () => {
    const slo = parseSlo(base())
    expect(slo).toMatchObject({ name: 'checkout-availability', displayName: 'Checkout availability', service: 'checkout', target: 0.999, objective: '99.9 %' })
    expect(slo.indicator.good).toMatchObject({ metric: 'web.requests', tags: ['status!=~5..'] })
    expect(slo.indicator.good.filters[0].matches('503')).toBe(false)
    expect(slo.indicator.good.filters[0].matches('404')).toBe(true)
    expect(slo.indicator.total).toMatchObject({ metric: 'web.requests', tags: [], filters: [] })
    expect(slo.window).toEqual({ rolling: false, duration: '1M', zone: 'Europe/Berlin', weekStart: 1 })
    expect(slo.targetParts).toEqual({ numerator: 999n, denominator: 1000n })
    expect(parseSlo(with_(s => { s.spec.objectives[0].target = 1e-7 })).targetParts).toEqual({ numerator: 1n, denominator: 10_000_000n })
    expect(parseSlo(with_(s => { s.spec.objectives[0].target = 0.05 })).targetParts).toEqual({ numerator: 5n, denominator: 100n })
  })

  it.each([
    [{ duration: '1w', calendar: { timeZone: 'Asia/Kathmandu' } }, { rolling: false, duration: '1w', zone: 'Asia/Kathmandu', weekStart: 1 }],
    [{ duration: '1w', calendar: { startTime: '2026-11-01' } }, { rolling: false, duration: '1w', zone: 'UTC', weekStart: 0 }],
    [{ duration: '1d' }, { rolling: false, duration: '1d', zone: 'UTC', weekStart: 1 }],
    [{ duration: '1Q', calendar: { startTime: '2026-04-01', timeZone: 'Australia/Lord_Howe' } }, { rolling: false, duration: '1Q', zone: 'Australia/Lord_Howe', weekStart: 1 }],
    [{ duration: '1y', calendar: { timeZone: 'America/St_Johns' } }, { rolling: false, duration: '1y', zone: 'America/St_Johns', weekStart: 1 }],
    [{ duration: '28d', isRolling: true }, { rolling: true, duration: '28d', days: 28, zone: 'UTC' }],
    [{ duration: '7d', isRolling: true }, { rolling: true, duration: '7d', days: 7, zone: 'UTC' }],
    [{ duration: '30d', isRolling: true }, { rolling: true, duration: '30d', days: 30, zone: 'UTC' }]
  ])('timeWindow %j', (window, expected) => {
    expect(parseSlo(with_(s => { s.spec.timeWindow = [window] })).window).toEqual(expected)
  })

  it('a latency SLI: good counts the values at most its threshold; without one a selector has none', () => {
    const latency = parseSlo(with_(s => { s.spec.indicator.spec.ratioMetric.good.metricSource.spec = { metric: 'web.latency', threshold: 0.3 } }))
    expect(latency.indicator.good).toMatchObject({ metric: 'web.latency', threshold: 0.3 })
    expect(latency.indicator.total.threshold).toBeNull()
  })

  it('a bad indicator instead of good; several documents; an empty one ignored', () => {
    const bad = with_(s => {
      const r = s.spec.indicator.spec.ratioMetric
      r.bad = { metricSource: { type: 'statbucket', spec: { metric: 'web.requests', tags: ['status=~5..'] } } }
      delete r.good
    })
    expect(parseSlo(bad).indicator).toHaveProperty('bad.metric', 'web.requests')
    const text = `${JSON.stringify(base())}\n---\n${JSON.stringify(with_(s => { s.metadata.name = 'other' }))}\n---\n`
    expect(parseSloFile(text).map(s => s.name)).toEqual(['checkout-availability', 'other'])
    expect(parseSloFile('')).toEqual([])
  })
})

describe('refused by name', () => {
  it.each([
    ['kind', s => { s.kind = 'SLI' }, /"SLI" is not supported: only kind SLO/],
    ['kind', s => { s.kind = 'AlertPolicy' }, /only kind SLO/],
    ['apiVersion', s => { s.apiVersion = 'openslo/v2alpha' }, /must be openslo\/v1/],
    ['metadata.name', s => { s.metadata.name = 'Bad Name' }, /a-z 0-9 -/],
    ['metadata.name', s => { s.metadata.name = '__proto__' }, /a-z 0-9 -/],
    ['metadata.owner', s => { s.metadata.owner = 'x' }, /is not supported/],
    ['spec.extra', s => { s.spec.extra = 1 }, /is not supported \(supported here: description, service/],
    ['spec.alertPolicies', s => { s.spec.alertPolicies = [] }, /is not supported/],
    ['spec.indicatorRef', s => { delete s.spec.indicator; s.spec.indicatorRef = 'x' }, /give the indicator inline/],
    ['spec.timeWindow[0].calendar.startTime', s => { s.spec.timeWindow[0].calendar.startTime = '0001-01-01' }, /must be a date from 1971 on/],
    ['metadata.labels', s => { s.metadata.labels = ['team'] }, /a mapping of at most 64 names to a string or a list of strings/],
    ['metadata.labels.team', s => { s.metadata.labels = { team: { a: 1 } } }, /must be a string of at most 1050 characters/],
    ['metadata.labels.team[1]', s => { s.metadata.labels = { team: ['a', ['b']] } }, /must be a string/],
    ['metadata.annotations.note', s => { s.metadata.annotations = { note: ['a'] } }, /must be a string/],
    ['metadata.annotations', s => { s.metadata.annotations = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, 'v'])) }, /at most 64 names/],
    ['spec.indicator.metadata.name', s => { s.spec.indicator.metadata.name = { deep: [] } }, /must be a string/],
    ['spec.indicator.metadata.labels.x', s => { s.spec.indicator.metadata.labels = { x: 5 } }, /must be a string/],
    ['spec.budgetingMethod', s => { s.spec.budgetingMethod = 'Timeslices' }, /only Occurrences/],
    ['spec.indicator.spec.thresholdMetric', s => { s.spec.indicator.spec = { thresholdMetric: {} } }, /use ratioMetric/],
    [`${RATIO}.raw`, s => { s.spec.indicator.spec.ratioMetric.raw = {} }, /give good or bad/],
    [`${RATIO}.counter`, s => { s.spec.indicator.spec.ratioMetric.counter = false }, /must be true/],
    [`${RATIO}.good`, s => { s.spec.indicator.spec.ratioMetric.bad = s.spec.indicator.spec.ratioMetric.good }, /exactly one of good and bad/],
    [`${RATIO}.total`, s => { delete s.spec.indicator.spec.ratioMetric.total }, /is required/],
    [`${RATIO}.good.metricSource.type`, s => { s.spec.indicator.spec.ratioMetric.good.metricSource.type = 'prometheus' }, /must be statbucket/],
    [`${RATIO}.good.metricSource.metricSourceRef`, s => { s.spec.indicator.spec.ratioMetric.good.metricSource.metricSourceRef = 'x' }, /inline/],
    [`${RATIO}.good.metricSource.spec.query`, s => { s.spec.indicator.spec.ratioMetric.good.metricSource.spec.query = 'x' }, /is not supported/],
    [`${RATIO}.good.metricSource.spec.metric`, s => { s.spec.indicator.spec.ratioMetric.good.metricSource.spec.metric = 'web.requests;status=200' }, /must be a metric name/],
    [`${RATIO}.good.metricSource.spec.tags[0]`, s => { s.spec.indicator.spec.ratioMetric.good.metricSource.spec.tags = ['status'] }, /is not a tag filter/],
    [`${RATIO}.good.metricSource.spec.tags[1]`, s => { s.spec.indicator.spec.ratioMetric.good.metricSource.spec.tags = ['status=200', 'name=web.requests'] }, /the metric's name is not a tag/],
    [`${RATIO}.good.metricSource.spec.threshold`, s => { s.spec.indicator.spec.ratioMetric.good.metricSource.spec.threshold = -300 }, /must be a number above 0, at most 1000000000000000/],
    [`${RATIO}.good.metricSource.spec.threshold`, s => { s.spec.indicator.spec.ratioMetric.good.metricSource.spec.threshold = '300' }, /must be a number above 0/],
    [`${RATIO}.good.metricSource.spec.threshold`, s => { s.spec.indicator.spec.ratioMetric.good.metricSource.spec.threshold = 1e300 }, /must be a number above 0/],
    [`${RATIO}.total.metricSource.spec.threshold`, s => { s.spec.indicator.spec.ratioMetric.total.metricSource.spec.threshold = 300 }, /belongs to good/],
    [`${RATIO}.good.metricSource.spec.tags[0]`, s => { s.spec.indicator.spec.ratioMetric.good.metricSource.spec.tags = ['status=~(a'] }, /regex|parenthes/i],
    ['spec.timeWindow', s => { s.spec.timeWindow.push({ duration: '1d' }) }, /exactly one window/],
    ['spec.timeWindow[0].duration', s => { s.spec.timeWindow[0].duration = '2w' }, /one of 1d, 1w, 1M, 1Q, 1y/],
    ['spec.timeWindow[0].duration', s => { s.spec.timeWindow = [{ duration: '1M', isRolling: true }] }, /rolling window is one of 7d, 28d, 30d/],
    ['spec.timeWindow[0].calendar', s => { s.spec.timeWindow = [{ duration: '7d', isRolling: true, calendar: { timeZone: 'UTC' } }] }, /belongs to a calendar window/],
    ['spec.timeWindow[0].calendar.timeZone', s => { s.spec.timeWindow[0].calendar.timeZone = 'Mars/Olympus_Mons' }, /unknown time zone "Mars\/Olympus_Mons"/],
    ['spec.timeWindow[0].calendar.timeZone', s => { s.spec.timeWindow[0].calendar.timeZone = 'x'.repeat(5000) }, /unknown time zone/],
    ['spec.timeWindow[0].calendar.timeZone', s => { s.spec.timeWindow[0].calendar.timeZone = 3 }, /unknown time zone/],
    ['spec.timeWindow[0].calendar.startTime', s => { s.spec.timeWindow[0].calendar.startTime = '2026-01-15' }, /begins on the first day of its month/],
    ['spec.timeWindow[0].calendar.startTime', s => { s.spec.timeWindow[0].calendar.startTime = '2026-02-30' }, /is not a date/],
    ['spec.timeWindow[0].calendar.startTime', s => { s.spec.timeWindow[0].calendar.startTime = '2026-01-01T12:00:00Z' }, /local midnight/],
    ['spec.timeWindow[0].calendar.rrule', s => { s.spec.timeWindow[0].calendar.rrule = 'x' }, /is not supported/],
    ['spec.objectives', s => { s.spec.objectives.push({ target: 0.99 }) }, /exactly one objective/],
    ['spec.objectives[0].targetPercent', s => { s.spec.objectives[0] = { targetPercent: 99.9 } }, /give target/],
    ['spec.objectives[0].timeSliceTarget', s => { s.spec.objectives[0].timeSliceTarget = 0.9 }, /is not supported/],
    ['spec.objectives[0].target', s => { s.spec.objectives[0].target = 1 }, /between 0 and 1/],
    ['spec.objectives[0].target', s => { s.spec.objectives[0].target = 0 }, /between 0 and 1/],
    ['spec.objectives[0].target', s => { s.spec.objectives[0].target = '0.999' }, /between 0 and 1/],
    ['spec.objectives[0].target', s => { s.spec.objectives[0].target = 0.1234567891 }, /at most 9 decimals/],
    ['spec.objectives[0].target', s => { s.spec.objectives[0].target = 1e-10 }, /at most 9 decimals/],
    ['spec.objectives[0].target', s => { s.spec.objectives[0].target = -0.5 }, /between 0 and 1/]
  ])('%s', (field, edit, message) => {
    let caught
    try { parseSlo(with_(edit)) } catch (err) { caught = err }
    expect(caught).toBeInstanceOf(SloDefinitionError)
    expect(caught.field).toBe(field)
    expect(caught.message).toMatch(message)
  })
})

describe('hostile files', () => {
  const refusal = (text) => { try { parseSloFile(text) } catch (err) { return err } }

  it('1 MB of YAML: refused by its size before it is parsed', () => {
    const err = refusal(`# ${'x'.repeat(1 << 20)}\n${JSON.stringify(base())}`)
    expect(err).toBeInstanceOf(SloDefinitionError)
    expect(err.message).toMatch(/\(file\): is 10\d{5} bytes, over the limit of 262144/)
  })

  it('a YAML bomb (aliases of aliases): refused, naming the document', () => {
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x]']
    for (let i = 1; i < 9; i++) levels.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9).fill(`*${String.fromCharCode(96 + i)}`).join(', ')}]`)
    const started = process.cpuUsage()
    const err = refusal(levels.join('\n'))
    expect(err.message).toMatch(/^document 1, \(yaml\): Excessive alias count/)
    expect(process.cpuUsage(started).user).toBeLessThan(2e6) // the work counted: far from 9^9 nodes
  })

  it('labels nested 30,000 deep (60 KB): refused naming the field, in JSON as in YAML, never a stack overflow', () => {
    let deep = 'x'
    for (let i = 0; i < 30_000; i++) deep = [deep]
    const err = (() => { try { parseSlo(with_(s => { s.metadata.labels = { team: deep } })) } catch (e) { return e } })()
    expect(err).toBeInstanceOf(SloDefinitionError)
    expect(err.message).toMatch(/^metadata\.labels\.team\[0\]: must be a string/)
    const yaml = refusal(`${JSON.stringify(base()).slice(0, -1)}, "x": ${'['.repeat(30_000)}${']'.repeat(30_000)}}`)
    expect(yaml).toBeInstanceOf(SloDefinitionError)
    expect(yaml.message).toMatch(/^document 1, /)
    expect(yaml.message).not.toMatch(/call stack/)
  })

  it('YAML nested past 64 levels is refused before it is parsed, however many such texts one process reads (thousands deep, one after another, made V8 abort)', () => {
    const deep = (n) => [
      `a: ${'['.repeat(n)}x${']'.repeat(n)}`, // flow
      `${'- '.repeat(n)}x`, // compact sequences on one line
      Array.from({ length: Math.min(n, 180) }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n') + ' x' // block mappings, as deep as 16 KB indents
    ]
    for (const n of [1000, 2000, 4000, 8000, 12000, 16000]) {
      for (const text of deep(n)) {
        expect(refusal(text).message, `${n}: ${text.slice(0, 20)}`).toBe('document 1, (yaml): nests too deep to read: an SLO is a few levels deep (at most 64 levels)')
      }
    }
    // 64 levels are read; brackets in a quoted string count too (a generous count)
    expect(() => parseSloYamlBody(`a: ${'['.repeat(63)}x${']'.repeat(63)}`)).not.toThrow()
    expect(nestsTooDeep(`description: "${'['.repeat(70)}"`)).toBe(true)
    expect(nestsTooDeep('spec:\n  objectives:\n    - target: 0.9\n      op: [a, {b: c}]\n')).toBe(false)
  })

  it('labels and annotations as OpenSLO has them are read', () => {
    expect(() => parseSlo(with_(s => { s.metadata.labels = { team: 'shop', tier: ['1', 'gold'] }; s.metadata.annotations = { 'openslo.com/owner': 'shop' } }))).not.toThrow()
  })

  it('more documents than SLOs allowed; duplicate keys; duplicate names; not YAML; not a mapping', () => {
    expect(refusal('a: 1\n---\n'.repeat(201)).message).toMatch(/over the limit of 200 SLOs/)
    expect(refusal('kind: SLO\nkind: SLI\n').message).toMatch(/^document 1, \(yaml\): Map keys must be unique: "kind" appears twice$/)
    expect(refusal(`${JSON.stringify(base())}\n---\nspec: { objectives: [{ target: 0.9, target: 0.8 }] }\n`).message).toMatch(/^document 2, \(yaml\): Map keys must be unique: "target" appears twice$/)
    // a file's most keys (~30,000 in 256 KiB) checked in one pass; 1 and "1" are two keys, as the parser has them
    const keys = Array.from({ length: 30_000 }, (_, i) => `k${i.toString(36)}: 1`).join('\n')
    expect(refusal(`${keys}\nk0: 2\n`).message).toMatch(/^document 1, \(yaml\): Map keys must be unique: "k0" appears twice$/)
    expect(refusal(`${keys}\n`).message).toMatch(/^document 1, \(document\)\.k0: is not supported/)
    expect(refusal('1: a\n"1": b\n').message).toMatch(/^document 1, \(document\)\.1: is not supported/)
    expect(refusal(`${JSON.stringify(base())}\n---\n${JSON.stringify(base())}`).message).toMatch(/^document 2, metadata.name: checkout-availability is defined twice/)
    expect(refusal('{ unclosed').message).toMatch(/^document 1, \(yaml\):/)
    expect(refusal('- a\n- b\n').message).toMatch(/^document 1, \(document\): must be a mapping/)
    expect(refusal(`${JSON.stringify(base())}\n---\n${JSON.stringify(with_(s => { s.kind = 'Service'; s.metadata.name = 'x' }))}`).message).toMatch(/^document 2, kind: "Service" is not supported/)
  })
})

describe('SLO_FILE', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'slo-defs-'))
  const write = (name, text) => { const file = path.join(dir, name); fs.writeFileSync(file, text); return file }
  const configError = (env) => { try { loadConfig(env) } catch (err) { return err } }

  it('read at boot into config.slos', () => {
    const file = write('ok.yaml', JSON.stringify(base()))
    const config = loadConfig({ SLO_FILE: file })
    expect(config.sloFile).toBe(file)
    expect(config.slos.map(s => s.name)).toEqual(['checkout-availability'])
    expect(loadConfig({}).slos).toEqual([])
  })

  it.each([
    ['bad.yaml', JSON.stringify(with_(s => { s.spec.timeWindow[0].calendar.timeZone = 'Europe/Berlim' })), /^SLO_FILE: document 1, spec.timeWindow\[0\].calendar.timeZone: unknown time zone "Europe\/Berlim".*; fix it in .*bad.yaml, or unset SLO_FILE$/],
    ['big.yaml', 'x'.repeat(1 << 20), /^SLO_FILE: .*big.yaml is 1048576 bytes, over the limit of 262144: split or shorten it, or unset SLO_FILE$/],
    [null, null, /^SLO_FILE: cannot read ".*missing.yaml": ENOENT.*; set SLO_FILE to a readable YAML file, or unset it$/]
  ])('%s: one line naming SLO_FILE, the field and the fix', (name, text, message) => {
    const file = name === null ? path.join(dir, 'missing.yaml') : write(name, text)
    const err = configError({ SLO_FILE: file })
    expect(err).toBeInstanceOf(ConfigError)
    expect(err.variable).toBe('SLO_FILE')
    expect(err.message).not.toContain('\n')
    expect(err.message).toMatch(message)
  })
})
