// POST /v1/metrics: OTLP/HTTP metrics, protobuf or JSON (docs/otlp.md).
import { errorResponses } from './common.js'

export const postOtlpMetricsSchema = {
  summary: 'Ingest OTLP/HTTP metrics',
  description: 'An OpenTelemetry ExportMetricsServiceRequest as sent by an OTLP/HTTP exporter: `application/x-protobuf` or OTLP JSON (`application/json`), gzip (`Content-Encoding: gzip`) or not. Each point becomes events of its metric\'s name (made valid as StatsD names are) with its attributes and the resource attributes of OTLP_RESOURCE_TAGS as tags, at its time: delta sums add to a counter, monotonic cumulative sums add what they grew by since the series\' previous point, other sums and gauges are gauge levels, histograms and exponential histograms a distribution\'s values (count, sum, min and max exact). The answer is an ExportMetricsServiceResponse encoded as the request was; `partialSuccess` counts the points not kept and says why, and names renamed metrics. Answered 200 only after MongoDB acknowledged every write, as POST /v1/events.',
  tags: ['events'],
  consumes: ['application/x-protobuf', 'application/json'],
  response: {
    200: {
      description: 'ExportMetricsServiceResponse (in protobuf when the request was)',
      type: 'object',
      properties: {
        partialSuccess: {
          type: 'object',
          properties: {
            rejectedDataPoints: { type: 'integer', description: 'points not kept' },
            errorMessage: { type: 'string', description: 'why, and the names made valid' }
          }
        }
      }
    },
    ...errorResponses(400, 401, 403, 413, 415, 429, 500, 503, 504)
  }
}
