// The Graphite API Grafana's Graphite data source speaks: /render (json),
// /metrics/find, /metrics/expand, /functions, /version, and the tag API
// (/tags, /tags/<tag>, /tags/findSeries, /tags/autoComplete/*).
// READ_TOKENS guard every route. Times are instants (epoch seconds, relative
// offsets); absolute forms are read in tz (UTC by default), as graphite-web reads them.
import fp from 'fastify-plugin'
import { horizonsFor } from '../bucket/retention-horizons.js'
import { timeZone } from '../bucket/time-zone.js'
import { BadRequestError } from '../errors.js'
import { AtTimeError, parseAtTime } from '../graphite/attime.js'
import { checkFunctions, evaluate, UnknownFunctionError } from '../graphite/evaluator.js'
import { functionCatalog } from '../graphite/function-catalog.js'
import { TargetValueError } from '../graphite/functions.js'
import { GlobSyntaxError } from '../graphite/glob.js'
import { BudgetError, MADE_POINTS_PER_READ_POINT, MAX_TARGETS, MAX_TARGET_LENGTH, checkTargets, planRender } from '../graphite/budget.js'
import { GlobBudgetError } from '../registry/name-index.js'
import { MAX_SUB_MS, RegexBudgetError, UserRegexError, regexBudget } from '../graphite/regex.js'
import { createMetricSource } from '../graphite/metric-source.js'
import { completer, completerQuery, treeJson } from '../graphite/minute-window.js'
import { applyMaxDataPoints, datapoints, tagsOf } from '../graphite/series.js'
import { parseTarget, TargetSyntaxError } from '../graphite/target-parser.js'
import { autoCompleteTagsSchema, autoCompleteValuesSchema, expandSchema, findSchema, findSeriesSchema, functionsSchema, renderSchema, tagDetailsSchema, tagListSchema, versionSchema } from '../schemas/graphite.js'
import { AUTOCOMPLETE_LIMIT, TagQueryError, createTagDb, parseLimit } from '../graphite/tag-db.js'

export const GRAPHITE_VERSION = '1.1.10'
// counters are summed when several minutes become one point (docs/adr/0011-graphite-as-graphite-web-but-sum.md)
export const DEFAULT_CONSOLIDATION = 'sum'

/** query string and form body merged; every value a list */
function requestParams (request) {
  const params = new Map()
  const add = (key, value) => {
    const name = key.endsWith('[]') ? key.slice(0, -2) : key
    const list = params.get(name) ?? []
    for (const v of [value].flat()) if (typeof v === 'string') list.push(v)
    params.set(name, list)
  }
  for (const [k, v] of Object.entries(request.query ?? {})) add(k, v)
  if (request.body instanceof URLSearchParams) for (const [k, v] of request.body) add(k, v)
  return { all: name => params.get(name) ?? [], one: name => params.get(name)?.at(-1) }
}

/** A find or expand query is at most as long as a render target */
function checkQueryLength (query) {
  if (query.length > MAX_TARGET_LENGTH) throw new BadRequestError(`a query is at most ${MAX_TARGET_LENGTH} characters, got one of ${query.length}`)
}

function badInput (err) {
  if (err instanceof TargetSyntaxError || err instanceof TargetValueError || err instanceof AtTimeError || err instanceof UnknownFunctionError ||
    err instanceof GlobSyntaxError || err instanceof BudgetError || err instanceof GlobBudgetError || err instanceof UserRegexError || err instanceof RegexBudgetError || err instanceof TagQueryError) {
    return new BadRequestError(err.message)
  }
  return err
}

/** from/until/now as graphite-web reads them; absolute forms in tz (graphite-web's default: UTC) */
function timeRange (params, nowMs) {
  const tz = params.one('tz')
  // Z: UTC (graphite-web reads a zone pytz does not know in UTC; statbucket names it instead)
  const zone = tz && tz.toLowerCase() !== 'z' ? timeZone(tz) : undefined
  if (zone === null) throw new BadRequestError(`tz=${tz.slice(0, 64)}: not a time zone of the tz database (America/New_York, Europe/Berlin, UTC, …)`)
  const nowRaw = params.one('now')
  const now = nowRaw ? parseAtTime(nowRaw, Math.floor(nowMs / 1000), zone) : Math.floor(nowMs / 1000)
  const until = parseAtTime(params.one('until') ?? 'now', now, zone)
  const from = parseAtTime(params.one('from') ?? '-1d', now, zone)
  return { startTime: Math.min(from, until), endTime: Math.max(from, until) }
}

