import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { DROP_REASONS, parseLine, sanitizeName } from '../../src/statsd/line-parser.js'

const reasons = (r) => r.problems.map(p => p.reason)

describe('parseLine', () => {
  it('a counter adds value / rate', () => {
    expect(parseLine('api.hits:3|c')).toEqual({ samples: [{ metric: 'api.hits', value: 3 }], problems: [], values: 1, kept: 1, name: 'api.hits', renamedFrom: null })
    expect(parseLine('api hits:3|c')).toMatchObject({ samples: [{ metric: 'api_hits', value: 3 }], name: 'api_hits', renamedFrom: 'api hits' })
    expect(parseLine('api.hits:1|c|@0.1').samples).toEqual([{ metric: 'api.hits', value: 10 }])
    expect(parseLine('api.hits:-2|c').samples).toEqual([{ metric: 'api.hits', value: -2 }])
  })

  it('a timer, histogram or distribution value is one distribution sample, weighted 1 / rate', () => {
    for (const type of ['ms', 'h', 'd']) {
      expect(parseLine(`db.query:12.5|${type}`)).toEqual({
        samples: [{ metric: 'db.query', value: 12.5, kind: 'distribution', weight: 1 }], problems: [], values: 1, kept: 1, name: 'db.query', renamedFrom: null
      })
      // the value is kept as sent: a sample rate weighs it, never scales it
      expect(parseLine(`db.query:12.5|${type}|@0.5`).samples).toEqual([{ metric: 'db.query', value: 12.5, kind: 'distribution', weight: 2 }])
      expect(parseLine(`db.query:87|${type}|@0.1`).samples).toEqual([{ metric: 'db.query', value: 87, kind: 'distribution', weight: 10 }])
      expect(parseLine(`db.query:3|${type}|@0.25`).samples).toEqual([{ metric: 'db.query', value: 3, kind: 'distribution', weight: 4 }])
    }
    // a rate above 1 is taken as the daemon takes it: a weight below 1
    expect(parseLine('db.query:1|ms|@2').samples).toEqual([{ metric: 'db.query', value: 1, kind: 'distribution', weight: 0.5 }])
  })

  it('negative values: refused for ms (a duration; the statsd daemon refuses them too), kept for h and d', () => {
    expect(reasons(parseLine('a:-1|ms'))).toEqual(['bad_value'])
    expect(reasons(parseLine('a:-0.001|ms'))).toEqual(['bad_value'])
    expect(parseLine('skew:-12.5|h').samples).toEqual([{ metric: 'skew', value: -12.5, kind: 'distribution', weight: 1 }])
    expect(parseLine('skew:-3|d|@0.5').samples).toEqual([{ metric: 'skew', value: -3, kind: 'distribution', weight: 2 }])
  })

  it('hostile distribution values: each a problem with its reason, the values beside it kept', () => {
    const cases = {
      'a:NaN|ms': 'bad_value',
      'a:Infinity|ms': 'bad_value',
      'a:-Infinity|h': 'bad_value',
      'a:1e308|ms': 'bad_value',
      'a:-1e308|d': 'bad_value',
      'a:1e400|ms': 'bad_value',
      'a:1e16|h': 'bad_value',
      'a:0x10|ms': null, // Number('0x10') is 16, as the daemon reads it
      'a:-5|ms': 'bad_value',
      'a:|ms': 'bad_value',
      'a: |ms': 'bad_value',
      'a:1|ms|@0': 'bad_sample_rate',
      'a:1|ms|@-1': 'bad_sample_rate',
      'a:1|ms|@NaN': 'bad_sample_rate',
      'a:1|ms|@Infinity': 'bad_sample_rate',
      'a:1|ms|@1e-300': 'bad_sample_rate', // a weight of 1e300
      'a:1|ms|@5e-324': 'bad_sample_rate', // 1 / 5e-324 is Infinity
      'a:1|ms|@1e-16': 'bad_sample_rate', // a weight of 1e16 > 1e15
      'a:1|ms|0.5': 'bad_sample_rate'
    }
    for (const [line, reason] of Object.entries(cases)) {
      const r = parseLine(line)
      expect(reasons(r), line).toEqual(reason ? [reason] : [])
      expect(r.samples, line).toHaveLength(reason ? 0 : 1)
      expect(r.kept, line).toBe(reason ? 0 : 1)
      expect(r.values, line).toBe(1)
    }
    // the largest weight kept: rate 1e-15
    expect(parseLine('a:1|ms|@1e-15').samples).toEqual([{ metric: 'a', value: 1, kind: 'distribution', weight: 1 / 1e-15 }])
    // packed beside good values, a bad one loses only itself
    const r = parseLine('a:5|ms:NaN|ms:7|ms|@0:-1|ms:9|ms')
    expect(r.samples.map(s => s.value)).toEqual([5, 9])
    expect(reasons(r)).toEqual(['bad_value', 'bad_sample_rate', 'bad_value'])
    expect([r.values, r.kept]).toEqual([5, 2])
  })

  it('-0 is kept as 0, tiny values as they are (the sketch counts |v| < 1e-9 in its zero bucket)', () => {
    const minusZero = parseLine('a:-0|ms').samples[0]
    expect(Object.is(minusZero.value, 0)).toBe(true)
    expect(Object.is(parseLine('a:-0|d').samples[0].value, 0)).toBe(true)
    expect(parseLine('a:1e-300|ms').samples).toEqual([{ metric: 'a', value: 1e-300, kind: 'distribution', weight: 1 }])
    expect(parseLine('a:5e-324|h').samples).toEqual([{ metric: 'a', value: 5e-324, kind: 'distribution', weight: 1 }])
    expect(parseLine('a:-1e-300|d').samples).toEqual([{ metric: 'a', value: -1e-300, kind: 'distribution', weight: 1 }])
    // a counter's -0 is as before
    expect(parseLine('a:-0|c').samples).toEqual([{ metric: 'a', value: -0 }])
  })

  it('a packed line mixing c and ms gives a counter sample and a distribution sample, in order', () => {
    const r = parseLine('api.latency:1|c:87|ms|@0.5:2|c|@0.5:87|ms')
    expect(r.samples).toEqual([
      { metric: 'api.latency', value: 1 },
      { metric: 'api.latency', value: 87, kind: 'distribution', weight: 2 },
      { metric: 'api.latency', value: 4 },
      { metric: 'api.latency', value: 87, kind: 'distribution', weight: 1 }
    ])
    expect([r.values, r.kept]).toEqual([4, 4])
  })

  it('packed values are parsed one by one; a bad one does not lose the others', () => {
    const r = parseLine('a:1|c:2|c|@0.5:x|c:4|s')
    expect(r.samples).toEqual([{ metric: 'a', value: 1 }, { metric: 'a', value: 4 }])
    expect(reasons(r)).toEqual(['bad_value', 'set'])
    expect(r.values).toBe(4)
    expect(r.kept).toBe(2)
  })

  it('sets and unknown types are dropped with their reason', () => {
    expect(reasons(parseLine('users:alice|s'))).toEqual(['set'])
    expect(reasons(parseLine('x:1|kv'))).toEqual(['unknown_type'])
    expect(DROP_REASONS).not.toContain('gauge')
  })

  it('a gauge: a value without a sign is the level, with + or − a delta to it, as the statsd daemon reads them', () => {
    expect(parseLine('cpu:0.5|g')).toEqual({ samples: [{ metric: 'cpu', value: 0.5, kind: 'gauge' }], problems: [], values: 1, kept: 1, name: 'cpu', renamedFrom: null })
    expect(parseLine('q.depth:+3|g').samples).toEqual([{ metric: 'q.depth', value: 3, kind: 'gauge', delta: true }])
    expect(parseLine('q.depth:-2|g').samples).toEqual([{ metric: 'q.depth', value: -2, kind: 'gauge', delta: true }])
    expect(parseLine('q.depth:-2.5|g').samples).toEqual([{ metric: 'q.depth', value: -2.5, kind: 'gauge', delta: true }])
    // −0 and +0 are deltas of 0 (the level again); 0 is a level
    for (const text of ['-0', '+0']) {
      const [sample] = parseLine(`q:${text}|g`).samples
      expect(sample).toEqual({ metric: 'q', value: 0, kind: 'gauge', delta: true })
      expect(Object.is(sample.value, 0)).toBe(true)
    }
    expect(parseLine('q:0|g').samples).toEqual([{ metric: 'q', value: 0, kind: 'gauge' }])
    // packed with other types, in order
    expect(parseLine('q:5|g:+1|g:2|c').samples).toEqual([{ metric: 'q', value: 5, kind: 'gauge' }, { metric: 'q', value: 1, kind: 'gauge', delta: true }, { metric: 'q', value: 2 }])
  })

  it('a gauge ignores its sample rate, as the daemon does, yet a rate must be @ and a number', () => {
    for (const rate of ['@0.1', '@1', '@0', '@-3', '@1e-300', '@5e-324', '@2']) {
      expect(parseLine(`q:7|g|${rate}`).samples, rate).toEqual([{ metric: 'q', value: 7, kind: 'gauge' }])
      expect(parseLine(`q:-7|g|${rate}`).samples, rate).toEqual([{ metric: 'q', value: -7, kind: 'gauge', delta: true }])
    }
    for (const rate of ['0.5', '@', '@x', '@NaN', '@Infinity']) expect(reasons(parseLine(`q:7|g|${rate}`)), rate).toEqual(['bad_sample_rate'])
  })

  it('hostile gauge values and deltas: each a bad_value, the values beside it kept', () => {
    for (const text of ['NaN', 'Infinity', '-Infinity', '+Infinity', '1e308', '-1e308', '+1e16', '1e16', '', ' ', '+', '-', '--1', '+-1', 'abc']) {
      const r = parseLine(`q:${text}|g:4|g`)
      expect(reasons(r), text).toEqual(['bad_value'])
      expect(r.samples, text).toEqual([{ metric: 'q', value: 4, kind: 'gauge' }])
    }
    // the largest level and deltas an event may carry
    expect(parseLine('q:1e15|g:-1e15|g:+1e15|g').samples.map(s => s.value)).toEqual([1e15, -1e15, 1e15])
  })

  it('DogStatsD tags name the series, keys sorted; a bare tag is true; a value keeps every : after the first', () => {
    const r = parseLine('req:1|c|#region:eu,env:prod')
    expect(r.samples).toEqual([{ metric: 'req;env=prod;region=eu', value: 1 }])
    expect(r.problems).toEqual([])
    expect(parseLine('req:1|c|#canary,url:http://x:8080').samples).toEqual([{ metric: 'req;canary=true;url=http://x:8080', value: 1 }])
    expect(parseLine('req:1|c|#').samples).toEqual([{ metric: 'req', value: 1 }])
    // DogStatsD's later fields (a container id) end the tags
    expect(parseLine('req:2|c|#env:prod|c:abc123').samples).toEqual([{ metric: 'req;env=prod', value: 2 }])
  })

  it('DogStatsD\'s fields after the type in any order: a rate after the tags weighs as one before them', () => {
    // the Datadog agent reads |@rate and |#tags in either order (pkg/dogstatsd/parse.go): the same counts
    expect(parseLine('m:1|c|#k:v|@0.5').samples).toEqual([{ metric: 'm;k=v', value: 2 }])
    expect(parseLine('m:10|ms|#k:v|@0.1').samples).toEqual([{ metric: 'm;k=v', value: 10, kind: 'distribution', weight: 10 }])
    expect(parseLine('m:1|c|#k:v|c:abc|@0.25|T1700000000|e:it').samples).toEqual([{ metric: 'm;k=v', value: 4 }])
    expect(parseLine('m:1|c:2|c|#k:v|@0.5').samples).toEqual([{ metric: 'm;k=v', value: 2 }, { metric: 'm;k=v', value: 4 }])
    // a gauge ignores it, but it must still be @ and a number
    expect(parseLine('q:7|g|#k:v|@0.5').samples).toEqual([{ metric: 'q;k=v', value: 7, kind: 'gauge' }])
    expect(reasons(parseLine('q:7|g|#k:v|@x'))).toEqual(['bad_sample_rate'])
    // a bad rate after the tags is a bad rate, as before them
    for (const rate of ['@0', '@-1', '@x', '@', '@1e-300']) expect(reasons(parseLine(`m:1|c|#k:v|${rate}`)), rate).toEqual(['bad_sample_rate'])
    // two rates, or two tag fields, are refused: which one the client meant is not known
    const twice = parseLine('m:1|c|@0.5|#k:v|@0.5')
    expect([twice.samples, reasons(twice)]).toEqual([[], ['bad_sample_rate']])
    expect(twice.problems[0].message).toMatch(/two sample rates/)
    const rates = parseLine('m:1|c:2|c|#k:v|@0.5|@0.1')
    expect([rates.samples, reasons(rates)]).toEqual([[], ['bad_sample_rate', 'bad_sample_rate']])
    const tags = parseLine('m:1|c|#k:v|@0.5|#j:w')
    expect([tags.samples, reasons(tags)]).toEqual([[], ['bad_tags']])
    expect(tags.problems[0].message).toMatch(/two tag fields/)
    // without tags too (datadog-go sends |c: with origin detection, |T with a timestamp): the fields end the values
    expect(parseLine('m:1|c|c:abc').samples).toEqual([{ metric: 'm', value: 1 }])
    expect(parseLine('m:1|c|c:ci-1:abc|e:it-2').samples).toEqual([{ metric: 'm', value: 1 }])
    expect(parseLine('m:1|c|T1700000000').samples).toEqual([{ metric: 'm', value: 1 }])
    expect(parseLine('m:1|c|@0.5|c:abc').samples).toEqual([{ metric: 'm', value: 2 }])
    expect(parseLine('m:1|c|c:abc|@0.5').samples).toEqual([{ metric: 'm', value: 2 }])
    expect(parseLine('m:3|ms|card:low|c:abc').samples).toEqual([{ metric: 'm', value: 3, kind: 'distribution', weight: 1 }])
    expect(parseLine('m:1|c|c:abc|#k:v|@0.25').samples).toEqual([{ metric: 'm;k=v', value: 4 }])
    expect(parseLine('m:1|c:2|c|c:abc').samples).toEqual([{ metric: 'm', value: 1 }, { metric: 'm', value: 2 }])
    // packed values are not fields: `|c:2` right after a value is its type and the next value
    expect(parseLine('m:1|c:2|c').samples).toEqual([{ metric: 'm', value: 1 }, { metric: 'm', value: 2 }])
    for (const line of ['m:1|c|c:abc|@0.5|#k:v|@0.5', 'm:1|c|@0.5|c:abc|@0.5']) expect(reasons(parseLine(line)), line).toEqual(['bad_sample_rate'])
    // any other field after the type is still a bad rate, as before
    expect(reasons(parseLine('m:1|c|zz'))).toEqual(['bad_sample_rate'])
    // a line of 2 MiB of | after its tags is refused after a few fields, not split 2 million times
    const pipes = parseLine(`m:1|c|#k:v${'|'.repeat(2 ** 21)}`)
    expect([pipes.samples, reasons(pipes)]).toEqual([[], ['malformed']])
    const fields = parseLine(`m:1|c|c:x${'|c:x'.repeat(2 ** 19)}`)
    expect([fields.samples, reasons(fields)]).toEqual([[], ['malformed']])
  })

  it('Graphite-tagged names keep their tags as sent (a / in a value too), merged with DogStatsD tags', () => {
    expect(parseLine('web.requests;status=500;route=/login:1|c').samples).toEqual([{ metric: 'web.requests;route=/login;status=500', value: 1 }])
    expect(parseLine('lat;route=/a:12|ms|#region:eu').samples).toEqual([{ metric: 'lat;region=eu;route=/a', value: 12, kind: 'distribution', weight: 1 }])
    expect(parseLine('q;pool=x:7|g').samples).toEqual([{ metric: 'q;pool=x', value: 7, kind: 'gauge' }])
  })

  it('tags that break the rules lose the line\'s values, each counted as bad_tags with the rule', () => {
    const cases = [
      ['req:1|c:2|c|#env:prod,env:dev', /given twice/],
      ['req:1|c|#name:x', /reserved/],
      ['req:1|c|#__proto__:x', /reserved/],
      ['req:1|c|#k:a;b', /without ; or =/],
      ['req:1|c|#k:a=b', /without ; or =/],
      ['req:1|c|#k:~x', /not starting with ~/],
      ['req:1|c|#k:', /empty value/],
      ['req:1|c|#bad key:x', /not a tag key/],
      [`req:1|c|#${Array.from({ length: 17 }, (_, i) => `k${i}:v`).join(',')}`, /at most 16/],
      [`req:1|c|#k:${'v'.repeat(129)}`, /longer than 128/],
      [`req:1|c|#${'k:v,'.repeat(100_000)}`, /longer than 16 tags/],
      ['req;route:1|c', /is not a tag/],
      ['req;=x:1|c', /is not a tag/]
    ]
    for (const [line, message] of cases) {
      const r = parseLine(line)
      expect(r.samples, line.slice(0, 60)).toEqual([])
      expect(r.problems.length).toBe(r.values)
      for (const p of r.problems) {
        expect(p.reason).toBe('bad_tags')
        expect(p.message).toMatch(message)
      }
    }
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
    expect(reasons(parseLine('a:0|c|@1e-300'))).toEqual(['bad_sample_rate']) // a weight of 1e300, whatever the value
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
    expect(reasons(parseLine(`${'a'.repeat(200)}:1|ms`))).toEqual([]) // the name itself: no .count or .sum suffix any more
    expect(reasons(parseLine(`${'a'.repeat(201)}:1|ms`))).toEqual(['invalid_name'])
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

  it('a packed line of valid values gives the counter totals and the distribution values of the model', () => {
    fc.assert(fc.property(name, fc.array(valueOf, { minLength: 1, maxLength: 6 }), fc.boolean(), (metric, vals, tagged) => {
      const line = `${metric}:${vals.map(format).join(':')}${tagged ? '|#a:b' : ''}`
      const r = parseLine(line)
      expect(r.problems).toEqual([])
      expect(r.values).toBe(vals.length)
      expect(r.kept).toBe(vals.length)
      expect(r.samples).toHaveLength(vals.length)
      // value by value, in order: a counter's value / rate, or a distribution's value weighted 1 / rate
      vals.forEach(({ type, value, rate = 1 }, i) => {
        const s = r.samples[i]
        const series = tagged ? `${metric};a=b` : metric
        expect(s.metric).toBe(series)
        if (type === 'c') {
          expect(s).toEqual({ metric: series, value: s.value })
          expect(s.value).toBeCloseTo(value / rate, 6)
        } else {
          expect(s).toEqual({ metric: series, value, kind: 'distribution', weight: 1 / rate })
        }
      })
    }))
  })
})
