// The environment heading a bench report test renders (scripts/bench/bench-report.js):
// a fixed machine and versions, with what a test needs to differ.
export function benchEnv (overrides = {}) {
  return {
    date: '2026-11-21T14:00:00Z',
    command: 'npm run bench',
    machine: { cpu: 'Test CPU', cores: 2, memoryGiB: '8.0', os: 'Linux test', loadAverage: 0.25 },
    node: 'v20.20.2',
    statbucket: '0.1.0',
    driver: '6.22.0',
    fastify: '5.0.0',
    autocannon: '8.0.0',
    backend: { description: 'mongo-java-server 1.47.0 (embedded)' },
    scale: { description: 'small: scaled down' },
    service: 'defaults',
    ...overrides
  }
}
