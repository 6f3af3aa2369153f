// One drain per process (src/shutdown.js) with the process and the app
// faked: repeated SIGTERMs are logged and ignored, and so are the SIGINTs
// of one Ctrl-C (within 1 s); a Ctrl-C later or a
// SIGQUIT forces the exit, answering what is still queued 503 and naming it,
// and a drain that ends exits 0 after the "closed" line.
import { EventEmitter } from 'node:events'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { installShutdown } from '../src/shutdown.js'

function fakes ({ closes = new Promise(() => {}), now = () => Date.now() } = {}) {
  const proc = Object.assign(new EventEmitter(), { exit: vi.fn() })
  const lines = []
  const log = { info: (o, msg) => lines.push(['info', msg]), error: (o, msg) => lines.push(['error', msg]) }
  const app = {
    server: { listening: false },
    beginDrain: vi.fn(),
    close: vi.fn(() => closes),
    telemetry: { subscribe () {} },
    writer: {
      stats: () => ({ pendingEvents: 12, queuedUnits: 3 }),
      abandon: vi.fn(() => ({ events: 12, units: 3 }))
    }
  }
  installShutdown({ app, log, graceMs: 500, drainTimeoutMs: 60_000, proc, now })
  return { proc, log, lines, app }
}

beforeEach(() => { vi.useFakeTimers() })
afterEach(() => { vi.useRealTimers() })

describe('shutdown', () => {
  it('drains once: a repeated SIGTERM is logged and ignored; a second Ctrl-C forces the exit, answering the queued 503', async () => {
    const { proc, lines, app } = fakes()
    proc.emit('SIGTERM', 'SIGTERM')
    proc.emit('SIGTERM', 'SIGTERM')
    await vi.advanceTimersByTimeAsync(1000)
    expect(app.beginDrain).toHaveBeenCalledTimes(1)
    expect(app.close).toHaveBeenCalledTimes(1)
    expect(lines.filter(([, m]) => /^shutting down on SIGTERM/.test(m))).toHaveLength(1)
    expect(lines.filter(([, m]) => m === 'SIGTERM again while shutting down: ignored (a second Ctrl-C or SIGQUIT forces the exit)')).toHaveLength(1)
    expect(proc.exit).not.toHaveBeenCalled()

    proc.emit('SIGINT', 'SIGINT')
    expect(app.writer.abandon).toHaveBeenCalledTimes(1)
    expect(lines.at(-1)).toEqual(['error', 'forced exit (SIGINT): 12 queued events of 3 requests were not written (answered 503)'])
    await vi.advanceTimersByTimeAsync(200)
    expect(proc.exit).toHaveBeenCalledWith(1)
  })

  it('one Ctrl-C under npm start (SIGINT twice at once: the terminal\'s and npm\'s) is one drain that exits 0; a Ctrl-C 1 s later forces', async () => {
    // the drain's own clock is Date.now(), faked: time moves only when the test says
    let release
    const { proc, lines, app } = fakes({ closes: new Promise(resolve => { release = resolve }) })
    proc.emit('SIGINT', 'SIGINT')
    proc.emit('SIGINT', 'SIGINT')
    await vi.advanceTimersByTimeAsync(999)
    proc.emit('SIGINT', 'SIGINT') // a copy delayed by a busy machine: still the same press
    expect(app.beginDrain).toHaveBeenCalledTimes(1)
    expect(app.writer.abandon).not.toHaveBeenCalled()
    expect(lines.filter(([, m]) => /^shutting down on SIGINT/.test(m))).toHaveLength(1)
    expect(lines.filter(([, m]) => m === 'SIGINT again within 1000 ms of the first signal: the same Ctrl-C (npm passes it on too), ignored; press Ctrl-C again to force the exit')).toHaveLength(2)
    release()
    await vi.advanceTimersByTimeAsync(1)
    expect(lines.at(-1)).toEqual(['info', 'closed: flushed 0 events after the signal; every request received was answered'])
    expect(proc.exit).toHaveBeenCalledWith(0)

    // a drain that hangs: the user presses again, later
    const hung = fakes()
    hung.proc.emit('SIGINT', 'SIGINT')
    hung.proc.emit('SIGINT', 'SIGINT')
    await vi.advanceTimersByTimeAsync(1000)
    expect(hung.app.writer.abandon).not.toHaveBeenCalled()
    hung.proc.emit('SIGINT', 'SIGINT')
    expect(hung.app.writer.abandon).toHaveBeenCalledTimes(1)
    expect(hung.lines.at(-1)).toEqual(['error', 'forced exit (SIGINT): 12 queued events of 3 requests were not written (answered 503)'])
    await vi.advanceTimersByTimeAsync(200)
    expect(hung.proc.exit).toHaveBeenCalledWith(1)
  })

  it('a SIGQUIT forces the exit at once', async () => {
    const { proc, app } = fakes()
    proc.emit('SIGQUIT', 'SIGQUIT')
    expect(app.beginDrain).not.toHaveBeenCalled()
    expect(app.writer.abandon).toHaveBeenCalledTimes(1)
    await vi.advanceTimersByTimeAsync(200)
    expect(proc.exit).toHaveBeenCalledWith(1)
  })

  it('a drain that ends logs "closed" and exits 0', async () => {
    const { proc, lines } = fakes({ closes: Promise.resolve() })
    proc.emit('SIGTERM', 'SIGTERM')
    await vi.advanceTimersByTimeAsync(600)
    expect(lines.at(-1)).toEqual(['info', 'closed: flushed 0 events after the signal; every request received was answered'])
    expect(proc.exit).toHaveBeenCalledWith(0)
  })
})
