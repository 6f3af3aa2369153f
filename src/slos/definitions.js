// SLO definitions in OpenSLO v1 (docs/slos.md#definitions): the YAML of
// SLO_FILE, several documents, each a `kind: SLO` with an inline ratio
// indicator over statbucket selectors, Occurrences budgeting, a calendar
// window in an IANA zone or a rolling one, and one objective's target.
// Whatever this version does not support is refused with its field named,
// never ignored. The text has a budget before it has a meaning: its bytes,
// its documents, its aliases. Pure (docs/adr/0064-calendar-slos.md).
import { isScalar, parseAllDocuments, visit } from 'yaml'
import { MAX_ABS_VALUE, isMetricName } from '../bucket/event-rules.js'
import { timeZone } from '../bucket/time-zone.js'
import { parseTagFilter, MAX_FILTERS } from '../tags/tag-filter.js'
import { isThreshold } from '../bucket/distribution-thresholds.js'
import { ZONE_FIELD, zoneOverflow } from './zone-declarations.js'
import { quoted } from '../errors.js'

export const MAX_SLO_FILE_BYTES = 256 * 1024
/** A stored SLO's body (PUT /v1/slos/:name): one document, a few KB */
export const MAX_SLO_BODY_BYTES = 32 * 1024
export const MAX_SLOS = 200
/** aliases a file may expand (a YAML bomb is thousands) */
const MAX_ALIASES = 64
const NAME_RE = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/
const CALENDAR_DURATIONS = ['1d', '1w', '1M', '1Q', '1y']
const ROLLING_DURATIONS = ['7d', '28d', '30d']
const DISPLAY_MAX = 200

/** A definition refused: `field` the path of what is wrong in its document */
export class SloDefinitionError extends Error {
  constructor (field, message, document = null) {
    super(`${document === null ? '' : `document ${document}, `}${field}: ${message}`)
    this.name = 'SloDefinitionError'
    this.field = field
  }
}

const isObject = v => v !== null && typeof v === 'object' && !Array.isArray(v)

function fieldsOf (value, path, allowed, required = []) {
  if (!isObject(value)) throw new SloDefinitionError(path, 'must be a mapping')
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) throw new SloDefinitionError(`${path}.${key}`, `is not supported (supported here: ${allowed.join(', ')})`)
  }
  for (const key of required) {
    if (value[key] === undefined || value[key] === null) throw new SloDefinitionError(`${path}.${key}`, 'is required')
  }
  return value
}

function text (value, path, max = DISPLAY_MAX) {
  if (typeof value !== 'string' || value.length > max) throw new SloDefinitionError(path, `must be a string of at most ${max} characters`)
  return value
}

const MAX_LABELS = 64

/**
 * OpenSLO's metadata.labels (a mapping of names to a string or a list of
 * strings) and annotations (to a string), checked: kept as given, so never
 * anything deeper (a nesting 30,000 deep overflowed the stack when stored)
 */
function labelsAndAnnotations (metadata, at) {
  for (const field of ['labels', 'annotations']) {
    const map = metadata[field]
    if (map === undefined) continue
    const path = `${at}.${field}`
    if (!isObject(map) || Object.keys(map).length > MAX_LABELS) throw new SloDefinitionError(path, `must be a mapping of at most ${MAX_LABELS} names to ${field === 'labels' ? 'a string or a list of strings' : 'a string'}`)
    for (const [key, value] of Object.entries(map)) {
      text(key, `${path} (a name)`)
      if (field === 'labels' && Array.isArray(value)) {
        if (value.length > MAX_LABELS) throw new SloDefinitionError(`${path}.${key}`, `must be a string or a list of at most ${MAX_LABELS} strings`)
        value.forEach((v, i) => text(v, `${path}.${key}[${i}]`))
      } else {
        text(value, `${path}.${key}`, 1050)
      }
    }
  }
}

/**
 * A metricSource → { metric, filters: [tag-filter.js filter], tags: [expressions], threshold? }
 * (threshold: a good selector's, its distribution's values ≤ it; null without)
 */
