// Examples shown in the OpenAPI document, keyed by `METHOD /path` as the
// document spells the path. Kept apart from the route schemas so that they
// document without taking part in validation.

import { stringify } from 'yaml'
import { YAML_TYPES } from '../schemas/slos.js'

const T0 = Date.UTC(2026, 10, 21, 10, 0)
const MINUTE = 60_000

/** The stored SLO of PUT /v1/slos/{name}'s examples, in JSON and YAML */
const PUT_SLO = {
  apiVersion: 'openslo/v1',
  kind: 'SLO',
  metadata: { name: 'checkout-latency' },
  spec: {
    indicator: { spec: { ratioMetric: { good: { metricSource: { type: 'statbucket', spec: { metric: 'api.requests', tags: ['status!=~5..'] } } }, total: { metricSource: { type: 'statbucket', spec: { metric: 'api.requests' } } } } } },
    timeWindow: [{ duration: '1w', calendar: { timeZone: 'Asia/Kathmandu' } }],
    budgetingMethod: 'Occurrences',
    objectives: [{ target: 0.995 }]
  }
}

export const errorExamples = {
  400: { statusCode: 400, error: 'Bad Request', message: 'events[1].metric: must be a metric name: letters, digits and _ . : - only (metric names cannot contain spaces), at most 200 characters, starting with a letter or digit', details: [{ path: 'events[1].metric', message: 'must be a metric name: letters, digits and _ . : - only (metric names cannot contain spaces), at most 200 characters, starting with a letter or digit' }] },
  401: { statusCode: 401, error: 'Unauthorized', message: 'send Authorization: Bearer <token>' },
  403: { statusCode: 403, error: 'Forbidden', message: 'this token may not do that' },
  404: { statusCode: 404, error: 'Not Found', message: 'no metric named "api.requests"' },
  409: { statusCode: 409, error: 'Conflict', message: 'a request with this Idempotency-Key is still in flight; retry once it is answered' },
  413: { statusCode: 413, error: 'Payload Too Large', message: 'a request holds at most MAX_EVENTS_PER_REQUEST = 10000 events, got 12000; split the batch' },
  415: { statusCode: 415, error: 'Unsupported Media Type', message: 'send the events as JSON with Content-Type: application/json' },
  414: { statusCode: 414, error: 'URI Too Long', message: 'the URL is longer than the server accepts' },
  422: { statusCode: 422, error: 'Unprocessable Entity', message: 'this Idempotency-Key was used before with a different body; use a new key for a new request' },
  429: { statusCode: 429, error: 'Too Many Requests', message: 'more than RATE_LIMIT_PER_MINUTE = 600 requests in a minute for this token; retry after 12 seconds' },
  431: { statusCode: 431, error: 'Request Header Fields Too Large', message: 'Exceeded maximum allowed HTTP header size' },
  500: { statusCode: 500, error: 'Internal Server Error', message: 'internal error' },
  503: { statusCode: 503, error: 'Service Unavailable', message: 'too many pending events (MAX_PENDING_EVENTS = 100000); outcome: not_applied', outcome: 'not_applied' },
  504: { statusCode: 504, error: 'Gateway Timeout', message: 'the database did not acknowledge the write in time; outcome: unknown', outcome: 'unknown' }
}

const QUARTER_HOUR = 15 * MINUTE

const seriesExample = {
  metric: 'api.latency',
  stat: 'p99',
  step: 'quarter-hour',
  tz: 'UTC',
  from: T0,
  to: T0 + 4 * QUARTER_HOUR,
  timestamps: [0, 1, 2, 3].map(i => T0 + i * QUARTER_HOUR),
  values: [212.4, null, 87.1, 95.6]
}

