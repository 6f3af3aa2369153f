// The tags a series carries through the functions, as graphite-web 1.1.10's
// (render/functions.py, datalib.py TimeSeries): each function keeps the
// series' tags and adds its own (summarize, scale, …, values as strings), an
// aggregate keeps those its series share and adds aggregatedBy, an alias
// renames a series but not its tag `name`. Evaluated over stand-in series;
// test/graphite/render-oracle.test.js and tags-oracle.test.js compare the
// same against graphite-web itself.
import { describe, expect, it } from 'vitest'
import { evaluate } from '../../src/graphite/evaluator.js'
import { makeSeries, nameTags } from '../../src/graphite/series.js'
import { seriesTags } from '../../src/graphite/tag-db.js'
import { parseTarget } from '../../src/graphite/target-parser.js'

const PLAIN = ['app.web.requests', 'app.api.requests']
const TAGGED = ['P.req;dc=east;host=h1', 'P.req;dc=east;host=h2', 'Q.req;dc=west;host=h1']
const START = 1_741_593_600
const read = (names, pathExpression, ctx) => names.map(name => makeSeries({ name, start: ctx.startTime, end: ctx.endTime, step: 60, values: Array.from({ length: 60 }, (_, i) => i), consolidationFunc: 'sum', pathExpression }))
const ctx = {
  startTime: START,
  endTime: START + 3600,
  defaultConsolidation: 'sum',
  fetch: async (path, c) => read(PLAIN.filter(n => new RegExp(`^${path.replaceAll('.', '\\.').replaceAll('*', '[^.]*')}$`).test(n)), path, c),
  tagDb: { findSeries: async (expressions) => TAGGED.filter(s => expressions.every(e => { const [k, v] = e.split('='); return seriesTags(s)[k] === v })) },
  fetchTagged: async (names, raw, c) => read(names, raw, c).map(s => ({ ...s, tags: seriesTags(s.name) }))
}
const render = async target => (await evaluate(parseTarget(target), ctx)).map(s => ({ target: s.name, tags: s.tags }))
const h1 = "seriesByTag('name=P.req','host=h1')"