function selector (source, path) {
  fieldsOf(source, path, ['metricSource'], ['metricSource'])
  const at = `${path}.metricSource`
  fieldsOf(source.metricSource, at, ['type', 'spec', 'metricSourceRef'], ['type', 'spec'])
  if (source.metricSource.metricSourceRef !== undefined) throw new SloDefinitionError(`${at}.metricSourceRef`, 'is not supported: give type: statbucket and spec inline')
  if (source.metricSource.type !== 'statbucket') throw new SloDefinitionError(`${at}.type`, `must be statbucket, got ${JSON.stringify(source.metricSource.type)}`)
  const spec = fieldsOf(source.metricSource.spec, `${at}.spec`, ['metric', 'tags', 'threshold'], ['metric'])
  if (spec.threshold !== undefined && !path.endsWith('.good')) throw new SloDefinitionError(`${at}.spec.threshold`, 'belongs to good: the values at most it are the good events (total counts every value)')
  if (spec.threshold !== undefined && !isThreshold(spec.threshold)) throw new SloDefinitionError(`${at}.spec.threshold`, `must be a number above 0, at most ${MAX_ABS_VALUE} (a latency in the metric's unit), got ${JSON.stringify(spec.threshold)}`)
  if (!isMetricName(spec.metric)) throw new SloDefinitionError(`${at}.spec.metric`, `must be a metric name (${'A-Z a-z 0-9 _ . : -'}, up to 200, no tags: use tags), got ${JSON.stringify(spec.metric)}`)
  const tags = spec.tags ?? []
  if (!Array.isArray(tags) || tags.length > MAX_FILTERS) throw new SloDefinitionError(`${at}.spec.tags`, `must be a list of at most ${MAX_FILTERS} tag filters`)
  const filters = tags.map((expression, i) => {
    const parsed = parseTagFilter(expression)
    if (parsed.problem) throw new SloDefinitionError(`${at}.spec.tags[${i}]`, parsed.problem)
    return parsed
  })
  return { metric: spec.metric, tags: [...tags], filters, threshold: spec.threshold ?? null }
}

/** The ratio indicator → { good | bad, total } selectors */
function indicator (spec) {
  if (spec.indicatorRef !== undefined) throw new SloDefinitionError('spec.indicatorRef', 'is not supported: give the indicator inline (spec.indicator)')
  if (spec.indicator === undefined) throw new SloDefinitionError('spec.indicator', 'is required')
  const sli = fieldsOf(spec.indicator, 'spec.indicator', ['metadata', 'spec'], ['spec'])
  if (sli.metadata !== undefined) {
    const metadata = fieldsOf(sli.metadata, 'spec.indicator.metadata', ['name', 'displayName', 'labels', 'annotations'])
    for (const field of ['name', 'displayName']) if (metadata[field] !== undefined) text(metadata[field], `spec.indicator.metadata.${field}`)
    labelsAndAnnotations(metadata, 'spec.indicator.metadata')
  }
  const sliSpec = fieldsOf(sli.spec, 'spec.indicator.spec', ['ratioMetric', 'thresholdMetric', 'description'])
  if (sliSpec.thresholdMetric !== undefined) throw new SloDefinitionError('spec.indicator.spec.thresholdMetric', 'is not supported: use ratioMetric')
  if (sliSpec.ratioMetric === undefined) throw new SloDefinitionError('spec.indicator.spec.ratioMetric', 'is required')
  const at = 'spec.indicator.spec.ratioMetric'
  const ratio = fieldsOf(sliSpec.ratioMetric, at, ['counter', 'good', 'bad', 'total', 'rawType', 'raw'], ['total'])
  for (const raw of ['rawType', 'raw']) if (ratio[raw] !== undefined) throw new SloDefinitionError(`${at}.${raw}`, 'is not supported: give good or bad, and total')
  if (ratio.counter !== undefined && ratio.counter !== true) throw new SloDefinitionError(`${at}.counter`, 'must be true: the selectors count events')
  if ((ratio.good === undefined) === (ratio.bad === undefined)) throw new SloDefinitionError(`${at}.good`, 'give exactly one of good and bad')
  const which = ratio.good !== undefined ? 'good' : 'bad'
  return { [which]: selector(ratio[which], `${at}.${which}`), total: selector(ratio.total, `${at}.total`) }
}

/** calendar.startTime: a local midnight ("2026-01-01", "2026-01-01 00:00:00") → { year, month, day } */
function startDate (value, path) {
  const m = typeof value === 'string' && /^(\d{4})-(\d{2})-(\d{2})(?:[T ]00:00(?::00)?)?$/.exec(value)
  if (!m) throw new SloDefinitionError(path, `must be a local midnight, "YYYY-MM-DD" or "YYYY-MM-DD 00:00:00", got ${JSON.stringify(value)}`)
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])]
  // from 1971, as a period's label (periods.js); Date.UTC would take years 0–99 for 1900–1999
  if (year < 1971) throw new SloDefinitionError(path, `must be a date from 1971 on, got ${JSON.stringify(value)}`)
  const d = new Date(Date.UTC(year, month - 1, day))
  if (d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) throw new SloDefinitionError(path, `${value} is not a date`)
  return { year, month, day, weekday: d.getUTCDay() }
}

