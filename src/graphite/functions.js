// The Graphite functions statbucket answers, with graphite-web 1.1.10's
// semantics (render/functions.py): values, nulls, alignment and names. Pure
// but for `ctx.evaluate`, which some functions call again over a shifted
// time range (timeShift, movingAverage), as graphite-web does.
//
// Each function: (ctx, args) → series list, where args reads the call's
// arguments by position or keyword (see evaluator.js).
import { parseOffsetSeconds } from './attime.js'
import { formatG, pyStr } from './python-format.js'
import { CONSOLIDATIONS, copySeries, makeSeries, pyMod, tagsOf, valuesOf, withTags } from './series.js'
import { parseTarget } from './target-parser.js'
import { MAX_NAME_LENGTH, MAX_WINDOW_WORK } from './budget.js'
import { MAX_SUB_INSTRUCTIONS, MAX_SUB_MS, TemplateError, compileUserRegex, parsePythonTemplate, pythonSub, regexBudget } from './regex.js'
import { TargetValueError, aggregateSeries, aggregation, safeSum } from './aggregations.js'
import { groupByTags, seriesByTag } from './tag-functions.js'
import { quoted } from '../errors.js'

export { TargetValueError }

/** An interval argument in seconds; a bad one is a 400 naming the function and the argument */
function intervalSeconds (text, fn, argument) {
  try {
    return parseOffsetSeconds(text)
  } catch (err) {
    throw new TargetValueError(`${fn}: argument ${argument} ${JSON.stringify(text)} is not an interval such as "5min", "1h" or "1d" (${err.message})`)
  }
}

function formatPathExpressions (seriesList) {
  const seen = []
  for (const s of seriesList) if (!seen.includes(s.pathExpression)) seen.push(s.pathExpression)
  return seen.join(',')
}

function sumSeries (ctx, args) {
  const seriesList = args.rest(0, 'seriesList').flat()
  if (!seriesList.length) return []
  const name = `sumSeries(${formatPathExpressions(seriesList)})`
  return [aggregateSeries(seriesList, safeSum, { name, consolidationFunc: ctx.defaultConsolidation, aggregatedBy: 'sum' })]
}

function constantLine (ctx, args) {
  // graphite-web reads the value as a float: constantLine(100) is named "100.0"
  const { value } = args.numberNode(0, 'value')
  const isInteger = false
  const start = ctx.startTime
  const end = ctx.endTime
  const step = Math.trunc((end - start) / 2)
  const series = makeSeries({ name: pyStr(value, isInteger), start, end, step, values: [value, value, value], consolidationFunc: ctx.defaultConsolidation })
  series.pathExpression = `constantLine(${pyStr(value, isInteger)})`
  return [series]
}

function alias (ctx, args) {
  const newName = args.string(1, 'newName')
  // a new name, the same tags: its tag `name` stays (graphite-web)
  return args.seriesList(0).map(s => ({ ...s, name: newName, tags: tagsOf(s) }))
}

/** The first metric path in a name such as sumSeries(a.b.*) (functions.py _getFirstPathExpression) */
function firstPathExpression (name) {
  let node
  try {
    node = parseTarget(name)
  } catch {
    return null
  }
  while (node && node.type === 'call') node = node.args[0]
  return node?.type === 'path' ? node.path : null
}

/**
 * aliasByNode and aliasByTags (functions.py getNodeOrTag): a whole number is
 * a node of the name (before its tags), a string a tag of the series ('' where
 * neither is there), joined with dots.
 */
function aliasByNode (ctx, args) {
  const nodes = args.rest(1, 'nodeOrTag')
  if (!nodes.length) throw new TargetValueError('aliasByNode and aliasByTags need at least one node number or tag')
  return args.seriesList(0).map(series => {
    const path = series.name.endsWith(')') ? (firstPathExpression(series.name) ?? series.name) : series.name
    const parts = path.split(';')[0].split('.')
    const tags = tagsOf(series)
    const picked = nodes.map(n => (typeof n === 'number' ? parts[n < 0 ? parts.length + n : n] : undefined) ??
      (Object.hasOwn(tags, String(n)) ? tags[String(n)] : ''))
    return { ...series, name: picked.join('.'), tags }
  })
}

