// Route schemas of the read API. Query values stay strings; query-params.js parses them.
import { STEPS } from '../bucket/time.js'
import { SERIES_NAME_PATTERN } from '../bucket/event-rules.js'
import { MAX_PARAM_LENGTH, MAX_QUERY_STRING_BYTES } from '../plugins/request-limits.js'
import { errorResponses } from './common.js'
import { MAX_STAT_LENGTH, STATS_ACCEPTED } from '../bucket/distribution-stats.js'
import { KIND_NAMES } from '../kinds/index.js'

export const PREFIX_PATTERN = '^[A-Za-z0-9_.:-]{0,200}$'
export const LIMIT_PATTERN = '^(?:[1-9]\\d{0,3}|10000)$'

const timeParam = description => ({ type: 'string', minLength: 1, maxLength: 40, description })
const metricParams = {
  type: 'object',
  required: ['metric'],
  // a name, or a tagged series' name (name;key=value…, a / in a value sent as %2F) up to the router's
  // MAX_PARAM_LENGTH; a longer series is read through its name's tag filters
  properties: { metric: { type: 'string', pattern: SERIES_NAME_PATTERN, maxLength: MAX_PARAM_LENGTH } }
}
// reads by tag (docs/tags.md#reads): as many filters as a query string of MAX_QUERY_STRING_BYTES holds, and
// bounded so that no query the schema refuses is past the HTTP server's 16 KiB either (a 414 or 400, never a 431)
const QUERY_FILTERS = 8
const QUERY_FILTER_LENGTH = 64
const tagParam = {
  anyOf: [
    { type: 'string', maxLength: QUERY_FILTER_LENGTH },
    { type: 'array', maxItems: QUERY_FILTERS, items: { type: 'string', maxLength: QUERY_FILTER_LENGTH } }
  ],
  description: 'a tag filter in Graphite\'s syntax (key=value, key!=value, key=~regex, key!=~regex; a regex is anchored at the start, RE2); repeat for several, all must match. The matching series of the metric are summed'
}
const byParam = { type: 'string', maxLength: 100, description: 'tag keys, comma-separated: the matching series grouped by their values of these keys, each group summed (a series without a key: null)' }
const groupTags = { type: 'object', additionalProperties: { type: ['string', 'null'] } }
const seriesCount = { type: 'integer', description: 'tagged series read (with tag= or by=; one a group from a declared rollup)' }
const rollupKeys = { type: 'array', items: { type: 'string' }, description: 'the keys of the declared rollup read (ROLLUP_RULES), when one answered' }
const nullableNumbers = { type: 'array', items: { type: ['number', 'null'] } }
/** The `groups` of an answer read with by=: each group's tags, its series read, and `fields`, what the answer holds for one group */
const groupsOf = (fields, description) => ({
  type: 'array',
  ...(description ? { description } : {}),
  items: { type: 'object', properties: { tags: groupTags, series: seriesCount, ...fields } }
})
// what a total answers, for the metric or for a group
const totals = {
  total: { type: 'number', description: 'a counter\'s sum; a distribution\'s count of values' },
  count: { type: 'number', description: 'a distribution\'s count of values (absent for a counter)' },
  sum: { type: 'number', description: 'a distribution\'s sum of values (absent for a counter)' }
}
// what a year to date answers, for the metric or for a group
const ytdTotals = {
  total: totals.total,
  sum: totals.sum,
  months: {
    type: 'array',
    items: {
      type: 'object',
      properties: {
        month: { type: 'string' },
        total: { type: ['number', 'null'] },
        count: { type: ['number', 'null'], description: 'a distribution\'s' },
        sum: { type: ['number', 'null'], description: 'a distribution\'s' }
      }
    }
  }
}
const tzParam = { type: 'string', minLength: 1, maxLength: 64, description: 'an IANA time zone (Europe/Berlin, Asia/Kathmandu), default UTC; unknown zones answer 400' }