/** The window → { rolling: false, duration, zone (name), weekStart (0 Sunday … 6) } or { rolling: true, duration, days } */
function timeWindow (windows) {
  if (!Array.isArray(windows) || windows.length !== 1) throw new SloDefinitionError('spec.timeWindow', 'must be a list of exactly one window')
  const at = 'spec.timeWindow[0]'
  const w = fieldsOf(windows[0], at, ['duration', 'isRolling', 'calendar'], ['duration'])
  const rolling = w.isRolling ?? false
  if (typeof rolling !== 'boolean') throw new SloDefinitionError(`${at}.isRolling`, 'must be true or false')
  if (rolling) {
    if (!ROLLING_DURATIONS.includes(w.duration)) throw new SloDefinitionError(`${at}.duration`, `a rolling window is one of ${ROLLING_DURATIONS.join(', ')}, got ${JSON.stringify(w.duration)}`)
    if (w.calendar !== undefined) throw new SloDefinitionError(`${at}.calendar`, 'belongs to a calendar window (isRolling: false); a rolling window counts UTC days')
    return { rolling: true, duration: w.duration, days: Number(w.duration.slice(0, -1)), zone: 'UTC' }
  }
  if (!CALENDAR_DURATIONS.includes(w.duration)) throw new SloDefinitionError(`${at}.duration`, `a calendar window is one of ${CALENDAR_DURATIONS.join(', ')}, got ${JSON.stringify(w.duration)}`)
  const calendar = fieldsOf(w.calendar ?? {}, `${at}.calendar`, ['timeZone', 'startTime'])
  const zone = calendar.timeZone ?? 'UTC'
  if (typeof zone !== 'string' || zone.length > 64 || timeZone(zone) === null) {
    throw new SloDefinitionError(`${at}.calendar.timeZone`, `unknown time zone ${JSON.stringify(zone)}: use an IANA name such as Europe/Berlin or Asia/Kathmandu`)
  }
  let weekStart = 1
  if (calendar.startTime !== undefined) {
    // a period begins at a local midnight on its calendar's own boundary; a week's weekday says where weeks start
    const start = startDate(calendar.startTime, `${at}.calendar.startTime`)
    const aligned = { '1d': true, '1w': true, '1M': start.day === 1, '1Q': start.day === 1 && (start.month - 1) % 3 === 0, '1y': start.day === 1 && start.month === 1 }
    if (!aligned[w.duration]) throw new SloDefinitionError(`${at}.calendar.startTime`, `a ${w.duration} period begins on the first day of its ${{ '1M': 'month', '1Q': 'quarter', '1y': 'year' }[w.duration]}, got ${calendar.startTime}`)
    if (w.duration === '1w') weekStart = start.weekday
  }
  return { rolling: false, duration: w.duration, zone: timeZone(zone).name, weekStart }
}

/** objectives: one, with target in (0, 1) of at most 9 decimals → { target, targetParts: { numerator, denominator } (BigInt), objective (its displayName) } */
function objective (objectives) {
  if (!Array.isArray(objectives) || objectives.length !== 1) throw new SloDefinitionError('spec.objectives', 'must be a list of exactly one objective in this version')
  const at = 'spec.objectives[0]'
  const o = fieldsOf(objectives[0], at, ['displayName', 'target', 'targetPercent', 'op', 'value', 'timeSliceTarget', 'timeSliceWindow', 'indicator', 'indicatorRef', 'compositeWeight'])
  for (const key of ['targetPercent', 'op', 'value', 'timeSliceTarget', 'timeSliceWindow', 'indicator', 'indicatorRef', 'compositeWeight']) {
    if (o[key] !== undefined) throw new SloDefinitionError(`${at}.${key}`, `is not supported${key === 'targetPercent' ? ': give target (0.999 for 99.9 %)' : ''}`)
  }
  if (o.displayName !== undefined) text(o.displayName, `${at}.displayName`)
  // the target's decimal digits (0.0000001 prints as 1e-7): at most 9, and exactly the number given
  const fixed = typeof o.target === 'number' && o.target > 0 && o.target < 1 ? o.target.toFixed(9).replace(/0+$/, '') : ''
  const m = /^0\.(\d{1,9})$/.exec(fixed)
  if (!m || Number(fixed) !== o.target) throw new SloDefinitionError(`${at}.target`, `must be a number between 0 and 1 with at most 9 decimals (0.999), got ${JSON.stringify(o.target ?? null)}`)
  return { target: o.target, targetParts: { numerator: BigInt(m[1].replace(/^0+/, '') || '0'), denominator: 10n ** BigInt(m[1].length) }, objective: o.displayName ?? null }
}