/**
 * aliasSub(seriesList, search, replace): each name as Python's re.sub(search,
 * replace, name) makes it (regex.js parsePythonTemplate: \1, \g<0>, \g<name>,
 * \n, a literal $); the tags stay. The search is bounded in size
 * (MAX_SUB_INSTRUCTIONS) and its substitutions in time, over the whole
 * request (ctx.subBudget, MAX_SUB_MS): past either, a 400.
 */
function aliasSub (ctx, args) {
  const search = args.string(1, 'search')
  const replace = args.string(2, 'replace')
  let re
  let template
  try {
    re = compileUserRegex(search, 'aliasSub: search', { maxInstructions: MAX_SUB_INSTRUCTIONS })
    template = parsePythonTemplate(replace, { groupCount: re.groupCount(), namedGroups: re.namedGroups() })
  } catch (err) {
    const message = err instanceof TemplateError ? `aliasSub: the replacement ${JSON.stringify(replace)} is not one Python's re.sub takes: ${err.message}` : err.message
    throw new TargetValueError(message)
  }
  const budget = ctx.subBudget ?? regexBudget(MAX_SUB_MS)
  const sub = budget.box(text => pythonSub(re, text, template, { maxLength: MAX_NAME_LENGTH }), `aliasSub (${quoted(search, 100)})`, 'use a simpler search, or rename fewer series')
  return args.seriesList(0).map(s => {
    const { text: name, length } = sub(s.name)
    if (name === null) throw new TargetValueError(`aliasSub: the new name is ${length} characters, more than ${MAX_NAME_LENGTH}; use a shorter replacement`)
    return { ...s, name, tags: tagsOf(s) }
  })
}

function scale (ctx, args) {
  const factor = args.number(1, 'factor')
  // graphite-web takes the factor as a float: its tag is str(float(factor)), 3 → "3.0"
  const tags = { scale: pyStr(factor, false) }
  return args.seriesList(0).map(series => {
    const name = `scale(${series.name},${formatG(factor)})`
    return { ...series, name, pathExpression: name, tags: withTags(series, tags), values: valuesOf(series).map(v => v === null ? null : v * factor), valuesPerPoint: 1 }
  })
}

function consolidateBy (ctx, args) {
  const func = args.string(1, 'consolidationFunc')
  if (!Object.hasOwn(CONSOLIDATIONS, func)) throw new TargetValueError(`consolidateBy: ${JSON.stringify(func)} is not one of ${Object.keys(CONSOLIDATIONS).join(', ')}`)
  return args.seriesList(0).map(s => {
    const name = `consolidateBy(${s.name},"${func}")`
    // the function asked consolidates the points as they are, a stat leaf's too (docs/adr/0040-graphite-stat-leaves.md)
    return { ...s, consolidationFunc: func, name, pathExpression: name, tags: withTags(s, { consolidateBy: func }), regroup: undefined }
  })
}

function integral (ctx, args) {
  return args.seriesList(0).map(series => {
    let current = 0
    const values = valuesOf(series).map(v => v === null ? null : (current += v))
    return copySeries(series, { name: `integral(${series.name})`, tags: withTags(series, { integral: 1 }), values })
  })
}

/** functions.py _nonNegativeDelta → [delta, prev] */
function nonNegativeDelta (val, prev, maxValue, minValue) {
  if (maxValue !== null && val !== null && val > maxValue) return [null, null]
  if (minValue !== null && val !== null && val < minValue) return [null, null]
  if (prev === null || val === null) return [null, val]
  if (val >= prev) return [val - prev, val]
  if (maxValue !== null) return [maxValue + 1 + val - prev - (minValue ?? 0), val]
  if (minValue !== null) return [val - minValue, val]
  return [null, val]
}

function derivative (name, perStep) {
  return (ctx, args) => {
    const maxValue = args.optionalNumber(1, 'maxValue')
    const minValue = args.optionalNumber(2, 'minValue')
    return args.seriesList(0).map(series => {
      let prev = null
      const values = valuesOf(series).map(val => {
        const [delta, next] = nonNegativeDelta(val, prev, maxValue, minValue)
        prev = next
        if (delta === null || !perStep) return delta
        // Python's round(x, 6): the correctly rounded decimal (toFixed rounds the exact
        // binary value; a tie cannot occur at 6 decimals), not x * 1e6 rounded
        const perSecond = delta / series.step
        return Math.abs(perSecond) < 1e21 ? Number(perSecond.toFixed(6)) : perSecond
      })
      return copySeries(series, { name: `${name}(${series.name})`, tags: withTags(series, { [name]: 1 }), values })
    })
  }
}

