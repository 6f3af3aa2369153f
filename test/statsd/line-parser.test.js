import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { DROP_REASONS, losesValue, parseLine, sanitizeName } from '../../src/statsd/line-parser.js'

const reasons = (r) => r.problems.map(p => p.reason)

describe('parseLine', () => {
  it('a counter adds value / rate', () => {
    expect(parseLine('api.hits:3|c')).toEqual({ samples: [{ metric: 'api.hits', value: 3 }], problems: [], values: 1, kept: 1, name: 'api.hits', renamedFrom: null })
    expect(parseLine('api hits:3|c')).toMatchObject({ samples: [{ metric: 'api_hits', value: 3 }], name: 'api_hits', renamedFrom: 'api hits' })
    expect(parseLine('api.hits:1|c|@0.1').samples).toEqual([{ metric: 'api.hits', value: 10 }])
    expect(parseLine('api.hits:-2|c').samples).toEqual([{ metric: 'api.hits', value: -2 }])
  })

  it('timers, histograms and distributions become name.count and name.sum', () => {
    for (const type of ['ms', 'h', 'd']) {
      expect(parseLine(`db.query:12.5|${type}|@0.5`).samples).toEqual([
        { metric: 'db.query.count', value: 2 },
        { metric: 'db.query.sum', value: 25 }
      ])
    }
  })

  it('packed values are parsed one by one; a bad one does not lose the others', () => {
    const r = parseLine('a:1|c:2|c|@0.5:x|c:4|g')
    expect(r.samples).toEqual([{ metric: 'a', value: 1 }, { metric: 'a', value: 4 }])
    expect(reasons(r)).toEqual(['bad_value', 'gauge'])
    expect(r.values).toBe(4)
    expect(r.kept).toBe(2)
  })

  it('gauges, sets and unknown types are dropped with their reason', () => {
    expect(reasons(parseLine('cpu:0.5|g'))).toEqual(['gauge'])
    expect(reasons(parseLine('users:alice|s'))).toEqual(['set'])
    expect(reasons(parseLine('x:1|kv'))).toEqual(['unknown_type'])
    expect(parseLine('cpu:0.5|g').samples).toEqual([])
  })

  it('tags are dropped and the value kept', () => {
    const r = parseLine('req:1|c|#env:prod,region:eu')
    expect(r.samples).toEqual([{ metric: 'req', value: 1 }])
    expect(reasons(r)).toEqual(['tags'])
    expect(r.problems.filter(losesValue)).toEqual([])
    expect(reasons(parseLine('req:1|c|#'))).toEqual([])
  })

  it('malformed lines, bad values and bad sample rates', () => {
    expect(reasons(parseLine('nocolon'))).toEqual(['malformed'])
    expect(reasons(parseLine('a:1'))).toEqual(['malformed'])
    expect(reasons(parseLine('a:|c'))).toEqual(['bad_value'])
    expect(reasons(parseLine('a:abc|c'))).toEqual(['bad_value'])
    expect(reasons(parseLine('a:Infinity|c'))).toEqual(['bad_value'])
    expect(reasons(parseLine('a:-1|ms'))).toEqual(['bad_value'])
    expect(reasons(parseLine('a:1e16|c'))).toEqual(['bad_value'])
    expect(reasons(parseLine('a:1e12|c|@0.0001'))).toEqual(['bad_value'])
    expect(reasons(parseLine('a:1|c|0.5'))).toEqual(['bad_sample_rate'])
    expect(reasons(parseLine('a:1|c|@0'))).toEqual(['bad_sample_rate'])
    expect(reasons(parseLine('a:1|c|@-0.5'))).toEqual(['bad_sample_rate'])
    expect(reasons(parseLine('a:1|c|@x'))).toEqual(['bad_sample_rate'])
  })

  it('names are sanitised as the statsd daemon does; still invalid names are dropped', () => {
    expect(parseLine('my app/requests per sec:1|c').samples).toEqual([{ metric: 'my_app-requests_per_sec', value: 1 }])
    expect(parseLine('héllo!#$%wörld:1|c').samples).toEqual([{ metric: 'hllowrld', value: 1 }])
    expect(reasons(parseLine(':1|c'))).toEqual(['invalid_name'])
    expect(reasons(parseLine('/api:1|c'))).toEqual(['invalid_name']) // "-api" starts with "-"
    expect(reasons(parseLine(`${'a'.repeat(200)}:1|c`))).toEqual([])
    expect(reasons(parseLine(`${'a'.repeat(200)}:1|ms`))).toEqual(['invalid_name']) // a…a.count is 206 long
  })

  it('an empty line carries nothing; a trailing CR is ignored', () => {
    expect(parseLine('')).toEqual({ samples: [], problems: [], values: 0, kept: 0 })
    expect(parseLine('a:1|c\r').samples).toEqual([{ metric: 'a', value: 1 }])
  })

  it('every reason is one of DROP_REASONS', () => {
    fc.assert(fc.property(fc.string({ maxLength: 40 }), (line) => {
      for (const p of parseLine(line).problems) expect(DROP_REASONS).toContain(p.reason)
    }))
  })
})

describe('sanitizeName', () => {
  it('keeps only [A-Za-z0-9_.-], and is idempotent', () => {
    fc.assert(fc.property(fc.string({ maxLength: 60, unit: 'binary' }), (raw) => {
      const once = sanitizeName(raw)
      expect(once).toMatch(/^[A-Za-z0-9_.-]*$/)
      expect(sanitizeName(once)).toBe(once)
    }))
  })

  it('agrees with the daemon\'s rule on names without ; and = (model: whitespace → _, / → -, drop the rest)', () => {
    const daemon = (key) => key.replace(/\s+/g, '_').replace(/\//g, '-').replace(/[^a-zA-Z_\-0-9.;=]/g, '')
    fc.assert(fc.property(fc.string({ maxLength: 60 }), (raw) => {
      expect(sanitizeName(raw)).toBe(daemon(raw).replace(/[;=]/g, ''))
    }))
  })
})

describe('parseLine against a model of the format', () => {
  const name = fc.stringMatching(/^[a-z][a-z0-9_.]{0,20}$/)
  const valueOf = fc.record({
    type: fc.constantFrom('c', 'ms', 'h', 'd'),
    value: fc.integer({ min: 0, max: 1_000_000 }),
    rate: fc.constantFrom(undefined, 1, 0.5, 0.25, 0.1)
  })
  const format = ({ type, value, rate }) => `${value}|${type}${rate === undefined ? '' : `|@${rate}`}`

  it('a packed line of valid values gives the counter and timer totals of the model', () => {
    fc.assert(fc.property(name, fc.array(valueOf, { minLength: 1, maxLength: 6 }), fc.boolean(), (metric, vals, tagged) => {
      const line = `${metric}:${vals.map(format).join(':')}${tagged ? '|#a:b' : ''}`
      const r = parseLine(line)
      expect(r.problems.filter(losesValue)).toEqual([])
      expect(r.values).toBe(vals.length)
      const totals = {}
      for (const s of r.samples) totals[s.metric] = (totals[s.metric] ?? 0) + s.value
      const expected = {}
      const add = (k, v) => { expected[k] = (expected[k] ?? 0) + v }
      for (const { type, value, rate = 1 } of vals) {
        if (type === 'c') add(metric, value / rate)
        else { add(`${metric}.count`, 1 / rate); add(`${metric}.sum`, value / rate) }
      }
      expect(Object.keys(totals).sort()).toEqual(Object.keys(expected).sort())
      for (const k of Object.keys(expected)) expect(totals[k]).toBeCloseTo(expected[k], 6)
    }))
  })
})
