// Command line of the benchmark: a bad flag is a message and exit code 2.
import { describe, expect, it } from 'vitest'
import { runNode as run } from '../../helpers/run-node.js'
import { UsageError } from '../../../src/cli.js'
import { CARDINALITY_JAVA_HEAP, OPTIONAL_SECTIONS, TAGS_JAVA_HEAP, SCALES, SECTIONS, WITHOUT_DATABASE, chooseScale, javaHeapFor, parseBenchArgs } from '../../../scripts/bench/bench-args.js'

describe('parseBenchArgs', () => {
  it('defaults to every section at the scale the backend allows', () => {
    expect(parseBenchArgs([])).toEqual({ scale: 'auto', seconds: null, only: SECTIONS, talkSpeedup: 300, statsdClients: 2, wtScale: 'full', json: false, keep: false, writeDocs: false })
    expect(SECTIONS).not.toContain('talk')
    expect(SECTIONS).toContain('statsd')
    expect(parseBenchArgs(['--only', 'statsd', '--statsd-clients', '2'])).toMatchObject({ only: ['statsd'], statsdClients: 2 })
    expect(() => parseBenchArgs(['--statsd-clients', '0'])).toThrow(/--statsd-clients must be a whole number from 1 to 16/)
    expect(parseBenchArgs(['--only', 'talk', '--talk-speedup', '1500'])).toMatchObject({ only: ['talk'], talkSpeedup: 1500 })
    expect(parseBenchArgs(['--only', 'wiredtiger', '--wt-scale', 'quick'])).toMatchObject({ only: ['wiredtiger'], wtScale: 'quick' })
    expect(parseBenchArgs(['--only', 'reads,ingest', '--json', '--seconds', '5'])).toMatchObject({ only: ['reads', 'ingest'], json: true, seconds: 5 })
    expect(parseBenchArgs(['--only', 'statsd', '--statsd-clients', '1'])).toMatchObject({ only: ['statsd'], statsdClients: 1 })
    expect(chooseScale('auto', 'mongo-java-server')).toBe('small')
    expect(chooseScale('auto', 'mongod')).toBe('full')
    expect(chooseScale('quick', 'mongod')).toBe('quick')
  })

  it('runs the amplification section by default, with no database; --write-docs with --only for it alone', () => {
    expect(SECTIONS).toContain('amplification')
    expect(WITHOUT_DATABASE).toEqual(['wiredtiger', 'amplification'])
    expect(parseBenchArgs(['--write-docs'])).toMatchObject({ only: SECTIONS, writeDocs: true })
    expect(parseBenchArgs(['--only', 'amplification', '--write-docs'])).toMatchObject({ only: ['amplification'], writeDocs: true })
    expect(parseBenchArgs(['--only', 'otlp', '--write-docs'])).toMatchObject({ only: ['otlp'], writeDocs: true })
    expect(() => parseBenchArgs(['--only', 'ingest', '--write-docs'])).toThrow(/--write-docs records a run of the default sections/)
  })

  it('runs the cardinality section only when asked, at 1,000,000 metrics unless --scale quick, on a JVM heap that holds them', () => {
    expect(SECTIONS).not.toContain('cardinality')
    expect(OPTIONAL_SECTIONS).toContain('cardinality')
    expect(parseBenchArgs(['--only', 'cardinality', '--scale', 'quick'])).toMatchObject({ only: ['cardinality'], scale: 'quick' })
    // the substitute's auto scale (small) still holds the full registry: its size is the section's point
    expect(SCALES.small.cardinality).toMatchObject({ metrics: 1_000_000, busy: 10_000 })
    expect(SCALES.full.cardinality).toEqual(SCALES.small.cardinality)
    expect(SCALES.quick.cardinality).toMatchObject({ metrics: 20_000, busy: 200 })
    expect(javaHeapFor({ only: ['cardinality'], scale: 'auto' })).toBe(CARDINALITY_JAVA_HEAP)
    expect(javaHeapFor({ only: ['ingest', 'cardinality'], scale: 'full' })).toBe(CARDINALITY_JAVA_HEAP)
    expect(javaHeapFor({ only: ['cardinality'], scale: 'quick' })).toBeNull()
    expect(javaHeapFor({ only: SECTIONS, scale: 'auto' })).toBeNull()
  })

  it('runs the tags section only when asked, at 1,000,000 series unless --scale quick, on a JVM heap that holds them', () => {
    expect(SECTIONS).not.toContain('tags')
    expect(OPTIONAL_SECTIONS).toContain('tags')
    expect(parseBenchArgs(['--only', 'tags', '--scale', 'quick'])).toMatchObject({ only: ['tags'], scale: 'quick' })
    expect(SCALES.small.tags).toMatchObject({ names: 1000, combinations: 1000, busySeries: 10_000, topSeries: 10_000, topMonths: 12 })
    expect(SCALES.full.tags).toEqual(SCALES.small.tags)
    expect(SCALES.quick.tags.names * SCALES.quick.tags.combinations).toBeLessThan(10_000)
    expect(javaHeapFor({ only: ['tags'], scale: 'auto' })).toBe(TAGS_JAVA_HEAP)
    expect(javaHeapFor({ only: ['tags', 'cardinality'], scale: 'full' })).toBe(CARDINALITY_JAVA_HEAP)
    expect(javaHeapFor({ only: ['tags'], scale: 'quick' })).toBeNull()
  })

  it.each([
    [['--fast'], /Unknown option '--fast'/],
    [['--scale', 'huge'], /--scale must be/],
    [['--seconds', '0'], /--seconds must be/],
    [['--only', 'writes'], /--only takes/],
    [['--only', 'wiredtiger', '--wt-scale', 'huge'], /--wt-scale must be quick or full/],
    [['--talk-speedup', '5'], /--talk-speedup must be/],
    [['--statsd-clients', '0'], /--statsd-clients must be/],
    [['extra'], /positional/i]
  ])('refuses %j', (argv, message) => {
    expect(() => parseBenchArgs(argv)).toThrow(UsageError)
    expect(() => parseBenchArgs(argv)).toThrow(message)
  })
})

describe('the bench command', () => {
  it('bench exits 2 with a message on a bad flag, 0 on --help', async () => {
    const bad = await run('scripts/bench/bench.js', ['--scale', 'huge'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/bench: --scale must be/)
    const help = await run('scripts/bench/bench.js', ['--help'])
    expect(help.code).toBe(0)
    expect(help.stdout).toMatch(/--json/)
  })
})