async function timeShift (ctx, args) {
  let shift = args.string(1, 'timeShift')
  const resetEnd = args.optionalBoolean(2, 'resetEnd', true)
  if (args.optionalBoolean(3, 'alignDST', false)) throw new TargetValueError('timeShift: alignDST is a local-time option; statbucket answers UTC instants, leave it out')
  const seriesList = args.seriesList(0)
  if (/^[0-9]/.test(shift)) shift = '-' + shift
  const delta = intervalSeconds(shift, 'timeShift', 'timeShift')
  if (!seriesList.length) return []
  const first = seriesList[0]
  const shifted = await ctx.evaluate(args.node(0), { ...ctx, startTime: ctx.startTime + delta, endTime: ctx.endTime + delta })
  return shifted.map(s => ({
    ...s,
    name: `timeShift(${s.name}, "${shift}")`,
    tags: withTags(s, { timeShift: shift }),
    start: first.start,
    end: resetEnd ? first.end : s.end - s.start + first.start
  }))
}

async function movingAverage (ctx, args) {
  const windowNode = args.node(1, 'windowSize')
  const seriesList = args.seriesList(0)
  if (!seriesList.length) return []
  const xFilesFactor = args.optionalNumber(2, 'xFilesFactor') ?? 0
  let previewSeconds
  const isInterval = windowNode?.type === 'string'
  if (isInterval) previewSeconds = Math.abs(intervalSeconds(windowNode.value, 'movingAverage', 'windowSize'))
  else if (windowNode?.type === 'number' && Number.isInteger(windowNode.value) && windowNode.value >= 0) previewSeconds = Math.max(...seriesList.map(s => s.step)) * windowNode.value
  else throw new TargetValueError('movingAverage: windowSize must be a whole number of points or a quoted interval such as "5min"')
  // the window as graphite-web writes it in the name and the tag: the interval, or str() of the number (5, 5.0)
  const windowText = isInterval ? windowNode.value : pyStr(windowNode.value, windowNode.isInteger)
  const preview = await ctx.evaluate(args.node(0), { ...ctx, startTime: ctx.startTime - previewSeconds })
  return preview.map(series => {
    const windowPoints = isInterval ? Math.floor(previewSeconds / series.step) : windowNode.value
    const name = isInterval ? `movingAverage(${series.name},"${windowText}")` : `movingAverage(${series.name},${windowText})`
    const all = valuesOf(series)
    if (windowPoints * all.length > MAX_WINDOW_WORK) {
      throw new TargetValueError(`movingAverage: a window of ${windowPoints} points over ${all.length} points is more work than one request may do (${MAX_WINDOW_WORK} point visits); use a shorter window or range`)
    }
    const values = []
    for (let i = windowPoints + 1; i <= all.length; i++) {
      // the same sum of the non-null values, in the same order, as graphite-web's sum(nonNull) / len(nonNull)
      let sum = 0
      let count = 0
      for (let j = Math.max(0, i - windowPoints); j < i; j++) if (all[j] !== null) { sum += all[j]; count++ }
      values.push(count && windowPoints > 0 && count / windowPoints >= xFilesFactor ? sum / count : null)
    }
    return copySeries(series, { name, start: series.start + previewSeconds, tags: withTags(series, { movingAverage: windowText }), values })
  })
}

/** functions.py _summarizeValues */
function summarizeValues (series, aggregate, interval, newStart, newEnd) {
  const values = valuesOf(series)
  const timestamps = []
  for (let t = series.start; t < series.end; t += series.step) timestamps.push(t)
  const numPoints = Math.min(timestamps.length, values.length)
  const intervalPoints = interval / series.step
  const out = []
  let i = 0
  let t = newStart
  while (t < newEnd) {
    let s = i
    let count = 0
    while (i < numPoints && timestamps[i] < t + interval) {
      if (timestamps[i] <= t) s = i
      if (timestamps[i] >= t && values[i] !== null) count++
      i++
    }
    out.push(count && intervalPoints ? aggregate(values.slice(s, i)) : null)
    t += interval
  }
  return [out, t]
}

