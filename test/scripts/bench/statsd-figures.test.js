// The statsd section's arithmetic and the text it reads (pure).
import { describe, expect, it } from 'vitest'
import { counterBy, counterDelta, machineTicks, procStatTicks, promSamples, runFigures, udpCounters } from '../../../scripts/bench/statsd-figures.js'

const PROM = `# HELP statbucket_statsd_received_total StatsD values read
# TYPE statbucket_statsd_received_total counter
statbucket_statsd_received_total{transport="tcp"} 1005000
statbucket_statsd_received_total{transport="udp"} 250
# TYPE statbucket_statsd_dropped_total counter
statbucket_statsd_dropped_total{reason="overload"} 12
statbucket_statsd_dropped_total{reason="gauge"} 3
statbucket_statsd_dropped_total_extra{reason="x"} 99
process_cpu_seconds_total 4.5
`

describe('Prometheus text', () => {
  it('reads one counter by label, and nothing of counters whose name only starts the same', () => {
    expect(counterBy(PROM, 'statbucket_statsd_received_total', 'transport')).toEqual({ tcp: 1005000, udp: 250 })
    expect(counterBy(PROM, 'statbucket_statsd_dropped_total', 'reason')).toEqual({ overload: 12, gauge: 3 })
    expect(promSamples(PROM, 'process_cpu_seconds_total')).toEqual([{ labels: {}, value: 4.5 }])
    expect(counterBy('', 'statbucket_statsd_dropped_total', 'reason')).toEqual({})
  })

  it('subtracts two readings, leaving out what did not move', () => {
    expect(counterDelta({ overload: 2, gauge: 3 }, { overload: 12, gauge: 3, tags: 1 })).toEqual({ overload: 10, tags: 1 })
  })
})

describe('/proc', () => {
  it('reads a process\'s CPU ticks, whatever its command name holds', () => {
    const fields = Array.from({ length: 50 }, (_, i) => String(i + 3)) // fields 3…52
    fields[11] = '250' // utime, field 14
    fields[12] = '40' // stime, field 15
    expect(procStatTicks(`1234 (node (x) y) ${fields.join(' ')}`)).toBe(290)
  })

  it('reads the machine\'s busy and total ticks', () => {
    expect(machineTicks('cpu  100 5 50 800 20 1 4 0 0 0\ncpu0 1 2 3 4 5 6 7 8\n')).toEqual({ busy: 160, total: 980 })
    expect(machineTicks('nothing')).toBeNull()
  })

  it('reads the host\'s UDP counters', () => {
    const snmp = 'Tcp: RtoAlgorithm RtoMin\nTcp: 1 200\nUdp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors\nUdp: 900 1 7 950 7 0\n'
    expect(udpCounters(snmp)).toMatchObject({ InDatagrams: 900, RcvbufErrors: 7 })
    expect(udpCounters('')).toBeNull()
  })
})

describe('runFigures', () => {
  it('derives rates, loss and CPU per line from what was measured', () => {
    const f = runFigures({ sent: 1_000_000, stored: 990_000, settled: 980_000, sendSeconds: 2, appliedSeconds: 2.45, serviceCpuMs: 1225 })
    expect(f.lost).toBe(10_000)
    expect(f.lossPct).toBe(1)
    expect(f.sentPerS).toBe(500_000)
    expect(f.appliedPerS).toBe(400_000) // the lines applied when the sum stopped changing, over that time
    expect(f.serviceCores).toBeCloseTo(0.5, 12)
    expect(f.cpuUsPerLine).toBeCloseTo(1.25, 12)
    // applied lines/s ÷ service cores = lines per CPU second
    expect(f.linesPerCoreS).toBeCloseTo(f.appliedPerS / f.serviceCores, 6)
    expect(f.linesPerCoreS).toBe(800_000)
  })

  it('says n/a (null) rather than divide by nothing, and shows a surplus as negative loss', () => {
    const f = runFigures({ sent: 0, stored: 0, sendSeconds: 0, appliedSeconds: 0, serviceCpuMs: 0 })
    expect([f.lossPct, f.sentPerS, f.appliedPerS, f.cpuUsPerLine, f.linesPerCoreS]).toEqual([null, null, null, null, null])
    expect(runFigures({ sent: 10, stored: 12, sendSeconds: 1, appliedSeconds: 1, serviceCpuMs: null }).lost).toBe(-2)
  })
})
