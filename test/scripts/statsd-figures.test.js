// The statsd bench phase's arithmetic and parsing (scripts/lib/statsd-figures.js).
import { describe, expect, it } from 'vitest'
import { counterBy, counterDelta, machineTicks, procStatTicks, runFigures, udpCounters } from '../../scripts/lib/statsd-figures.js'

describe('statsd bench figures', () => {
  it('reads counters by label from Prometheus text, and their change', () => {
    const before = '# HELP x\nstatbucket_statsd_dropped_total{reason="gauge"} 3\nstatbucket_statsd_dropped_total{reason="set"} 1\nother_total 9\n'
    const after = 'statbucket_statsd_dropped_total{reason="gauge"} 5\nstatbucket_statsd_dropped_total{reason="set"} 1\nstatbucket_statsd_dropped_total{reason="overload"} 7\n'
    const b = counterBy(before, 'statbucket_statsd_dropped_total', 'reason')
    const a = counterBy(after, 'statbucket_statsd_dropped_total', 'reason')
    expect(b).toEqual({ gauge: 3, set: 1 })
    expect(counterDelta(b, a)).toEqual({ gauge: 2, overload: 7 })
  })

  it('reads CPU ticks from /proc, a command name with spaces and parentheses included', () => {
    const stat = '1234 (node (x) y) S 1 2 3 4 5 6 7 8 9 10 250 75 0 0 20 0'
    expect(procStatTicks(stat)).toBe(325)
    expect(machineTicks('cpu  100 5 50 800 10 2 3 0\ncpu0 1 2 3\n')).toEqual({ busy: 160, total: 970 })
    expect(udpCounters('Udp: InDatagrams NoPorts RcvbufErrors\nUdp: 10 2 4\n')).toEqual({ InDatagrams: 10, NoPorts: 2, RcvbufErrors: 4 })
  })

  it('derives loss, rates and CPU per line from what was measured', () => {
    const f = runFigures({ sent: 1000, stored: 990, settled: 980, sendSeconds: 2, appliedSeconds: 2.5, serviceCpuMs: 500 })
    expect(f).toMatchObject({ lost: 10, lossPct: 1, sentPerS: 500, appliedPerS: 392, serviceCores: 0.2, cpuUsPerLine: 500 * 1000 / 980, linesPerCoreS: 1960 })
    expect(runFigures({ sent: 10, stored: null, sendSeconds: 1, appliedSeconds: 1, serviceCpuMs: null })).toMatchObject({ lost: null, lossPct: null, cpuUsPerLine: null })
  })
})
