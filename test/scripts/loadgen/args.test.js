// Command line of the load generator: a bad flag is a message and exit code 2.
import { describe, expect, it } from 'vitest'
import { runNode as run } from '../../helpers/run-node.js'
import { UsageError } from '../../../src/cli.js'
import { parseLoadgenArgs } from '../../../scripts/loadgen/args.js'

const NOW = Date.UTC(2026, 10, 21, 14, 30)
const parse = (...argv) => parseLoadgenArgs(argv, { now: NOW })

describe('parseLoadgenArgs', () => {
  it('has defaults for the talk\'s experiment', () => {
    const o = parse('--url', 'http://127.0.0.1:3000')
    expect(o).toMatchObject({
      target: 'http',
      speedup: 300,
      simMinutes: 1450,
      metrics: 100,
      concurrency: 8,
      batch: 100,
      oooFraction: 0,
      oooWindowMs: 3_600_000,
      compareOoo: false,
      layout: null,
      metricPrefix: 'lg.',
      seed: 1
    })
    expect(o.start).toBe(Date.UTC(2026, 10, 20)) // a day and 10 minutes ending before now
    expect(o.realRunMs).toBe(290_000)
    expect(parse('--mongodb', 'mongodb://h').batch).toBe(1)
    expect(parse('--mongodb', 'mongodb://h', '--coalesce').batch).toBe(100)
    expect(parse('--mongodb', 'mongodb://h', '--seconds', '2').spanMs).toBe(600_000)
    expect(parse('--url', 'http://a').warmupSeconds).toBe(2)
    expect(parse('--url', 'http://a', '--warmup', '0').warmupSeconds).toBe(0)
  })

  it.each([
    [[], /exactly one target/],
    [['--url', 'http://a', '--mongodb', 'mongodb://b'], /exactly one target/],
    [['--url', 'http://a', '--bogus'], /Unknown option '--bogus'/],
    [['--url', 'ftp://a'], /http/],
    [['--mongodb', 'http://a'], /mongodb:\/\//],
    [['--url', 'http://a', '--speedup', '0'], /--speedup must be a number from/],
    [['--url', 'http://a', '--speedup', 'fast'], /--speedup/],
    [['--url', 'http://a', '--metrics', '1.5'], /--metrics must be a whole number/],
    [['--url', 'http://a', '--concurrency', '0'], /--concurrency/],
    [['--url', 'http://a', '--sim-minutes', '10', '--seconds', '3'], /not both/],
    [['--url', 'http://a', '--layout', 'wide'], /--layout must be flat or hierarchical/],
    [['--url', 'http://a', '--prealloc', '0'], /server setting .*PREALLOC_PROBABILITY/],
    [['--url', 'http://a', '--coalesce'], /--coalesce applies to --mongodb only/],
    [['--mongodb', 'mongodb://h', '--batch', '10'], /--batch applies to --url and --coalesce/],
    [['--url', 'http://a', '--out-of-order', '1.5'], /--out-of-order/],
    [['--url', 'http://a', '--ooo-window', '3 weeks'], /--ooo-window must be a duration/],
    [['--url', 'http://a', '--compare-ooo'], /--compare-ooo needs --out-of-order/],
    [['--url', 'http://a', '--start', 'noon'], /--start must be/],
    [['--url', 'http://a', '--start', '2026-11-21T14:00:00Z'], /after now/],
    [['--url', 'http://a', '--start', '2024-01-01'], /MAX_AGE_DAYS \(400\)/],
    [['--url', 'http://a', '--speedup', '1', '--sim-minutes', '2000'], /at most 86400 s/],
    [['--url', 'http://a', '--metric-prefix', 'a b'], /--metric-prefix/],
    [['--url', 'http://a', '--report', 'x.png'], /--report must name a \.html or \.svg/],
    [['--mongodb', 'mongodb://h', '--db', 'a.b'], /--db is not a valid database name/],
    [['--url', 'http://a', '--warmup', '-1'], /--warmup/]
  ])('refuses %j', (argv, message) => {
    expect(() => parse(...argv)).toThrow(UsageError)
    expect(() => parse(...argv)).toThrow(message)
  })

  it('takes the window from --start and the server\'s --max-age-days', () => {
    expect(parse('--url', 'http://a', '--start', '23:50', '--sim-minutes', '20').start).toBe(Date.UTC(2026, 10, 20, 23, 50))
    expect(() => parse('--url', 'http://a', '--start', '2026-01-01', '--max-age-days', '30')).toThrow(/MAX_AGE_DAYS \(30\)/)
    // --mongodb has no service window
    expect(parse('--mongodb', 'mongodb://h', '--start', '2020-01-01').start).toBe(Date.UTC(2020, 0, 1))
  })

  it('writes a report named by a bare file name under reports/ (ignored by git), a path as given', () => {
    expect(parse('--url', 'http://a', '--report', 'midnight.svg').report).toBe('reports/midnight.svg')
    expect(parse('--url', 'http://a', '--report', './midnight.svg').report).toBe('./midnight.svg')
    expect(parse('--url', 'http://a', '--report', '/tmp/x/flat.html').report).toBe('/tmp/x/flat.html')
    expect(parse('--url', 'http://a').report).toBe(null)
  })
})

describe('the loadgen command', () => {
  it('loadgen exits 2 with a message on a bad flag, 0 on --help', async () => {
    const bad = await run('scripts/loadgen/loadgen.js', ['--url', 'http://127.0.0.1:9', '--concurrency', 'many'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/loadgen: --concurrency must be a whole number/)
    expect(bad.stderr).toMatch(/--help/)
    const unknown = await run('scripts/loadgen/loadgen.js', ['--nope'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(/Unknown option '--nope'/)
    const help = await run('scripts/loadgen/loadgen.js', ['--help'])
    expect(help.code).toBe(0)
    expect(help.stdout).toMatch(/--speedup N/)
  })

  it('loadgen exits 1 with a message when the target does not answer', async () => {
    const down = await run('scripts/loadgen/loadgen.js', ['--url', 'http://127.0.0.1:9', '--seconds', '1'])
    expect(down.code).toBe(1)
    expect(down.stderr).toMatch(/not ready: GET \/readyz/)
  })
})
