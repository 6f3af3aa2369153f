// Route schemas of the Graphite API (src/routes/graphite.js). Query values
// stay strings; the routes parse them as graphite-web does. Unknown
// parameters are allowed: graphite-web ignores them, and Grafana sends some.
import { errorResponses } from './common.js'

// No length or enum constraints: graphite-web has none, and each value is
// judged by the route (a bad one → 400 naming it; the URL length is bounded by 414).
const text = description => ({ type: 'string', description })
const stringOrList = description => ({ anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }], description })
const errors = errorResponses(400, 401, 403, 414, 429, 500, 503)

export const renderSchema = {
  summary: 'Graphite render (json)',
  description: 'graphite-web 1.1.10\'s /render for Grafana: targets with the supported functions over one-minute sums; query string or form-encoded body. Past maxDataPoints, minutes are summed unless consolidateBy says otherwise. A distribution\'s leaves (api.latency.count, .sum, .mean, .min, .max, .p50, .p90, .p99, .p999, any other pNN named) are its stats, a minute\'s percentile from its histogram (MINUTE_HISTOGRAM_DAYS); past maxDataPoints each point is its stat of the values it covers (a p99 merged again, not averaged).',
  tags: ['graphite'],
  querystring: {
    type: 'object',
    properties: {
      target: stringOrList('a Graphite target; repeat for several'),
      from: text('graphite-web time: epoch seconds, -6h, now-1d, HH:MM_YYYYMMDD, YYYYMMDD, …; default -1d'),
      until: text('graphite-web time; default now'),
      format: text('json (the only format; anything else → 400)'),
      maxDataPoints: text('most points per series; consecutive points are consolidated past it'),
      noNullPoints: text('present: leave null points out'),
      now: text('the time relative times count from; default the server\'s clock'),
      tz: text('the time zone absolute from/until/now are read in (a tz database name); default UTC')
    }
  },
  response: {
    200: {
      type: 'array',
      items: {
        type: 'object',
        required: ['target', 'datapoints'],
        properties: {
          target: { type: 'string' },
          tags: { type: 'object', additionalProperties: { type: 'string' } },
          datapoints: { type: 'array', items: { type: 'array', items: { type: ['number', 'null'] } } }
        }
      }
    },
    ...errors
  }
}

export const findSchema = {
  summary: 'Graphite metrics/find',
  description: 'The nodes one level below a path or glob, in graphite-web\'s treejson form (default) or completer form. A distribution is a branch of stat leaves: count, sum, mean, min, max, p50, p90, p99, p999.',
  tags: ['graphite'],
  querystring: {
    type: 'object',
    properties: {
      query: text('a metric path or glob: app.*, app.{web,api}.*'),
      format: text('treejson (default) or completer (the query a prefix: app.we finds app.web.)')
    }
  },
  response: {
    200: {
      anyOf: [
        {
          type: 'array',
          items: {
            type: 'object',
            properties: { text: { type: 'string' }, id: { type: 'string' }, allowChildren: { type: 'integer' }, expandable: { type: 'integer' }, leaf: { type: 'integer' } }
          }
        },
        {
          type: 'object',
          required: ['metrics'],
          properties: {
            metrics: {
              type: 'array',
              items: { type: 'object', properties: { path: { type: 'string' }, name: { type: 'string' }, is_leaf: { type: 'string' } } }
            }
          }
        }
      ]
    },
    ...errors
  }
}

export const expandSchema = {
  summary: 'Graphite metrics/expand',
  description: 'The paths globs match, sorted; grouped by query with groupByExpr=1.',
  tags: ['graphite'],
  querystring: {
    type: 'object',
    properties: {
      query: stringOrList('a path or glob; repeat for several'),
      leavesOnly: text('1: leaves only'),
      groupByExpr: text('1: results grouped by query')
    }
  },
  response: {
    200: {
      type: 'object',
      properties: {
        results: { anyOf: [{ type: 'array', items: { type: 'string' } }, { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } }] }
      }
    },
    ...errors
  }
}

export const functionsSchema = {
  summary: 'Graphite functions',
  description: 'The supported functions, described as graphite-web does for Grafana\'s query editor.',
  tags: ['graphite'],
  response: { 200: { type: 'object', additionalProperties: true }, ...errorResponses(401, 403, 429, 500) }
}

export const versionSchema = {
  summary: 'Graphite version',
  description: 'The graphite-web version whose API statbucket answers.',
  tags: ['graphite'],
  produces: ['text/plain'],
  response: { 200: { type: 'string' }, ...errorResponses(401, 403, 429, 500) }
}

const expressions = stringOrList('a tag expression: tag=value, tag!=value, tag=~regex, tag!=~regex (name: the metric name); repeat for several, at most 16; one must require a value')
const limit = text('most answers (a whole number)')
const tagsDescription = 'graphite-web 1.1.10\'s tag database over the tagged series (`name;k=v`): their tags and `name`.'

export const tagListSchema = {
  summary: 'Graphite tags',
  description: `${tagsDescription} The tags, sorted; filter is a regex on RE2 anchored at the start.`,
  tags: ['graphite'],
  querystring: { type: 'object', properties: { filter: text('a regex the tags match from their start'), limit } },
  response: { 200: { type: 'array', items: { type: 'object', required: ['tag'], properties: { tag: { type: 'string' } } } }, ...errors }
}

export const tagDetailsSchema = {
  summary: 'Graphite tag details',
  description: `${tagsDescription} A tag's values with their numbers of series, sorted; null for a tag no series has.`,
  tags: ['graphite'],
  params: { type: 'object', properties: { tag: text('a tag, or name') } },
  querystring: { type: 'object', properties: { filter: text('a regex the values match from their start'), limit } },
  response: {
    200: {
      type: ['object', 'null'],
      properties: {
        tag: { type: 'string' },
        values: { type: 'array', items: { type: 'object', properties: { value: { type: 'string' }, count: { type: 'integer' } } } }
      }
    },
    ...errors
  }
}

export const findSeriesSchema = {
  summary: 'Graphite tags/findSeries',
  description: `${tagsDescription} The series every expression matches, sorted; at most MAX_SERIES.`,
  tags: ['graphite'],
  querystring: { type: 'object', properties: { expr: expressions } },
  response: { 200: { type: 'array', items: { type: 'string' } }, ...errors }
}

export const autoCompleteTagsSchema = {
  summary: 'Graphite tag autocompletion: tags',
  description: `${tagsDescription} The tags of the series the expressions match, besides theirs (every tag without expressions), starting with tagPrefix, sorted; at most limit (default 100).`,
  tags: ['graphite'],
  querystring: { type: 'object', properties: { expr: expressions, tagPrefix: text('what the tags start with'), limit } },
  response: { 200: { type: 'array', items: { type: 'string' } }, ...errors }
}

export const autoCompleteValuesSchema = {
  summary: 'Graphite tag autocompletion: values',
  description: `${tagsDescription} The values of tag among the series the expressions match (every value without expressions), starting with valuePrefix, sorted; at most limit (default 100).`,
  tags: ['graphite'],
  querystring: { type: 'object', properties: { expr: expressions, tag: text('the tag whose values are listed (required)'), valuePrefix: text('what the values start with'), limit } },
  response: { 200: { type: 'array', items: { type: 'string' } }, ...errors }
}