export const listMetricsSchema = {
  summary: 'List metrics',
  description: 'The registry sorted by name, paged: pass `next` as `after` for the following page.',
  tags: ['metrics'],
  querystring: {
    type: 'object',
    additionalProperties: false,
    properties: {
      prefix: { type: 'string', pattern: PREFIX_PATTERN },
      limit: { type: 'string', pattern: LIMIT_PATTERN, description: '1..10000, default 1000' },
      after: { type: 'string', pattern: SERIES_NAME_PATTERN, maxLength: MAX_QUERY_STRING_BYTES }
    }
  },
  response: {
    200: {
      type: 'object',
      required: ['metrics', 'next'],
      properties: {
        metrics: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              name: { type: 'string' },
              kind: { type: 'string', enum: KIND_NAMES, description: 'counter, distribution (read it with stat= and …/quantiles), or gauge (read it with stat=: last, min, max, mean, count, sum)' },
              firstSeen: { type: ['string', 'null'] },
              lastSeen: { type: ['string', 'null'] }
            }
          }
        },
        next: { type: ['string', 'null'] }
      }
    },
    ...errorResponses(400, 401, 403, 414, 429, 431, 500, 503)
  }
}

export const seriesSchema = {
  summary: 'Series of a metric',
  description: 'Points at step boundaries in `tz` over [from, to) (from rounded down, to up to the step in that zone), as epoch ms: a local day of 23 or 25 hours is one point; hour points of a +05:30 zone fall at :30 UTC; minute and quarter-hour points are the same in every zone. A value is null where no document holds that point\'s time, 0 where one exists and the slot is zero.',
  tags: ['metrics'],
  params: metricParams,
  querystring: {
    type: 'object',
    additionalProperties: false,
    properties: {
      from: timeParam('inclusive; epoch ms or ISO-8601 with Z/offset; default to − 24 h'),
      to: timeParam('exclusive; default now'),
      step: { type: 'string', enum: STEPS, description: 'default: the finest step with at most MAX_POINTS points whose detail is kept for the whole window (minute detail for MINUTE_RETENTION_DAYS, daily documents for DAILY_RETENTION_DAYS)' },
      tz: tzParam,
      stat: { type: 'string', minLength: 1, maxLength: MAX_STAT_LENGTH, description: `a distribution's stat per point (default count), or a gauge's (default last): ${STATS_ACCEPTED}. A minute's percentile is read from its histogram, kept MINUTE_HISTOGRAM_DAYS; null where the minute's histogram does not hold its values. Not for counters` },
      tag: tagParam,
      by: byParam
    }
  },
  response: {
    200: {
      type: 'object',
      required: ['metric', 'step', 'tz', 'from', 'to', 'timestamps'],
      properties: {
        metric: { type: 'string' },
        stat: { type: 'string', description: 'a distribution\'s or a gauge\'s stat (absent for a counter)' },
        step: { type: 'string' },
        tz: { type: 'string' },
        from: { type: 'integer' },
        to: { type: 'integer' },
        timestamps: { type: 'array', items: { type: 'integer' } },
        values: nullableNumbers,
        series: seriesCount,
        rollup: rollupKeys,
        groups: groupsOf({ values: nullableNumbers }, 'with by=: one per combination of the keys\' values')
      }
    },
    ...errorResponses(400, 401, 403, 404, 414, 429, 431, 500, 503)
  }
}