/** One document's object → a definition */
export function parseSlo (object) {
  const slo = fieldsOf(object, '(document)', ['apiVersion', 'kind', 'metadata', 'spec'], ['apiVersion', 'kind', 'metadata', 'spec'])
  if (slo.apiVersion !== 'openslo/v1') throw new SloDefinitionError('apiVersion', `must be openslo/v1, got ${JSON.stringify(slo.apiVersion)}`)
  if (slo.kind !== 'SLO') throw new SloDefinitionError('kind', `${JSON.stringify(slo.kind)} is not supported: only kind SLO, with its indicator inline`)
  const metadata = fieldsOf(slo.metadata, 'metadata', ['name', 'displayName', 'labels', 'annotations'], ['name'])
  if (typeof metadata.name !== 'string' || !NAME_RE.test(metadata.name)) throw new SloDefinitionError('metadata.name', `must be 1–63 of a-z 0-9 -, starting and ending with a letter or digit, got ${JSON.stringify(metadata.name)}`)
  if (metadata.displayName !== undefined) text(metadata.displayName, 'metadata.displayName')
  labelsAndAnnotations(metadata, 'metadata')
  const spec = fieldsOf(slo.spec, 'spec', ['description', 'service', 'indicator', 'indicatorRef', 'timeWindow', 'budgetingMethod', 'objectives', 'alertPolicies'], ['timeWindow', 'budgetingMethod', 'objectives'])
  if (spec.alertPolicies !== undefined) throw new SloDefinitionError('spec.alertPolicies', 'is not supported: alert on the report\'s burn rates')
  if (spec.budgetingMethod !== 'Occurrences') throw new SloDefinitionError('spec.budgetingMethod', `only Occurrences is supported, got ${JSON.stringify(spec.budgetingMethod)}`)
  if (spec.description !== undefined) text(spec.description, 'spec.description', 1050)
  if (spec.service !== undefined) text(spec.service, 'spec.service')
  return {
    name: metadata.name,
    displayName: metadata.displayName ?? null,
    service: spec.service ?? null,
    description: spec.description ?? null,
    indicator: indicator(spec),
    window: timeWindow(spec.timeWindow),
    ...objective(spec.objectives)
  }
}

const TOO_DEEP = 'nests too deep to read: an SLO is a few levels deep'

/**
 * The most levels YAML text may nest, read before it is parsed: the parser
 * recurses a level at a time, and a few texts nested thousands deep (16 KB
 * of `[`) in one process made V8 abort it ("RegExpCompiler Allocation
 * failed"), where one alone was refused. An SLO nests ~6 levels.
 */
const MAX_YAML_NESTING = 64

/**
 * Whether `text` may nest past MAX_YAML_NESTING, counted generously: every
 * `[` and `{` opens a level wherever it stands (even in a quoted string),
 * each closing bracket ends one, and a line nests as deep as the indentations
 * it is inside plus the `- `, `? ` and `: ` that begin it (`- - - x`)
 */
export function nestsTooDeep (text) {
  let flow = 0
  const indents = []
  for (const line of text.split('\n')) {
    const indent = line.length - line.trimStart().length
    const rest = line.slice(indent)
    if (rest !== '' && rest[0] !== '#') {
      while (indents.length > 0 && indents.at(-1) >= indent) indents.pop()
      indents.push(indent)
      const compact = /^(?:[-?:](?:[ \t]+|$))*/.exec(rest)[0].replace(/[ \t]/g, '').length
      if (flow + indents.length + compact > MAX_YAML_NESTING) return true
    }
    for (let i = 0; i < rest.length; i++) {
      const c = rest.charCodeAt(i)
      if (c === 91 || c === 123) { // [ {
        if (++flow + indents.length > MAX_YAML_NESTING) return true
      } else if ((c === 93 || c === 125) && flow > 0) flow-- // ] }
    }
  }
  return false
}

