import { defineConfig } from 'vitest/config'

// The suite in five projects, each runnable alone (`npx vitest run --project
// unit`, `npm run test:unit`, …); `npm test` runs them all. A test file
// belongs to exactly one, by what it uses: test/suite-projects.test.js checks
// that every test/**/*.test.js is in exactly one, and that a unit file imports
// none of what the others need. A pattern is a file's path or
// `<folder>/**/*.test.js`. `npm run test:unit` runs a file per core
// (--maxWorkers=100%: they share nothing but the CPU); the others keep
// vitest's default.
export const PROJECTS = {
  // no database, no child process, no browser: pure modules, stand-in collections, Fastify's inject without a database
  unit: {
    include: [
      'test/bucket/**/*.test.js',
      'test/idempotency/**/*.test.js',
      'test/ingest/**/*.test.js',
      'test/writer/**/*.test.js',
      'test/scripts/shared/**/*.test.js',
      'test/suite-projects.test.js',
      'test/shutdown.test.js',
      'test/dashboard/colors.test.js',
      'test/dashboard/format.test.js',
      'test/dashboard/hash-names.test.js',
      'test/dashboard/latency-plan.test.js',
      'test/dashboard/metric-kinds.test.js',
      'test/dashboard/partial.test.js',
      'test/dashboard/series-read.test.js',
      'test/dashboard/slo-periods.test.js',
      'test/dashboard/slo-view.test.js',
      'test/dashboard/step-fit.test.js',
      'test/dashboard/tag-selection.test.js',
      'test/dashboard/time-axis.test.js',
      'test/faults/writer-overload.test.js', // the writer against a stand-in collection, in process
      'test/graphite/attime.test.js',
      'test/graphite/glob.test.js',
      'test/graphite/made-points.test.js',
      'test/graphite/python-format.test.js',
      'test/graphite/python-sub.test.js',
      'test/graphite/series-tags.test.js',
      'test/graphite/target-parser.test.js',
      'test/graphite/tag-db.test.js',
      'test/kinds/**/*.test.js',
      'test/dashboard/kind-views.test.js',
      'test/docs/configuration.test.js',
      'test/scripts/bench/bench-docs.test.js',
      'test/scripts/loadgen/layouts.test.js',
      'test/scripts/loadgen/load-run.test.js',
      'test/jobs/prealloc-sweep.test.js',
      'test/jobs/preallocator.test.js',
      'test/property/bucket.property.test.js',
      'test/property/distribution.property.test.js',
      'test/reader/distribution-reads.test.js',
      'test/registry/metric-registry.test.js',
      'test/registry/name-index.test.js',
      'test/routes/ingest-reply.test.js',
      'test/scripts/bench/bench-report.test.js',
      'test/scripts/bench/bench-yardstick.test.js',
      'test/scripts/bench/process-cpu.test.js',
      'test/scripts/bench/profile-single.test.js',
      'test/scripts/bench/side-by-side.test.js',
      'test/scripts/bench/tags-side-by-side.test.js',
      'test/scripts/bench/statsd-figures.test.js',
      'test/scripts/bench/wiredtiger.test.js',
      'test/scripts/bench/wt-writes.test.js',
      'test/scripts/loadgen/minute-stats.test.js',
      'test/scripts/loadgen/sim-clock.test.js',
      'test/statsd/aggregator.test.js',
      'test/statsd/gauge-levels.test.js',
      'test/statsd/http-lines.test.js',
      'test/statsd/line-parser.test.js',
      'test/statsd/pipeline.test.js',
      'test/tags/series-name.test.js',
      'test/tags/tag-filter.test.js',
      'test/tags/tag-index.test.js',
      'test/tags/rollups.test.js',
      'test/tags/bounded-cache.test.js',
      'test/tags/series-name-cache.test.js',
      'test/otlp/otlp-points.test.js',
      'test/otlp/otlp-codec.test.js',
      'test/slos/definitions.test.js',
      'test/slos/periods.test.js',
      'test/slos/report.test.js',
      'test/slos/settle-limited.test.js',
      'test/slos/slo-samples.test.js',
      'test/db/create-collections.test.js' // a stand-in database
    ]
  },
  // the suite's database (test/helpers/global-setup.js): the app on it, the jobs over it, the commands run against it
  database: {
    database: true,
    include: [
      'test/routes/**/*.test.js',
      'test/access-log.test.js',
      'test/deploy/shard.test.js',
      'test/docs/openapi.test.js',
      'test/docs/readme-examples.test.js',
      'test/conformance/**/*.test.js',
      'test/graphite/distribution-leaves.test.js',
      'test/graphite/gauge-leaves.test.js',
      'test/shutdown-listener.test.js',
      'test/statsd/default-listener.test.js',
      'test/graphite/graphite-routes.test.js',
      'test/graphite/hostile-reads.test.js',
      'test/graphite/tag-api.test.js',
      'test/jobs/check-command.test.js',
      'test/jobs/check-run.test.js',
      'test/jobs/distribution-check-run.test.js',
      'test/jobs/distribution-minutes-retention.test.js',
      'test/jobs/distribution-retention.test.js',
      'test/jobs/gauge-retention.test.js',
      'test/jobs/lease.test.js',
      'test/jobs/minute-histogram-check.test.js',
      'test/jobs/retention-command.test.js',
      'test/jobs/retention-job.test.js',
      'test/jobs/retention-plugin.test.js',
      'test/plugins/**/*.test.js',
      'test/property/distribution-lifecycle.property.test.js',
      'test/property/distribution-minutes-lifecycle.property.test.js',
      'test/property/gauge-lifecycle.property.test.js',
      'test/property/gauge.property.test.js',
      'test/property/lifecycle.property.test.js',
      'test/reader/documents.test.js',
      'test/reader/unreadable-kind.test.js',
      'test/registry/metric-deletion.test.js',
      'test/registry/delete-written-again.test.js',
      'test/registry/name-index-added.test.js',
      'test/scripts/bench/bench-cardinality.test.js',
      'test/scripts/bench/bench-tags.test.js',
      'test/scripts/bench/bench-slos.test.js',
      'test/scripts/bench/bench-timers.test.js',
      'test/scripts/loadgen/loadgen-run.test.js',
      'test/security/access.test.js',
      'test/security/limits.test.js',
      'test/security/redaction-and-rate-limit.test.js',
      'test/statsd/door-policy.test.js',
      'test/statsd/hostile-lines.test.js',
      'test/statsd/listeners.test.js',
      'test/statsd/timer-percentiles.test.js',
      'test/tags/tagged-reads.test.js',
      'test/tags/tagged-kinds.test.js',
      'test/tags/tagged-reads-io.test.js',
      'test/tags/declared-rollups.test.js',
      'test/otlp/sdk-clients.test.js',
      'test/otlp/otlp-door.test.js',
      'test/slos/slo-reports.test.js',
      'test/slos/slo-metrics.test.js',
      'test/slos/slo-summaries-together.test.js',
      'test/slos/slo-put-yaml.test.js',
      'test/slos/slo-zones.test.js',
      'test/slos/slo-alert-rules.test.js',
      'test/slos/slo-grafana.test.js',
      'test/slos/slo-report.property.test.js',
      'test/slos/slo-latency.test.js',
      'test/db/collections-plugin.test.js'
    ],
    exclude: ['test/routes/ingest-reply.test.js']
  },
  // processes and databases of their own (test/faults/harness.js): the fault tests, the commands' and the server's starts
  faults: {
    include: [
      'test/faults/**/*.test.js',
      'test/db/**/*.test.js',
      'test/cli.test.js',
      'test/config.test.js',
      'test/heap-growth.test.js',
      'test/startup-failure.test.js',
      'test/deploy/docker.test.js',
      'test/docs/citations.test.js',
      'test/docs/folder-map.test.js',
      'test/docs/sizes.test.js',
      'test/scripts/bench/bench-args.test.js',
      'test/scripts/loadgen/args.test.js',
      'test/security/fuzz-cli.test.js'
    ],
    exclude: ['test/faults/writer-overload.test.js', 'test/db/create-collections.test.js', 'test/db/collections-plugin.test.js']
  },
  // the dashboard's page in headless Chromium, on the suite's database
  browser: {
    database: true,
    include: ['test/dashboard/dashboard.test.js', 'test/dashboard/dashboard-tags.test.js', 'test/dashboard/dashboard-slos.test.js', 'test/dashboard/dashboard-listing.test.js']
  },
  // the graphite-web oracle and the Python StatsD client (venvs from PyPI), on the suite's database
  oracle: {
    database: true,
    include: ['test/graphite/render-oracle.test.js', 'test/graphite/tags-oracle.test.js', 'test/statsd/python-client.test.js', 'test/slos/slo-alert-rules-oracle.test.js']
  }
}

const shared = {
  testTimeout: 30_000,
  hookTimeout: 180_000,
  pool: 'forks'
}

export default defineConfig({
  test: {
    projects: Object.entries(PROJECTS).map(([name, p]) => ({
      test: {
        ...shared,
        name,
        include: p.include,
        exclude: ['**/node_modules/**', ...(p.exclude ?? [])],
        // the one database of the run: started once for every project that needs it (global-setup.js), never for the others
        globalSetup: p.database ? ['test/helpers/global-setup.js'] : []
      }
    }))
  }
})