export const ytdSchema = {
  summary: 'Year-to-date total of a metric',
  description: 'Months of the year in `tz` (default UTC). In UTC from at most 12 monthly documents; in another zone from at most 12 monthly and about 13 daily documents (the hours at each local month edge). The asOf month counts days 1..asOf\'s day. A month without data has total null. A gauge has no total: 400.',
  tags: ['metrics'],
  params: metricParams,
  querystring: {
    type: 'object',
    additionalProperties: false,
    properties: {
      year: { type: 'string', description: 'default: asOf\'s year, or this year' },
      asOf: timeParam('default now, or the year\'s end for past years'),
      tz: tzParam,
      tag: tagParam,
      by: byParam
    }
  },
  response: {
    200: {
      type: 'object',
      required: ['metric', 'year', 'tz', 'asOf'],
      properties: {
        metric: { type: 'string' },
        year: { type: 'integer' },
        tz: { type: 'string' },
        asOf: { type: 'integer' },
        ...ytdTotals,
        series: seriesCount,
        rollup: rollupKeys,
        groups: groupsOf(ytdTotals, 'with by=')
      }
    },
    ...errorResponses(400, 401, 403, 404, 414, 429, 431, 500, 503)
  }
}

export const totalSchema = {
  summary: 'Exact total of a metric over [from, to)',
  description: 'The sum over any range, from the fewest documents: whole UTC months from the monthly documents, whole days from their day-of-month counters, then hours, quarter-hours and minutes of the edge days. An edge must fall on a boundary of the finest detail kept there (a minute inside the minute retention, a quarter-hour past it, a UTC day past the daily retention); otherwise 400 names the nearest usable edges. Instants-based: needs no time zone. A gauge has no total: 400 (read its series with stat=).',
  tags: ['metrics'],
  params: metricParams,
  querystring: {
    type: 'object',
    additionalProperties: false,
    required: ['from', 'to'],
    properties: {
      from: timeParam('inclusive'),
      to: timeParam('exclusive'),
      tag: tagParam,
      by: byParam
    }
  },
  response: {
    200: {
      type: 'object',
      required: ['metric', 'from', 'to', 'documents'],
      properties: {
        metric: { type: 'string' },
        from: { type: 'integer' },
        to: { type: 'integer' },
        ...totals,
        documents: { type: 'integer', description: 'documents read' },
        series: seriesCount,
        rollup: rollupKeys,
        groups: groupsOf(totals, 'with by=')
      }
    },
    ...errorResponses(400, 401, 403, 404, 414, 429, 431, 500, 503)
  }
}

export const deleteMetricSchema = {
  summary: 'Delete a metric (with all its tagged series) or one series: its registry entry and every daily, monthly and minute-hour document',
  description: 'Removes the metric from the registry, then its documents in bounded batches; a name takes its tagged series with it, a series (name;key=value…) goes alone and its name keeps what it counted; answers once they are gone, with how many were deleted. Idempotent: deleting a metric that does not exist (or no longer does) answers 200 with zeros. Writes of the metric that arrive while it runs may survive (and register the metric again); writes after the answer create it anew.',
  tags: ['metrics'],
  params: metricParams,
  response: {
    200: {
      type: 'object',
      required: ['metric', 'deleted'],
      properties: {
        metric: { type: 'string' },
        deleted: {
          type: 'object',
          required: ['registry', 'daily', 'monthly', 'minuteHours'],
          properties: {
            registry: { type: 'integer', description: 'registry entries deleted (the name and its series)' },
            series: { type: 'integer', description: 'tagged series deleted with the name' },
            daily: { type: 'integer', description: 'daily documents deleted' },
            monthly: { type: 'integer', description: 'monthly documents deleted' },
            minuteHours: { type: 'integer', description: 'minute-hour documents deleted (a distribution\'s minute histograms, one per UTC hour)' }
          }
        }
      }
    },
    ...errorResponses(400, 401, 403, 414, 429, 431, 500, 503)
  }
}

export const MAX_QUANTILES = 20