export const operationExamples = {
  'POST /v1/events': {
    parameters: { 'idempotency-key': '7f9c2ba4-e88f-4e11-8a3b-5c1d2e3f4a5b' },
    requestBody: {
      single: { summary: 'One event', value: { metric: 'api.requests', value: 3 } },
      batch: {
        summary: 'A batch with explicit times',
        value: [
          { metric: 'api.requests', value: 3, ts: '2026-11-21T10:15:00Z' },
          { metric: 'api.errors', ts: 1795256100000 },
          { metric: 'api.requests', value: -1, ts: '2026-11-21T11:15:00+01:00' }
        ]
      },
      distribution: {
        summary: 'Latencies of a distribution (percentiles kept)',
        value: [
          { metric: 'api.latency', kind: 'distribution', value: 87.5, ts: '2026-11-21T10:15:00Z' },
          { metric: 'api.latency', kind: 'distribution', value: 212, ts: '2026-11-21T10:16:00Z' }
        ]
      },
      tagged: {
        summary: 'Tagged events: each counts toward its series and toward the name (tags as an object, or in the name)',
        value: [
          { metric: 'api.requests', tags: { route: '/login', status: '500' }, value: 1, ts: '2026-11-21T10:15:00Z' },
          { metric: 'api.requests;route=/home;status=200', value: 4, ts: '2026-11-21T10:15:00Z' }
        ]
      },
      gauge: {
        summary: 'Levels of a gauge (min, max, mean and the last by event time kept)',
        value: [
          { metric: 'queue.depth', kind: 'gauge', value: 42, ts: '2026-11-21T10:15:00Z' },
          { metric: 'queue.depth', kind: 'gauge', value: 17, ts: '2026-11-21T10:15:30Z' }
        ]
      }
    },
    responses: {
      200: { accepted: 3 },
      400: { statusCode: 400, error: 'Bad Request', message: 'events[0].ts: is more than MAX_FUTURE_MS (300000 ms) ahead of the server\'s clock', details: [{ path: 'events[0].ts', message: 'is more than MAX_FUTURE_MS (300000 ms) ahead of the server\'s clock' }] }
    }
  },
  'POST /v1/statsd': {
    parameters: { 'idempotency-key': '0b7e1c2d-3f4a-4b5c-8d9e-0f1a2b3c4d5e' },
    requestBody: {
      lines: { summary: 'Counters, a timer, a gauge with a delta and a packed line', value: 'api.requests:1|c\napi.requests:1|c|@0.1\ndb.query:12.5|ms\nqueue.depth:42|g\nqueue.depth:-2|g\napi.errors:1|c:2|c\n' }
    },
    responses: {
      200: { accepted: 4 },
      400: { statusCode: 400, error: 'Bad Request', message: 'line 2 "users.online:alice|s": sets (|s) count distinct values: not kept; nothing of this request was applied', details: [{ line: 2, text: 'users.online:alice|s', reason: 'set', message: 'sets (|s) count distinct values: not kept' }] },
      413: { statusCode: 413, error: 'Payload Too Large', message: 'a request holds at most MAX_EVENTS_PER_REQUEST = 10000 StatsD values; split the lines over several requests' },
      415: { statusCode: 415, error: 'Unsupported Media Type', message: 'send StatsD lines with Content-Type: text/plain (got application/json)' }
    }
  },
  'POST /v1/metrics': {
    responses: {
      200: { partialSuccess: { rejectedDataPoints: 1, errorMessage: '1 point(s) not kept: 1 × metric "http.server.duration": tag "url.full": the value "https://shop.example/cart?session=…" is longer than 128 characters; a tag value is 1–128 printable characters without ; or =, not starting with ~' } },
      400: { statusCode: 400, error: 'Bad Request', message: 'the body is not an OTLP ExportMetricsServiceRequest in protobuf: index out of range: 412 + 10 > 418' },
      413: { statusCode: 413, error: 'Payload Too Large', message: 'a request holds at most MAX_EVENTS_PER_REQUEST = 10000 data points, got 12000; export fewer at a time (the SDK\'s or the Collector\'s batch size)' },
      415: { statusCode: 415, error: 'Unsupported Media Type', message: 'send OTLP metrics with Content-Type: application/x-protobuf or application/json (got text/plain)' }
    }
  },
  'GET /v1/metrics': {
    parameters: { prefix: 'api.', limit: '2', after: 'api.errors' },
    responses: {
      200: {
        metrics: [
          { name: 'api.latency', kind: 'distribution', firstSeen: '2026-11-01T00:00:12.000Z', lastSeen: '2026-11-21T10:15:00.000Z' },
          { name: 'api.requests', kind: 'counter', firstSeen: '2026-10-30T08:00:00.000Z', lastSeen: '2026-11-21T10:15:00.000Z' }
        ],
        next: 'api.requests'
      },
      400: { statusCode: 400, error: 'Bad Request', message: 'querystring.limit: must be a whole number from 1 to 10000', details: [{ path: 'querystring.limit', message: 'must be a whole number from 1 to 10000' }] }
    }
  },
  'GET /v1/metrics/{metric}/series': {
    parameters: { metric: 'api.latency', from: '2026-11-21T10:00:00Z', to: '2026-11-21T11:00:00Z', step: 'quarter-hour', tz: 'UTC', stat: 'p99', tag: 'status!=200', by: 'route' },
    responses: {
      200: seriesExample,
      400: { statusCode: 400, error: 'Bad Request', message: 'step: the range holds 525600 points at step minute, over the limit MAX_POINTS = 20000; narrow the range or use a coarser step', details: [{ path: 'step', message: 'the range holds 525600 points at step minute, over the limit MAX_POINTS = 20000; narrow the range or use a coarser step' }] }
    }
  },
  'GET /v1/metrics/{metric}/ytd': {
    parameters: { metric: 'api.requests', year: '2026', asOf: '2026-03-15T00:00:00-04:00', tz: 'America/New_York', tag: 'status=~5', by: 'route' },
    responses: {
      200: {
        metric: 'api.requests',
        year: 2026,
        tz: 'America/New_York',
        asOf: Date.UTC(2026, 2, 15, 4),
        total: 5300,
        months: [{ month: '2026-01', total: 2000 }, { month: '2026-02', total: null }, { month: '2026-03', total: 3300 }]
      }
    }
  },
  'GET /v1/metrics/{metric}/top': {
    parameters: { metric: 'api.requests', by: 'route', k: '10', from: '2026-11-20T10:30:00Z', to: '2026-11-21T10:30:00Z', tag: 'status!=200' },
    responses: { 200: { metric: 'api.requests', from: Date.UTC(2026, 10, 20, 10, 30), to: Date.UTC(2026, 10, 21, 10, 30), groups: [{ tags: { route: '/login' }, series: 1, total: 1 }], of: 1, documents: 2 } }
  },
  'GET /v1/cardinality': {
    parameters: { limit: '10' },
    responses: { 200: { metrics: 5, series: 2, maxMetrics: 100000, maxSeriesPerName: 10000, names: [{ name: 'api.requests', series: 2, keys: [{ key: 'route', values: 2 }, { key: 'status', values: 2 }] }] } }
  },
  'GET /v1/metrics/{metric}/tags': {
    parameters: { metric: 'api.requests' },
    responses: { 200: { metric: 'api.requests', series: 2, keys: [{ key: 'route', values: 2 }, { key: 'status', values: 2 }] } }
  },
  'GET /v1/metrics/{metric}/tags/{key}': {
    parameters: { metric: 'api.requests', key: 'status', limit: '100', after: '200' },
    responses: { 200: { metric: 'api.requests', key: 'status', values: [{ value: '200', series: 1 }, { value: '500', series: 1 }], next: null } }
  },
  'GET /v1/metrics/{metric}/quantiles': {
    parameters: { metric: 'api.latency', from: '2026-11-21T10:00:00Z', to: '2026-11-21T11:00:00Z', q: '0.5,0.9,0.99' },
    responses: {
      200: {
        metric: 'api.latency',
        from: T0,
        to: T0 + 4 * QUARTER_HOUR,
        count: 1200,
        sum: 118_230.5,
        min: 3.2,
        max: 1912,
        quantiles: [{ q: 0.5, value: 87.1 }, { q: 0.9, value: 140.3 }, { q: 0.99, value: 212.4 }],
        accuracy: 0.01,
        relativeError: 0.01,
        limitedBy: 'sketch',
        documents: 1
      },
      400: { statusCode: 400, error: 'Bad Request', message: 'to: 2026-11-21T10:07:00.000Z falls inside a quarter-hour slot, the finest detail kept there (minute histograms, which a minute\'s percentile is read from, are kept from 2026-11-22 on (MINUTE_HISTOGRAM_DAYS)); the nearest usable edges are 2026-11-21T10:00:00.000Z and 2026-11-21T10:15:00.000Z', details: [{ path: 'to', message: 'to: 2026-11-21T10:07:00.000Z falls inside a quarter-hour slot, the finest detail kept there (minute histograms, which a minute\'s percentile is read from, are kept from 2026-11-22 on (MINUTE_HISTOGRAM_DAYS)); the nearest usable edges are 2026-11-21T10:00:00.000Z and 2026-11-21T10:15:00.000Z', before: T0, after: T0 + QUARTER_HOUR }] }
    }
  },
  'DELETE /v1/metrics/{metric}': {
    parameters: { metric: 'loadgen.m1' },
    responses: {
      200: { metric: 'loadgen.m1', deleted: { registry: 1, series: 0, daily: 31, monthly: 2, minuteHours: 0 } }
    }
  },
  'GET /v1/metrics/{metric}/total': {
    parameters: { metric: 'api.requests', from: '2026-11-20T10:30:00Z', to: '2026-11-21T10:30:00Z', tag: 'route=/login', by: 'status' },
    responses: {
      200: { metric: 'api.requests', from: Date.UTC(2026, 10, 20, 10, 30), to: Date.UTC(2026, 10, 21, 10, 30), total: 86012, documents: 2 },
      400: { statusCode: 400, error: 'Bad Request', message: 'from: 2026-06-10T10:07:00.000Z falls inside a quarter-hour slot, the finest detail kept there (minute detail is kept from 2026-08-23 on); the nearest usable edges are 2026-06-10T10:00:00.000Z and 2026-06-10T10:15:00.000Z', details: [{ path: 'from', message: 'from: 2026-06-10T10:07:00.000Z falls inside a quarter-hour slot, the finest detail kept there (minute detail is kept from 2026-08-23 on); the nearest usable edges are 2026-06-10T10:00:00.000Z and 2026-06-10T10:15:00.000Z', before: Date.UTC(2026, 5, 10, 10, 0), after: Date.UTC(2026, 5, 10, 10, 15) }] }
    }
  },
  'GET /v1/slos': {
    responses: {
      200: {
        slos: [{ name: 'availability', displayName: 'Checkout availability', service: 'checkout', target: 0.999, timeWindow: { duration: '1M', rolling: false, timeZone: 'Europe/Berlin' }, period: '2026-11', status: 'met', attainment: 0.99952, good: 2_499_880, total: 2_501_080, budgetRemainingRatio: 0.52, documents: 70 }],
        documents: 70
      }
    }
  },
  'GET /v1/slos/{name}/report': {
    parameters: { name: 'availability', period: '2026-11' },
    responses: {
      200: {
        name: 'availability',
        period: '2026-11',
        timeZone: 'Europe/Berlin',
        from: Date.UTC(2026, 9, 31, 23),
        to: Date.UTC(2026, 10, 30, 23),
        good: 2_499_880,
        total: 2_501_080,
        attainment: 0.9995202075,
        target: 0.999,
        budget: { allowed: 2501, consumed: 1200, remaining: 1301, remainingRatio: 0.5201919232 },
        days: [{ day: '2026-11-01', good: 99_950, total: 100_000 }, { day: '2026-11-02', good: 99_980, total: 100_000 }],
        burnRates: { '5m': 0, '30m': 0.4, '1h': 0.45, '6h': 0.5, '1d': 0.48, '3d': 0.47 },
        projectedAttainment: 0.99953,
        documents: 70,
        asOf: Date.UTC(2026, 10, 21, 12)
      },
      400: { statusCode: 400, error: 'Bad Request', message: 'period: a 1M SLO\'s period is YYYY-MM (2026-11), got "2026-11-01"', details: [{ path: 'period', message: 'a 1M SLO\'s period is YYYY-MM (2026-11), got "2026-11-01"' }] },
      404: { statusCode: 404, error: 'Not Found', message: 'no SLO named "availability"' }
    }
  },
  'PUT /v1/slos/{name}': {
    parameters: { name: 'checkout-latency' },
    requestBody: {
      'application/json': { slo: { summary: 'An availability SLO per calendar week in Kathmandu', value: PUT_SLO } },
      ...Object.fromEntries(YAML_TYPES.map(type => [type, { slo: { summary: 'The same SLO in YAML, as in SLO_FILE', value: stringify(PUT_SLO) } }]))
    },
    responses: {
      200: { name: 'checkout-latency', created: true },
      400: { statusCode: 400, error: 'Bad Request', message: 'spec.budgetingMethod: only Occurrences is supported, got "Timeslices"', details: [{ path: 'spec.budgetingMethod', message: 'spec.budgetingMethod: only Occurrences is supported, got "Timeslices"' }] },
      409: { statusCode: 409, error: 'Conflict', message: 'the SLO "availability" is defined in SLO_FILE: change it there, or give this one another name' }
    }
  },
  'DELETE /v1/slos/{name}': {
    parameters: { name: 'checkout-latency' },
    responses: {
      200: { name: 'checkout-latency', deleted: true },
      404: { statusCode: 404, error: 'Not Found', message: 'no stored SLO named "checkout-latency"' },
      409: { statusCode: 409, error: 'Conflict', message: 'the SLO "availability" is defined in SLO_FILE: take it out of the file' }
    }
  },
  'GET /v1/kinds': {
    responses: {
      200: {
        kinds: [
          { name: 'counter', stats: [], defaultStat: null, percentiles: false, reads: { total: true, ytd: true, quantiles: false }, point: 'count per step', consolidation: 'sum' },
          { name: 'distribution', stats: ['count', 'sum', 'mean', 'min', 'max'], defaultStat: 'count', percentiles: true, reads: { total: true, ytd: true, quantiles: true }, point: 'values per step', consolidation: 'sum' },
          { name: 'gauge', stats: ['last', 'min', 'max', 'mean', 'count', 'sum'], defaultStat: 'last', percentiles: false, reads: { total: false, ytd: false, quantiles: false }, point: 'level', consolidation: 'last' }
        ]
      }
    }
  },
  'GET /healthz': { responses: { 200: { status: 'ok' } } },
  'GET /readyz': {
    responses: {
      200: { status: 'ready', backend: 'mongod', transactions: true },
      503: { status: 'unavailable', backend: 'mongod', transactions: true, error: 'the database did not answer a ping' }
    }
  },
  'GET /metrics': {
    responses: {
      200: '# HELP statbucket_events_accepted_total Events in requests answered 200.\n# TYPE statbucket_events_accepted_total counter\nstatbucket_events_accepted_total 1234\n'
    }
  },
  'GET /render': graphiteRenderExamples(),
  'POST /render': graphiteRenderExamples(),
  'GET /metrics/find': graphiteFindExamples(),
  'POST /metrics/find': graphiteFindExamples(),
  'GET /metrics/expand': graphiteExpandExamples(),
  'POST /metrics/expand': graphiteExpandExamples(),
  'GET /functions': {
    responses: { 200: { scale: { name: 'scale', function: 'scale(seriesList, factor)', description: 'As in graphite-web 1.1.10.', module: 'statbucket', group: 'Transform', params: [{ name: 'seriesList', type: 'seriesList', required: true }, { name: 'factor', type: 'float', required: true }] } } }
  },
  'GET /version': { responses: { 200: '1.1.10' } },
  'GET /tags': { parameters: { filter: 'st', limit: '100' }, responses: { 200: [{ tag: 'status' }] } },
  'GET /tags/{tag}': {
    parameters: { tag: 'status', filter: '[25]', limit: '100' },
    responses: { 200: { tag: 'status', values: [{ value: '200', count: 2 }, { value: '500', count: 1 }] } }
  },
  'GET /tags/findSeries': graphiteFindSeriesExamples(),
  'POST /tags/findSeries': graphiteFindSeriesExamples(),
  'GET /tags/autoComplete/tags': graphiteAutoCompleteTagsExamples(),
  'POST /tags/autoComplete/tags': graphiteAutoCompleteTagsExamples(),
  'GET /tags/autoComplete/values': graphiteAutoCompleteValuesExamples(),
  'POST /tags/autoComplete/values': graphiteAutoCompleteValuesExamples()
}

