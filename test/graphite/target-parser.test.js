import { describe, expect, it } from 'vitest'
import { parseTarget } from '../../src/graphite/target-parser.js'

const path = p => ({ type: 'path', path: p })
const num = (value, isInteger) => ({ type: 'number', value, isInteger })
const str = value => ({ type: 'string', value })
// raw: the call's text as written (seriesByTag's path expression), checked on its own below
const call = (name, args, kwargs = {}) => ({ type: 'call', name, args, kwargs, raw: expect.any(String) })

describe('parseTarget', () => {
  it('reads paths with globs whole', () => {
    expect(parseTarget('app.*.requests')).toEqual(path('app.*.requests'))
    expect(parseTarget('app.{web,api}.x[0-9]')).toEqual(path('app.{web,api}.x[0-9]'))
    expect(parseTarget('a-b.c:d_e')).toEqual(path('a-b.c:d_e'))
  })

  it('reads nested calls with numbers, strings and booleans', () => {
    expect(parseTarget('alias(sumSeries(a.*, b.{x,y}), "total")')).toEqual(
      call('alias', [call('sumSeries', [path('a.*'), path('b.{x,y}')]), str('total')]))
    expect(parseTarget("summarize(a.b,'1h','sum',true)")).toEqual(
      call('summarize', [path('a.b'), str('1h'), str('sum'), { type: 'boolean', value: true }]))
    expect(parseTarget('scale(a,-1.5e2)')).toEqual(call('scale', [path('a'), num(-150, false)]))
    expect(parseTarget('constantLine(100)')).toEqual(call('constantLine', [num(100, true)]))
    expect(parseTarget('aliasByNode(a.b.c, 0, -1)')).toEqual(call('aliasByNode', [path('a.b.c'), num(0, true), num(-1, true)]))
  })

  it('keeps each call\'s text as written, from its name to its )', () => {
    const node = parseTarget("groupByTags(seriesByTag('name=a',  \"k=~v.*\"),'sum','k')")
    expect(node.raw).toBe("groupByTags(seriesByTag('name=a',  \"k=~v.*\"),'sum','k')")
    expect(node.args[0].raw).toBe("seriesByTag('name=a',  \"k=~v.*\")")
  })

  it('reads keyword arguments after positional ones', () => {
    expect(parseTarget('movingAverage(a.b, windowSize=5)')).toEqual(call('movingAverage', [path('a.b')], { windowSize: num(5, true) }))
    expect(() => parseTarget('movingAverage(windowSize=5, a.b)')).toThrow(/positional argument after a keyword/)
  })

  it('keeps a path that starts with digits a path', () => {
    expect(parseTarget('1abc.x')).toEqual(path('1abc.x'))
  })

  it('names the position of a syntax error', () => {
    expect(() => parseTarget('sumSeries(a.b')).toThrow(/character 14: sumSeries\( is never closed/)
    expect(() => parseTarget('sumSeries(a.b,)')).toThrow(/character 15: expected a path/)
    expect(() => parseTarget('alias(a, "x)')).toThrow(/string that is never closed/)
    expect(() => parseTarget('a.b)')).toThrow(/unexpected "\)"/)
    expect(() => parseTarget('a.{b,c')).toThrow(/\{ that is never closed/)
    expect(() => parseTarget('')).toThrow(/empty target/)
  })

  it('refuses calls nested too deep instead of overflowing the stack', () => {
    const nested = n => 'scale('.repeat(n) + 'a' + ',1)'.repeat(n)
    expect(parseTarget(nested(64)).type).toBe('call')
    expect(() => parseTarget(nested(65))).toThrow(/nested deeper than 64/)
    expect(() => parseTarget(nested(100_000))).toThrow(/nested deeper than 64/)
  })
})
