// What a Graphite read may cost, decided before any of it is done
// (docs/adr/0024-graphite-read-budget.md). Pure.
//
// A render request's targets are walked once with the time windows each
// call evaluates its arguments over (timeShift shifts them, movingAverage
// reaches back), as the evaluator will: every distinct (node, window) is one
// evaluation, and there may be at most MAX_EVALUATIONS of them, so nesting
// cannot multiply the work (the evaluator memoises the same pairs, so each
// is evaluated once). summarize's and hitcount's output points over the
// window are checked against MAX_POINTS here too. Over a limit: a
// BudgetError naming it, answered 400.
import { parseOffsetSeconds } from './attime.js'

export const MAX_TARGETS = 100
export const MAX_TARGET_LENGTH = 8192
export const MAX_EVALUATIONS = 256
export const MAX_NAME_LENGTH = 1024
// movingAverage's work: window points × points, summed without allocation
export const MAX_WINDOW_WORK = 10_000_000

/** The points a request's functions may make, in new series, over all its evaluations: this many times MAX_READ_POINTS */
export const MADE_POINTS_PER_READ_POINT = 4

/**
 * Charges the points a function's answer made to the request's `spent.made`:
 * those of series whose values were neither read (markRead) nor charged
 * already — an alias passes them on, timeShift answers its own read of the
 * shifted window; past `maxMade`, a BudgetError. Every evaluation's answer is
 * kept until the request ends (the evaluator's memo): 63 nested scale()s over
 * 1.9 million points held 1 GB.
 */
export function chargeMadePoints (spent, maxMade, answer) {
  const known = (spent.known ??= new WeakSet())
  for (const s of answer) {
    if (!Array.isArray(s.values) || known.has(s.values)) continue
    known.add(s.values)
    spent.made += s.values.length
  }
  if (spent.made > maxMade) throw new BudgetError(`the functions of this request make more than ${maxMade} points in all (MAX_READ_POINTS × ${MADE_POINTS_PER_READ_POINT}); nest fewer functions, or shorten the range or the targets`)
}

/** Marks the values of series read from the database (a fetch's answer) as made by none of the functions */
export function markRead (spent, series) {
  const known = (spent.known ??= new WeakSet())
  for (const s of series) if (Array.isArray(s.values)) known.add(s.values)
  return series
}

export class BudgetError extends Error {
  constructor (message) {
    super(message)
    this.name = 'BudgetError'
  }
}

const seconds = text => {
  try {
    return parseOffsetSeconds(text)
  } catch {
    return null // the evaluation refuses it, naming the function
  }
}

const stringArg = (node, i, name) => {
  const arg = Object.hasOwn(node.kwargs, name) ? node.kwargs[name] : node.args[i]
  return arg?.type === 'string' ? arg.value : null
}

/** The window a call evaluates its first argument over again, besides its own (or null) */
function reachedWindow (node, start, end) {
  if (node.name === 'timeShift') {
    let shift = stringArg(node, 1, 'timeShift')
    if (shift === null) return null
    if (/^[0-9]/.test(shift)) shift = '-' + shift
    const delta = seconds(shift)
    return delta === null ? null : [start + delta, end + delta]
  }
  if (node.name === 'movingAverage') {
    const window = Object.hasOwn(node.kwargs, 'windowSize') ? node.kwargs.windowSize : node.args[1]
    if (window?.type === 'string') {
      const preview = seconds(window.value)
      return preview === null ? null : [start - Math.abs(preview), end]
    }
    // a count of points reaches back by the fetched step: counted as one more window
    if (window?.type === 'number') return [`points:${window.value}:${start}`, end]
  }
  return null
}

/** summarize / hitcount: the points an interval makes of [start, end), refused past maxPoints */
function checkIntervalPoints (node, start, end, maxPoints) {
  if (node.name !== 'summarize' && node.name !== 'hitcount') return
  const text = stringArg(node, 1, 'intervalString')
  const interval = text === null ? null : seconds(text)
  if (!(interval > 0) || typeof start !== 'number') return
  const points = Math.ceil((end - start) / interval) + 1
  if (points > maxPoints) {
    throw new BudgetError(`${node.name}: the interval ${JSON.stringify(text)} makes ${points > 1e12 ? 'over a trillion' : points} points per series over this range, more than MAX_POINTS = ${maxPoints}; use a longer interval or a shorter range`)
  }
}

/**
 * nodes: parsed targets (./target-parser.js); startTime/endTime: epoch s.
 * → the number of evaluations the targets need; throws BudgetError.
 */
export function planRender (nodes, { startTime, endTime }, { maxEvaluations = MAX_EVALUATIONS, maxPoints }) {
  const seen = new Map() // node → windows it is evaluated over
  let evaluations = 0
  const visit = (node, start, end) => {
    if (node?.type !== 'path' && node?.type !== 'call') return
    let windows = seen.get(node)
    if (!windows) seen.set(node, (windows = new Set()))
    const key = `${start}:${end}`
    if (windows.has(key)) return
    windows.add(key)
    if (++evaluations > maxEvaluations) {
      throw new BudgetError(`the targets need more than ${maxEvaluations} evaluations (nested timeShift or movingAverage multiply them); simplify them`)
    }
    if (node.type === 'path') return
    checkIntervalPoints(node, start, end, maxPoints)
    for (const arg of [...node.args, ...Object.values(node.kwargs)]) visit(arg, start, end)
    const reached = reachedWindow(node, start, end)
    if (reached) visit(node.args[0] ?? node.kwargs.seriesList, reached[0], reached[1])
  }
  for (const node of nodes) visit(node, startTime, endTime)
  return evaluations
}

/** The request's targets before parsing: how many, how long */
export function checkTargets (targets) {
  if (targets.length > MAX_TARGETS) throw new BudgetError(`a request holds at most ${MAX_TARGETS} targets, got ${targets.length}`)
  for (const t of targets) {
    if (t.length > MAX_TARGET_LENGTH) throw new BudgetError(`a target is at most ${MAX_TARGET_LENGTH} characters, got one of ${t.length}`)
  }
}