async function graphiteRoutes (app) {
  const { config, clock, registry, reader, nameIndex } = app
  const horizonsOf = horizonsFor(config)
  const source = createMetricSource({
    registry,
    names: nameIndex,
    reader,
    maxSeries: config.maxSeries,
    maxReadPoints: config.maxReadPoints,
    maxGlobMetrics: config.graphiteMaxGlobMetrics,
    maxPoints: config.maxPoints,
    horizons: metric => horizonsOf(metric, clock.now())
  })
  const tagDb = createTagDb({ tags: nameIndex.tags })
  const read = schema => ({ config: { access: 'read' }, schema })

  // form-encoded bodies, for this plugin's routes only (encapsulated)
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (request, body, done) => {
    done(null, new URLSearchParams(body))
  })

  async function render (request, reply) {
    const params = requestParams(request)
    const format = params.one('format') ?? 'json'
    if (format !== 'json') throw new BadRequestError(`format=${format}: statbucket renders format=json only`)
    const targets = params.all('target').filter(t => t.trim() !== '')
    let series = []
    // the request's budget, spent across its fetches and the merges again past maxDataPoints; a stat read shared by its leaves
    const spent = { series: 0, points: 0, buckets: 0, made: 0, reads: new Map() }
    try {
      checkTargets(targets)
      const nodes = targets.map(parseTarget)
      nodes.forEach(checkFunctions)
      const range = timeRange(params, clock.now())
      // the whole cost decided before any of it is spent (docs/adr/0024-graphite-read-budget.md)
      planRender(nodes, range, { maxPoints: config.maxPoints })
      const ctx = { ...range, defaultConsolidation: DEFAULT_CONSOLIDATION, fetch: source.fetch, fetchTagged: source.fetchTagged, tagDb, maxSeries: config.maxSeries, maxPoints: config.maxPoints, spent, maxMadePoints: MADE_POINTS_PER_READ_POINT * config.maxReadPoints, memo: new WeakMap(), subBudget: regexBudget(MAX_SUB_MS) }
      for (const node of nodes) series.push(...await evaluate(node, ctx))
    } catch (err) {
      throw badInput(err)
    }
    const rawMax = params.one('maxDataPoints')
    // a distribution's mean and percentiles merged again over each consolidated point's span, not averaged
    if (rawMax && /^[0-9]+$/.test(rawMax)) series = await source.regroup(applyMaxDataPoints(series, Number(rawMax)), { spent })
    const noNulls = params.all('noNullPoints').length > 0
    const out = []
    for (const s of series) {
      let points = datapoints(s)
      if (noNulls) {
        points = points.filter(([v]) => v !== null)
        if (!points.length) continue
      }
      out.push({ target: s.name, tags: tagsOf(s), datapoints: points })
    }
    reply.type('application/json')
    return out
  }

  app.get('/render', read(renderSchema), render)
  app.post('/render', read(renderSchema), render)

  async function find (request) {
    const params = requestParams(request)
    const query = params.one('query')
    if (!query) throw new BadRequestError('send query= a metric path or glob, e.g. query=app.*')
    checkQueryLength(query)
    const format = params.one('format') ?? 'treejson'
    if (format !== 'treejson' && format !== 'completer') throw new BadRequestError(`format=${format}: /metrics/find answers format=treejson or format=completer only`)
    try {
      if (format === 'completer') return { metrics: completer(source.findNodes(completerQuery(query))) }
      return treeJson(query, source.findNodes(query))
    } catch (err) {
      throw badInput(err)
    }
  }
  // Grafana's variable queries POST a form-encoded body
  app.get('/metrics/find', read(findSchema), find)
  app.post('/metrics/find', read(findSchema), find)

  async function expand (request) {
    const params = requestParams(request)
    const queries = params.all('query')
    if (!queries.length) throw new BadRequestError('send one or more query= metric paths or globs')
    if (queries.length > MAX_TARGETS) throw new BadRequestError(`send at most ${MAX_TARGETS} query= parameters, got ${queries.length}`)
    queries.forEach(checkQueryLength)
    const leavesOnly = params.one('leavesOnly') === '1'
    const byQuery = {}
    try {
      for (const query of queries) {
        const nodes = source.findNodes(query)
        byQuery[query] = nodes.filter(n => n.leaf || !leavesOnly).map(n => n.path).sort()
      }
    } catch (err) {
      throw badInput(err)
    }
    if (params.one('groupByExpr') === '1') return { results: byQuery }
    return { results: [...new Set(Object.values(byQuery).flat())].sort() }
  }
  app.get('/metrics/expand', read(expandSchema), expand)
  app.post('/metrics/expand', read(expandSchema), expand)

  app.get('/functions', read(functionsSchema), async () => functionCatalog())
  app.get('/version', read(versionSchema), async (request, reply) => reply.type('text/plain').send(GRAPHITE_VERSION))

  // the tag API (graphite/tags/views.py): a bad expression, filter or limit is a 400 naming it
  const tagQuery = handler => async (request, reply) => {
    try {
      return await handler(requestParams(request), request, reply)
    } catch (err) {
      throw badInput(err)
    }
  }
  // graphite-web takes expr[] too (Rails' and jQuery's form); at most MAX_EXPRESSIONS, refused before any is parsed (graphite/tag-db.js)
  const expressionsOf = params => params.all('expr')

  const findSeries = tagQuery(async params => {
    const exprs = expressionsOf(params)
    if (!exprs.length) throw new BadRequestError('no tag expressions specified: send expr=tag=value (repeatable)')
    return tagDb.findSeries(exprs, { maxSeries: config.maxSeries })
  })
  app.get('/tags/findSeries', read(findSeriesSchema), findSeries)
  app.post('/tags/findSeries', read(findSeriesSchema), findSeries)

  const autoCompleteTags = tagQuery(async params => tagDb.autoCompleteTags(expressionsOf(params), {
    tagPrefix: params.one('tagPrefix'),
    limit: parseLimit(params.one('limit'), AUTOCOMPLETE_LIMIT)
  }))
  app.get('/tags/autoComplete/tags', read(autoCompleteTagsSchema), autoCompleteTags)
  app.post('/tags/autoComplete/tags', read(autoCompleteTagsSchema), autoCompleteTags)

  const autoCompleteValues = tagQuery(async params => {
    const tag = params.one('tag')
    if (!tag) throw new BadRequestError('no tag specified: send tag=<tag> whose values to list')
    return tagDb.autoCompleteValues(expressionsOf(params), tag, {
      valuePrefix: params.one('valuePrefix'),
      limit: parseLimit(params.one('limit'), AUTOCOMPLETE_LIMIT)
    })
  })
  app.get('/tags/autoComplete/values', read(autoCompleteValuesSchema), autoCompleteValues)
  app.post('/tags/autoComplete/values', read(autoCompleteValuesSchema), autoCompleteValues)

  // graphite-web answers /tags and /tags/<tag> to GET only, from the query string
  app.get('/tags', read(tagListSchema), tagQuery(async params => tagDb.listTags({ filter: params.one('filter'), limit: parseLimit(params.one('limit')) })))
  app.get('/tags/:tag', read(tagDetailsSchema), tagQuery(async (params, request) => tagDb.getTag(request.params.tag, { filter: params.one('filter'), limit: parseLimit(params.one('limit')) })))
}

// Encapsulated inside: the form parser reaches these routes, not /v1/events.
export default fp(async app => { await app.register(graphiteRoutes) }, { name: 'graphite-api', dependencies: ['auth', 'registry', 'reader', 'collections'] })