/** An interval's points, refused before anything is allocated when over MAX_POINTS */
function checkPoints (fn, intervalString, points, maxPoints) {
  if (maxPoints !== undefined && !(points <= maxPoints)) {
    throw new TargetValueError(`${fn}: the interval ${JSON.stringify(intervalString)} makes ${Math.ceil(points)} points per series, more than MAX_POINTS = ${maxPoints}; use a longer interval or a shorter range`)
  }
}

function summarize (ctx, args) {
  const intervalString = args.string(1, 'intervalString')
  const func = args.optionalString(2, 'func', 'sum')
  const alignToFrom = args.optionalBoolean(3, 'alignToFrom', false)
  const interval = intervalSeconds(intervalString, 'summarize', 'intervalString')
  if (interval <= 0) throw new TargetValueError(`summarize: interval ${JSON.stringify(intervalString)} must be positive`)
  const aggregate = aggregation(func)
  return args.seriesList(0).map(series => {
    let newStart = series.start - pyMod(series.start, interval)
    let newEnd = series.end - pyMod(series.end, interval) + interval
    if (alignToFrom) { newStart = series.start; newEnd = series.end }
    checkPoints('summarize', intervalString, (newEnd - newStart) / interval + 1, ctx.maxPoints)
    const [values, alignedEnd] = summarizeValues(series, aggregate, interval, newStart, newEnd)
    if (alignToFrom) newEnd = alignedEnd
    const name = `summarize(${series.name}, "${intervalString}", "${func}"${alignToFrom ? ', true' : ''})`
    return copySeries(series, { name, start: newStart, end: newEnd, step: interval, tags: withTags(series, { summarize: intervalString, summarizeFunction: func }), values })
  })
}

function hitcount (ctx, args) {
  const intervalString = args.string(1, 'intervalString')
  if (args.optionalBoolean(2, 'alignToInterval', false)) throw new TargetValueError('hitcount: alignToInterval is not supported; leave it out')
  const interval = intervalSeconds(intervalString, 'hitcount', 'intervalString')
  if (interval <= 0) throw new TargetValueError(`hitcount: interval ${JSON.stringify(intervalString)} must be positive`)
  return args.seriesList(0).map(series => {
    const step = series.step
    const bucketCount = Math.ceil((series.end - series.start) / interval)
    checkPoints('hitcount', intervalString, bucketCount, ctx.maxPoints)
    const buckets = Array.from({ length: bucketCount }, () => [])
    const newStart = series.end - bucketCount * interval
    valuesOf(series).forEach((value, i) => {
      if (value === null) return
      const startTime = series.start + i * step
      const startBucket = Math.floor((startTime - newStart) / interval)
      const startMod = pyMod(startTime - newStart, interval)
      const endTime = startTime + step
      let endBucket = Math.floor((endTime - newStart) / interval)
      let endMod = pyMod(endTime - newStart, interval)
      if (endBucket >= bucketCount) { endBucket = bucketCount - 1; endMod = interval }
      // wholly before the first bucket or after the last (graphite-web raises IndexError there)
      if (endBucket < 0 || startBucket >= bucketCount) return
      if (startBucket === endBucket) {
        if (startBucket >= 0) buckets[startBucket].push(value * (endMod - startMod))
      } else {
        if (startBucket >= 0) buckets[startBucket].push(value * (interval - startMod))
        for (let j = Math.max(0, startBucket + 1); j < endBucket; j++) buckets[j].push(value * interval)
        if (endMod > 0) buckets[endBucket].push(value * endMod)
      }
    })
    const values = buckets.map(b => b.length ? b.reduce((a, c) => a + c, 0) : null)
    return copySeries(series, { name: `hitcount(${series.name}, "${intervalString}")`, start: newStart, step: interval, tags: withTags(series, { hitcount: intervalString }), values })
  })
}

/** name → implementation; graphite-web's short alias `sum` included */
export const FUNCTIONS = {
  constantLine,
  alias,
  aliasByNode,
  // graphite-web's aliasByTags is aliasByNode
  aliasByTags: aliasByNode,
  aliasSub,
  groupByTags,
  seriesByTag,
  sumSeries,
  sum: sumSeries,
  summarize,
  consolidateBy,
  integral,
  perSecond: derivative('perSecond', true),
  nonNegativeDerivative: derivative('nonNegativeDerivative', false),
  movingAverage,
  timeShift,
  scale,
  hitcount
}
