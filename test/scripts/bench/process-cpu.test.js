// The CPU time of another process, read from /proc (the bench's database CPU figures).
import { describe, expect, it } from 'vitest'
import { procCpuMs } from '../../../scripts/bench/process-cpu.js'

describe('procCpuMs', () => {
  it('reads a live process\'s CPU time, which grows as it works', () => {
    const before = procCpuMs(process.pid)
    expect(before).toBeGreaterThanOrEqual(0)
    const until = process.cpuUsage().user + 60_000 // 60 ms of this process's own CPU (µs), at least 6 clock ticks
    let spin = 0
    while (process.cpuUsage().user < until) spin++
    expect(spin).toBeGreaterThan(0)
    expect(procCpuMs(process.pid)).toBeGreaterThan(before)
  })

  it('is null without a pid or for a process that is not there', () => {
    expect(procCpuMs(null)).toBeNull()
    expect(procCpuMs(2 ** 30)).toBeNull()
  })
})