describe('tags through the functions, as graphite-web keeps them', () => {
  it("a plain series' tags are its name; a tagged one's its name's tags", async () => {
    expect(await render('app.web.requests')).toEqual([{ target: 'app.web.requests', tags: { name: 'app.web.requests' } }])
    expect(await render(h1)).toEqual([{ target: 'P.req;dc=east;host=h1', tags: { name: 'P.req', dc: 'east', host: 'h1' } }])
    expect(await render('constantLine(3)')).toEqual([{ target: '3.0', tags: { name: '3.0' } }])
  })

  it('an aggregate keeps the tags its series share, adds aggregatedBy, and is named where they share no name', async () => {
    expect(await render(`aliasByTags(sumSeries(${h1}),'host')`)).toEqual([{ target: 'h1', tags: { name: 'P.req', dc: 'east', host: 'h1', aggregatedBy: 'sum' } }])
    expect(await render("sumSeries(seriesByTag('name=P.req'))")).toEqual([{ target: "sumSeries(seriesByTag('name=P.req'))", tags: { name: 'P.req', dc: 'east', aggregatedBy: 'sum' } }])
    expect(await render("sum(seriesByTag('dc=east'),seriesByTag('dc=west'))")).toEqual([{ target: "sumSeries(seriesByTag('dc=east'),seriesByTag('dc=west'))", tags: { name: "sumSeries(seriesByTag('dc=east'),seriesByTag('dc=west'))", aggregatedBy: 'sum' } }])
    expect(await render('sumSeries(app.*.requests)')).toEqual([{ target: 'sumSeries(app.*.requests)', tags: { name: 'sumSeries(app.*.requests)', aggregatedBy: 'sum' } }])
    // groupByTags: the group's name parsed, as graphite-web's TagDB parses it
    expect(await render("groupByTags(seriesByTag('dc=east'),'max','dc')")).toEqual([{ target: 'P.req;dc=east', tags: { name: 'P.req', dc: 'east' } }])
  })

  it('each function adds its tag, a string; the aliases change the name only', async () => {
    const tagsOf = async target => (await render(target))[0].tags
    const base = { name: 'P.req', dc: 'east', host: 'h1' }
    expect(await tagsOf(`summarize(${h1},"10min")`)).toEqual({ ...base, summarize: '10min', summarizeFunction: 'sum' })
    expect(await tagsOf(`summarize(${h1},"1h","max",true)`)).toEqual({ ...base, summarize: '1h', summarizeFunction: 'max' })
    expect(await tagsOf(`scale(${h1},3)`)).toEqual({ ...base, scale: '3.0' })
    expect(await tagsOf(`scale(${h1},0.5)`)).toEqual({ ...base, scale: '0.5' })
    expect(await tagsOf(`movingAverage(${h1},5)`)).toEqual({ ...base, movingAverage: '5' })
    expect(await tagsOf(`movingAverage(${h1},"10min")`)).toEqual({ ...base, movingAverage: '10min' })
    expect(await tagsOf(`perSecond(${h1})`)).toEqual({ ...base, perSecond: '1' })
    expect(await tagsOf(`nonNegativeDerivative(${h1})`)).toEqual({ ...base, nonNegativeDerivative: '1' })
    expect(await tagsOf(`integral(${h1})`)).toEqual({ ...base, integral: '1' })
    expect(await tagsOf(`timeShift(${h1},"1d")`)).toEqual({ ...base, timeShift: '-1d' })
    expect(await tagsOf(`hitcount(${h1},"15min")`)).toEqual({ ...base, hitcount: '15min' })
    expect(await tagsOf(`consolidateBy(${h1},"max")`)).toEqual({ ...base, consolidateBy: 'max' })
    for (const alias of [`alias(${h1},"x")`, `aliasByNode(${h1},0)`, `aliasByTags(${h1},'dc')`, `aliasSub(${h1},"P","\\g<0>x")`]) expect(await tagsOf(alias), alias).toEqual(base)
    expect(await render(`aliasByTags(alias(summarize(scale(${h1},2),"1h"),"x"),'name','scale','summarize')`)).toEqual([{ target: 'P.req.2.0.1h', tags: { ...base, scale: '2.0', summarize: '1h', summarizeFunction: 'sum' } }])
    expect(await tagsOf('perSecond(alias(app.web.requests,"renamed"))')).toEqual({ name: 'app.web.requests', perSecond: '1' })
  })

  it('one evaluation, shared by two calls, keeps its own tags', async () => {
    // timeShift evaluates its argument again; the unshifted series is the memo's, untouched by the tag it adds
    const memo = new WeakMap()
    const node = parseTarget(`sumSeries(${h1},timeShift(${h1},"1h"))`)
    const [sum] = await evaluate(node, { ...ctx, memo })
    expect(sum.tags).toEqual({ name: 'P.req', dc: 'east', host: 'h1', aggregatedBy: 'sum' })
  })

  it("a name without tags is tagged as graphite-web's TimeSeries tags it", () => {
    expect(nameTags('a.b')).toEqual({ name: 'a.b' })
    expect(nameTags('a.b;x=1;y=2')).toEqual({ name: 'a.b', x: '1', y: '2' })
    expect(nameTags('~a;x=1')).toEqual({ name: 'a', x: '1' })
    expect(nameTags('sumSeries(a;x=1)')).toEqual({ name: 'sumSeries(a;x=1)' })
    for (const bad of ['a;x', 'a;=1', 'a;x=', 'a;x=~1', 'a;x!=1', '~']) expect(nameTags(bad), bad).toEqual({ name: bad })
    expect(Object.keys(nameTags('a;__proto__=1'))).toEqual(['__proto__', 'name'])
  })
})
