// Evaluates a parsed target into a series list (graphite-web render/evaluator.py).
// ctx: { startTime, endTime (epoch s), defaultConsolidation, fetch(pathExpression, ctx) → series[],
//        spent and maxMadePoints (the request's budget: what fetch reads it marks read, ./budget.js), memo }
import { FUNCTIONS, TargetValueError } from './functions.js'
import { chargeMadePoints } from './budget.js'

export class UnknownFunctionError extends Error {
  constructor (name) {
    super(`unsupported function ${JSON.stringify(name)}; supported: ${Object.keys(FUNCTIONS).join(', ')}`)
    this.name = 'UnknownFunctionError'
    this.function = name
  }
}

/** The function names a target calls, outermost first */
export function functionNames (node, out = []) {
  if (node.type === 'call') {
    out.push(node.name)
    for (const arg of [...node.args, ...Object.values(node.kwargs)]) functionNames(arg, out)
  }
  return out
}

/** Refuses a target that calls a function statbucket does not have, naming it */
export function checkFunctions (node) {
  for (const name of functionNames(node)) if (!Object.hasOwn(FUNCTIONS, name)) throw new UnknownFunctionError(name)
}

/**
 * Evaluates `node` over ctx's window. ctx.memo (a WeakMap, one per request)
 * keeps each (node, window) evaluation, so a node that two calls need over
 * the same window (timeShift's argument, unshifted and shifted) is
 * evaluated once; ./budget.js bounds how many distinct pairs a request has.
 */
export function evaluate (node, ctx) {
  if (!ctx.memo) return evaluateOnce(node, { ...ctx, memo: new WeakMap() })
  let windows = ctx.memo.get(node)
  if (!windows) ctx.memo.set(node, (windows = new Map()))
  const key = `${ctx.startTime}:${ctx.endTime}`
  let result = windows.get(key)
  if (!result) windows.set(key, (result = evaluateOnce(node, ctx)))
  return result
}

async function evaluateOnce (node, ctx) {
  const context = { ...ctx, evaluate }
  if (node.type === 'path') return context.fetch(node.path, context)
  if (node.type === 'call') {
    const fn = Object.hasOwn(FUNCTIONS, node.name) ? FUNCTIONS[node.name] : null
    if (!fn) throw new UnknownFunctionError(node.name)
    const values = await Promise.all(node.args.map(a => valueOf(a, context)))
    const kwValues = Object.create(null)
    for (const [k, a] of Object.entries(node.kwargs)) kwValues[k] = await valueOf(a, context)
    const answer = await fn(context, argumentReader(node, values, kwValues))
    // what it made is held until the request ends (ctx.memo): counted against the request's budget
    if (ctx.spent && ctx.maxMadePoints !== undefined) chargeMadePoints(ctx.spent, ctx.maxMadePoints, answer)
    return answer
  }
  throw new TargetValueError(`a ${node.type} where a series is needed`)
}

async function valueOf (node, ctx) {
  if (node.type === 'path' || node.type === 'call') return evaluate(node, ctx)
  return node
}

const describe = v => Array.isArray(v) ? 'a series list' : v === undefined ? 'nothing' : `a ${v.type}`

function argumentReader (call, values, kwValues) {
  const fn = call.name
  const get = (i, name) => (name && Object.hasOwn(kwValues, name)) ? kwValues[name] : values[i]
  const nodeAt = (i, name) => (name && Object.hasOwn(call.kwargs, name)) ? call.kwargs[name] : call.args[i]
  const fail = (i, name, expected, got) => { throw new TargetValueError(`${fn}: argument ${i + 1}${name ? ` (${name})` : ''} must be ${expected}, got ${describe(got)}`) }
  const literal = (type, i, name, optional, fallback) => {
    const v = get(i, name)
    if (v === undefined && optional) return fallback
    if (!v || Array.isArray(v) || v.type !== type) fail(i, name, `a ${type}`, v)
    return v.value
  }
  return {
    /** the call's text as written (graphite-web's call.raw) */
    raw: call.raw,
    node: nodeAt,
    seriesList (i, name = 'seriesList') {
      const v = get(i, name)
      if (!Array.isArray(v)) fail(i, name, 'a series list', v)
      return v
    },
    /** every positional argument from i on, each of a type: 'seriesList', 'string', 'nodeOrTag' (a whole number or a string) or a whole number */
    rest (i, type) {
      return values.slice(i).map((v, k) => {
        if (type === 'seriesList') { if (!Array.isArray(v)) fail(i + k, null, 'a series list', v); return v }
        if (type === 'string') { if (!v || Array.isArray(v) || v.type !== 'string') fail(i + k, null, 'a string', v); return v.value }
        // a node number, or a tag's name (functions.py getNodeOrTag)
        if (type === 'nodeOrTag' && v?.type === 'string') return v.value
        if (!v || Array.isArray(v) || v.type !== 'number' || !Number.isInteger(v.value)) fail(i + k, null, 'a whole number', v)
        return v.value
      })
    },
    number: (i, name) => literal('number', i, name, false),
    numberNode (i, name) { const v = get(i, name); if (!v || v.type !== 'number') fail(i, name, 'a number', v); return v },
    optionalNumber: (i, name) => literal('number', i, name, true, null),
    string: (i, name) => literal('string', i, name, false),
    optionalString: (i, name, fallback) => literal('string', i, name, true, fallback),
    optionalBoolean: (i, name, fallback) => literal('boolean', i, name, true, fallback)
  }
}
