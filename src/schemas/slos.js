// Route schemas of the SLO reads (docs/slos.md#reports).
import { errorResponses } from './common.js'

/** The media types PUT /v1/slos/:name reads as YAML */
export const YAML_TYPES = ['application/yaml', 'application/x-yaml']

const nullableNumber = { type: ['number', 'null'] }
const sloParams = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string', pattern: '^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$' } }
}
const timeWindow = {
  type: 'object',
  properties: { duration: { type: 'string' }, rolling: { type: 'boolean' }, timeZone: { type: 'string' } }
}

export const listSlosSchema = {
  summary: 'Every SLO with its status',
  description: 'The SLOs of SLO_FILE, each with its current period\'s good and total events, attainment and remaining error budget, and a status: `met`, `at risk` (the attainment the period ends at if the last hour\'s rates hold falls short of the target), `breached` (more bad events than the budget allows) `no data`, or `refused` with the `error` its report answers (a selector naming a distribution).',
  tags: ['slos'],
  response: {
    200: {
      type: 'object',
      required: ['slos', 'documents'],
      properties: {
        slos: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              name: { type: 'string' },
              displayName: { type: ['string', 'null'] },
              service: { type: ['string', 'null'] },
              target: { type: 'number' },
              timeWindow,
              period: { type: 'string' },
              status: { type: 'string', enum: ['met', 'at risk', 'breached', 'no data', 'refused'] },
              error: { type: 'string', description: 'why its report is refused (status refused)' },
              attainment: nullableNumber,
              good: { type: 'number' },
              total: { type: 'number' },
              budgetRemainingRatio: nullableNumber,
              source: { type: 'string', enum: ['file', 'stored'], description: 'SLO_FILE, or stored through PUT /v1/slos/{name}' },
              documents: { type: 'integer' }
            }
          }
        },
        documents: { type: 'integer', description: 'documents read for all the SLOs' }
      }
    },
    ...errorResponses(400, 401, 403, 429, 500, 503)
  }
}

export const sloReportSchema = {
  summary: 'An SLO\'s report for a period',
  description: 'Exact counts for a calendar period in the SLO\'s zone (local midnight to local midnight: a day where the clock changes is 23 or 25 hours) or the rolling window: good, total, attainment, the error budget in bad events (allowed = ⌊(1 − target) × total⌋), good and total per local day, burn rates over the last 5m, 30m, 1h, 6h, 1d and 3d (current period only), and the attainment the period ends at if the last hour\'s rates hold.',
  tags: ['slos'],
  params: sloParams,
  querystring: {
    type: 'object',
    additionalProperties: false,
    properties: {
      period: { type: 'string', minLength: 1, maxLength: 16, description: 'the period, in the SLO\'s calendar: 2026-11-28 (1d), 2026-11-23 (1w, its first day), 2026-11 (1M), 2026-Q4 (1Q), 2026 (1y); default the current one. A rolling SLO takes none' }
    }
  },
  response: {
    200: {
      type: 'object',
      required: ['name', 'period', 'good', 'total', 'budget', 'days', 'documents'],
      properties: {
        name: { type: 'string' },
        period: { type: 'string' },
        timeZone: { type: 'string' },
        from: { type: 'integer', description: 'the period\'s first instant, epoch ms' },
        to: { type: 'integer', description: 'the instant after the period, epoch ms' },
        good: { type: 'number' },
        total: { type: 'number' },
        attainment: { ...nullableNumber, description: 'good ÷ total; null without events' },
        target: { type: 'number' },
        budget: {
          type: 'object',
          properties: {
            allowed: { type: 'number', description: '⌊(1 − target) × total⌋ bad events' },
            consumed: { type: 'number', description: 'bad events: total − good' },
            remaining: { type: 'number', description: 'allowed − consumed (negative once spent)' },
            remainingRatio: { ...nullableNumber, description: 'remaining ÷ allowed; null while nothing is allowed' }
          }
        },
        days: { type: 'array', items: { type: 'object', properties: { day: { type: 'string' }, good: { type: 'number' }, total: { type: 'number' } } } },
        burnRates: {
          type: ['object', 'null'],
          description: 'per window, the bad fraction ÷ (1 − target); null without events; the whole object null for a past period',
          properties: Object.fromEntries(['5m', '30m', '1h', '6h', '1d', '3d'].map(w => [w, nullableNumber]))
        },
        projectedAttainment: { ...nullableNumber, description: 'the attainment at the period\'s end if the last hour\'s rates hold (a past or rolling period: its attainment)' },
        documents: { type: 'integer', description: 'documents read' },
        selectors: {
          type: 'object',
          description: 'per selector (good or bad, and total): whether its counts are exact; a latency threshold not declared in DISTRIBUTION_THRESHOLDS by the start of a day or window is estimated from the histograms, within the accuracy α',
          properties: Object.fromEntries(['good', 'bad', 'total'].map(s => [s, {
            type: 'object',
            properties: { exact: { type: 'boolean' }, accuracy: { type: 'number', description: 'α, where a count is estimated' }, estimatedDays: { type: 'integer', description: 'the period\'s days estimated' } }
          }]))
        },
        asOf: { type: 'integer', description: 'the service\'s clock, epoch ms' }
      }
    },
    ...errorResponses(400, 401, 403, 404, 429, 500, 503)
  }
}

export const putSloSchema = {
  summary: 'Store an SLO',
  description: 'Stores an OpenSLO v1 `kind: SLO` document (JSON, or YAML: one document, at most 64 aliases) under its `metadata.name`, which must be the name in the path; the same subset as SLO_FILE, a field outside it refused by name (400). Replaces a stored SLO of that name; a name SLO_FILE defines is a 409. At most 200 stored SLOs, 32 KiB a document (a larger body is a 413). Every instance reads the stored SLOs on each use.',
  tags: ['slos'],
  params: sloParams,
  body: {
    content: {
      'application/json': { schema: { type: 'object', description: 'the OpenSLO document' } },
      ...Object.fromEntries(YAML_TYPES.map(type => [type, { schema: { type: 'string', description: 'the OpenSLO document as YAML, as in SLO_FILE' } }]))
    }
  },
  response: {
    200: {
      type: 'object',
      required: ['name', 'created'],
      properties: { name: { type: 'string' }, created: { type: 'boolean', description: 'false: a stored SLO of that name was replaced' } }
    },
    ...errorResponses(400, 401, 403, 409, 413, 415, 429, 500, 503)
  }
}

export const deleteSloSchema = {
  summary: 'Delete a stored SLO',
  description: 'Deletes an SLO stored through PUT; one SLO_FILE defines is a 409 (take it out of the file), one not stored a 404.',
  tags: ['slos'],
  params: sloParams,
  response: {
    200: { type: 'object', required: ['name', 'deleted'], properties: { name: { type: 'string' }, deleted: { type: 'boolean' } } },
    ...errorResponses(400, 401, 403, 404, 409, 429, 500, 503)
  }
}