export const quantilesSchema = {
  summary: 'Quantiles of a distribution over [from, to)',
  description: 'Any quantiles over any range (default the last 24 hours, a default edge rounded out to the quarter-hour; from and to are echoed), from the fewest histograms merged (whole months, whole days, then hours, quarter-hours and minutes of the edge days), each within the metric\'s relative accuracy of the exact value at rank floor(q·(n−1)). An edge inside a quarter-hour must fall on a minute whose histogram is kept (MINUTE_HISTOGRAM_DAYS), and a range whose minutes hold values without their histogram cannot be ranked; otherwise 400 names the nearest usable edges. Counters answer 400.',
  tags: ['metrics'],
  params: metricParams,
  querystring: {
    type: 'object',
    additionalProperties: false,
    properties: {
      from: timeParam('inclusive'),
      to: timeParam('exclusive'),
      q: { type: 'string', minLength: 1, maxLength: 200, description: `comma-separated quantiles in [0, 1], at most ${MAX_QUANTILES}; default 0.5,0.9,0.99` }
    }
  },
  response: {
    200: {
      type: 'object',
      required: ['metric', 'from', 'to', 'count', 'sum', 'min', 'max', 'quantiles', 'accuracy', 'relativeError', 'limitedBy', 'documents'],
      properties: {
        metric: { type: 'string' },
        from: { type: 'integer' },
        to: { type: 'integer' },
        count: { type: 'number' },
        sum: { type: 'number' },
        min: { type: ['number', 'null'] },
        max: { type: ['number', 'null'] },
        quantiles: {
          type: 'array',
          items: { type: 'object', required: ['q', 'value'], properties: { q: { type: 'number' }, value: { type: ['number', 'null'] } } }
        },
        accuracy: { type: 'number', description: 'the metric\'s relative accuracy α' },
        relativeError: { type: ['number', 'null'], description: 'each quantile is within this of the value at its rank: α, or more where values came as OTLP histogram buckets coarser than α (null: a bucket without bounds)' },
        limitedBy: { type: 'string', enum: ['sketch', 'buckets'], description: 'what limits relativeError: the sketch\'s α, or the OTLP histogram buckets the values came in' },
        documents: { type: 'integer', description: 'documents read' }
      }
    },
    ...errorResponses(400, 401, 403, 404, 414, 429, 431, 500, 503)
  }
}

export const kindsSchema = {
  summary: 'What each kind of metric can show',
  description: 'Every kind (counter first: a metric without a kind is one): the stats a series may name, the default, whether percentiles (pNN) are read, which of total, ytd and quantiles it answers, what a point of its default series is (`step`: the series\' step), and how that point consolidates over a span (`sum`: a count per step).',
  tags: ['metrics'],
  querystring: { type: 'object', additionalProperties: false, properties: {} },
  response: {
    200: {
      type: 'object',
      required: ['kinds'],
      properties: {
        kinds: {
          type: 'array',
          items: {
            type: 'object',
            required: ['name', 'stats', 'defaultStat', 'percentiles', 'reads', 'point', 'consolidation'],
            properties: {
              name: { type: 'string', enum: KIND_NAMES },
              stats: { type: 'array', items: { type: 'string' }, description: 'the stats `stat=` names (a counter: none)' },
              defaultStat: { type: ['string', 'null'], description: 'the stat of the default series (a counter: null, its sum)' },
              percentiles: { type: 'boolean', description: 'whether `stat=pNN` is read' },
              reads: {
                type: 'object',
                required: ['total', 'ytd', 'quantiles'],
                properties: { total: { type: 'boolean' }, ytd: { type: 'boolean' }, quantiles: { type: 'boolean' } }
              },
              point: { type: 'string', description: 'what a point of the default series is' },
              consolidation: { type: 'string', description: 'how a point of the default series merges over a span: sum, last' }
            }
          }
        }
      }
    },
    ...errorResponses(400, 401, 403, 414, 429, 431, 500, 503)
  }
}

export const tagKeysSchema = {
  summary: 'Tag keys of a metric',
  description: 'The keys of the metric\'s tagged series, each with its number of distinct values (docs/tags.md#listings), from the in-memory tag index.',
  tags: ['metrics'],
  params: metricParams,
  querystring: { type: 'object', additionalProperties: false, properties: {} },
  response: {
    200: {
      type: 'object',
      required: ['metric', 'series', 'keys'],
      properties: {
        metric: { type: 'string' },
        series: { type: 'integer', description: 'tagged series of the metric' },
        keys: { type: 'array', items: { type: 'object', properties: { key: { type: 'string' }, values: { type: 'integer' } } } }
      }
    },
    ...errorResponses(400, 401, 403, 404, 414, 429, 431, 500, 503)
  }
}