function graphiteFindSeriesExamples () {
  return {
    parameters: { expr: ['name=web.requests', 'status=~5'] },
    responses: {
      200: ['web.requests;route=login;status=500'],
      400: { statusCode: 400, error: 'Bad Request', message: 'at least one tag expression must require a value (key=value, key=~regex that does not match "", key!=): graphite-web refuses expressions that all match the empty value' }
    }
  }
}

function graphiteAutoCompleteTagsExamples () {
  return { parameters: { expr: 'name=web.requests', tagPrefix: 'st', limit: '100' }, responses: { 200: ['status'] } }
}

function graphiteAutoCompleteValuesExamples () {
  return { parameters: { expr: 'name=web.requests', tag: 'status', valuePrefix: '5', limit: '100' }, responses: { 200: ['500'] } }
}

function graphiteRenderExamples () {
  const t = T0 / 1000
  return {
    parameters: { target: 'constantLine(100)', from: '-1h', until: 'now', format: 'json', maxDataPoints: '500', noNullPoints: '1', now: String(t + 3600), tz: 'UTC' },
    responses: {
      200: [{ target: 'sumSeries(api.*.requests)', tags: { name: 'sumSeries(api.*.requests)' }, datapoints: [[12, t], [0, t + 60], [null, t + 120]] }],
      400: { statusCode: 400, error: 'Bad Request', message: 'unsupported function "highestMax"; supported: constantLine, alias, aliasByNode, aliasByTags, aliasSub, groupByTags, seriesByTag, sumSeries, sum, summarize, consolidateBy, integral, perSecond, nonNegativeDerivative, movingAverage, timeShift, scale, hitcount' }
    }
  }
}

function graphiteFindExamples () {
  return {
    parameters: { query: 'api.*', format: 'treejson' },
    responses: {
      200: [
        { text: 'db', id: 'api.db', allowChildren: 1, expandable: 1, leaf: 0 },
        { text: 'requests', id: 'api.requests', allowChildren: 0, expandable: 0, leaf: 1 }
      ]
    }
  }
}

function graphiteExpandExamples () {
  return {
    parameters: { query: 'api.*', leavesOnly: '0', groupByExpr: '0' },
    responses: { 200: { results: ['api.db', 'api.requests'] } }
  }
}