/**
 * The first key a mapping of `doc` (a parsed YAML document) holds twice, as
 * the parser's own uniqueKeys compares them (scalars by value, others by
 * identity), or undefined. One Set a mapping: the parser's check compares each
 * key with every earlier one, and 38,000 keys in 256 KiB took it 15 s.
 */
function duplicateKey (doc) {
  let found
  visit(doc, {
    Map (_, map) {
      const seen = new Set()
      for (const { key } of map.items) {
        const k = isScalar(key) ? key.value : key
        if (seen.has(k)) { found = k; return visit.BREAK }
        seen.add(k)
      }
    }
  })
  return found
}

/**
 * YAML text → the objects of its documents (null: an empty one), read within
 * the budget of a file (bytes, nesting, documents, aliases); `what` names the text in
 * a refusal. Throws SloDefinitionError naming the document (1-based).
 */
function yamlDocuments (text, what, maxBytes = MAX_SLO_FILE_BYTES) {
  const bytes = Buffer.byteLength(text, 'utf8')
  if (bytes > maxBytes) throw new SloDefinitionError(what, `is ${bytes} bytes, over the limit of ${maxBytes}`)
  if (nestsTooDeep(text)) throw new SloDefinitionError('(yaml)', `${TOO_DEEP} (at most ${MAX_YAML_NESTING} levels)`, 1)
  let documents
  try {
    // keys are checked unique below, in one pass
    documents = parseAllDocuments(text, { uniqueKeys: false, prettyErrors: false, schema: 'core' })
  } catch (err) {
    // the parser's own recursion past the stack (where it does not report it as the document's error)
    if (err instanceof RangeError) throw new SloDefinitionError('(yaml)', TOO_DEEP, 1)
    throw err
  }
  if (!Array.isArray(documents)) return [] // an empty stream
  if (documents.length > MAX_SLOS) throw new SloDefinitionError(what, `holds ${documents.length} documents, over the limit of ${MAX_SLOS} SLOs`)
  return documents.map((doc, i) => {
    // (a stack overflow is a nesting too deep to read)
    if (doc.errors.length) throw new SloDefinitionError('(yaml)', /call stack/.test(doc.errors[0].message) ? TOO_DEEP : doc.errors[0].message.split('\n')[0], i + 1)
    const twice = duplicateKey(doc)
    if (twice !== undefined) throw new SloDefinitionError('(yaml)', `Map keys must be unique: ${twice !== null && typeof twice === 'object' ? 'a key' : quoted(String(twice), 80)} appears twice`, i + 1)
    try {
      return doc.toJS({ maxAliasCount: MAX_ALIASES })
    } catch (err) {
      throw new SloDefinitionError('(yaml)', err instanceof RangeError && /call stack/.test(err.message) ? TOO_DEEP : `${err.message.split('\n')[0]} (at most ${MAX_ALIASES} aliases)`, i + 1)
    }
  })
}

/**
 * The text of an SLO file → [definition], in the file's order; throws
 * SloDefinitionError naming the document (1-based) and the field
 */
export function parseSloFile (text) {
  const slos = []
  const names = new Set()
  yamlDocuments(text, '(file)').forEach((object, i) => {
    if (object === null) return // an empty document (a trailing ---)
    let slo
    try {
      slo = parseSlo(object)
    } catch (err) {
      if (err instanceof SloDefinitionError) throw new SloDefinitionError(err.field, err.message.slice(err.field.length + 2), i + 1)
      throw err
    }
    if (names.has(slo.name)) throw new SloDefinitionError('metadata.name', `${slo.name} is defined twice`, i + 1)
    names.add(slo.name)
    slos.push(slo)
    const overflow = zoneOverflow(slos)
    if (overflow !== null) throw new SloDefinitionError(ZONE_FIELD, overflow.message, i + 1)
  })
  return slos
}

/** A request's YAML body (PUT /v1/slos/:name) → its one document's object, read within SLO_FILE's budget but MAX_SLO_BODY_BYTES */
export function parseSloYamlBody (text) {
  const objects = yamlDocuments(text, '(body)', MAX_SLO_BODY_BYTES).filter(o => o !== null)
  if (objects.length !== 1) throw new SloDefinitionError('(body)', `holds ${objects.length} YAML documents: send one SLO a request (SLO_FILE takes several)`)
  return objects[0]
}