export const tagValuesSchema = {
  summary: 'Values of one tag key of a metric',
  description: 'The values of a tag key, sorted, each with its number of series; paged with limit and after (the last value of the page before).',
  tags: ['metrics'],
  params: {
    type: 'object',
    required: ['metric', 'key'],
    properties: { metric: metricParams.properties.metric, key: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,64}$' } }
  },
  querystring: {
    type: 'object',
    additionalProperties: false,
    properties: {
      limit: { type: 'string', pattern: LIMIT_PATTERN, description: 'values per page, 1–10000, default 1000' },
      after: { type: 'string', maxLength: 512, description: 'the last value of the previous page' }
    }
  },
  response: {
    200: {
      type: 'object',
      required: ['metric', 'key', 'values', 'next'],
      properties: {
        metric: { type: 'string' },
        key: { type: 'string' },
        values: { type: 'array', items: { type: 'object', properties: { value: { type: 'string' }, series: { type: 'integer' } } } },
        next: { type: ['string', 'null'] }
      }
    },
    ...errorResponses(400, 401, 403, 404, 414, 429, 431, 500, 503)
  }
}

export const MAX_TOP = 1000

export const topSchema = {
  summary: 'The k largest groups of a metric\'s series by exact total',
  description: 'The matching series (tag=) grouped by the keys of by=, each group\'s exact total over [from, to) from the fewest documents, the k largest first (ties in the order of their tags). docs/tags.md#reads',
  tags: ['metrics'],
  params: metricParams,
  querystring: {
    type: 'object',
    additionalProperties: false,
    required: ['by', 'from', 'to'],
    properties: {
      by: byParam,
      k: { type: 'string', pattern: '^[1-9]\\d{0,3}$', description: `groups answered, 1–${MAX_TOP}, default 10` },
      from: timeParam('inclusive'),
      to: timeParam('exclusive'),
      tag: tagParam
    }
  },
  response: {
    200: {
      type: 'object',
      required: ['metric', 'from', 'to', 'groups', 'of', 'documents'],
      properties: {
        metric: { type: 'string' },
        from: { type: 'integer' },
        to: { type: 'integer' },
        rollup: rollupKeys,
        groups: groupsOf({ total: totals.total }),
        of: { type: 'integer', description: 'groups in all' },
        documents: { type: 'integer', description: 'documents read' }
      }
    },
    ...errorResponses(400, 401, 403, 404, 414, 429, 431, 500, 503)
  }
}

export const cardinalitySchema = {
  summary: 'The names with the most series, and their keys with the most values',
  description: 'From this instance\'s tag index: the names with the most tagged series (limit, default 10), and for each its keys with the most values. docs/tags.md#cardinality',
  tags: ['metrics'],
  querystring: {
    type: 'object',
    additionalProperties: false,
    properties: { limit: { type: 'string', pattern: '^[1-9]\\d{0,2}$', description: 'names answered, 1–999, default 10' } }
  },
  response: {
    200: {
      type: 'object',
      required: ['metrics', 'series', 'maxMetrics', 'maxSeriesPerName', 'names'],
      properties: {
        metrics: { type: 'integer', description: 'registry entries known here (names and series), counted toward MAX_METRICS' },
        series: { type: 'integer', description: 'tagged series known here' },
        maxMetrics: { type: 'integer' },
        maxSeriesPerName: { type: 'integer' },
        names: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              name: { type: 'string' },
              series: { type: 'integer' },
              keys: { type: 'array', items: { type: 'object', properties: { key: { type: 'string' }, values: { type: 'integer' } } } }
            }
          }
        }
      }
    },
    ...errorResponses(400, 401, 403, 414, 429, 431, 500, 503)
  }
}
