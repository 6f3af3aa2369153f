// The summary of a load run: the figures the talk is about, as data and as
// text. Pure.
import { percentile } from '../shared/workload.js'
import { endOfDayRatio, midnightDip, outOfOrderCost, rateOf } from './minute-stats.js'

// Fewer requests than this per simulated minute make per-minute rates noisy.
export const NOISY_BELOW = 20

const iso = ms => new Date(ms).toISOString().slice(0, 16).replace('T', ' ')
const n0 = v => Math.round(v).toLocaleString('en-US')
const r2 = v => (v === null || v === undefined ? null : Math.round(v * 1000) / 1000)

/** Figures of one phase (a runPhase result) */
export function phaseFigures (result) {
  const { rows, totals, latencies, realMs } = result
  return {
    simStart: result.simStart,
    simEnd: result.simEnd,
    realSeconds: realMs / 1000,
    acked: totals.acked,
    failed: { rejected: totals.rejected, notApplied: totals.not_applied, notReached: totals.not_reached, unknown: totals.unknown },
    requests: totals.requests,
    eventsPerS: rateOf(rows),
    latencyMs: { p50: percentile(latencies, 50), p99: percentile(latencies, 99) },
    endOfDay: endOfDayRatio(rows),
    midnight: midnightDip(rows),
    requestsPerMinute: rows.length ? totals.requests / rows.length : 0
  }
}

/**
 * phases: [{ phase, oooFraction, result }] → the run's summary. With two
 * phases (--compare-ooo) the first has no out-of-order events.
 */
export function summarize (phases, run) {
  const figures = phases.map(p => ({ phase: p.phase, oooFraction: p.oooFraction, ...phaseFigures(p.result) }))
  const main = figures.at(-1)
  const ooo = figures.length === 2
    ? { ratio: outOfOrderCost(figures[1].eventsPerS, figures[0].eventsPerS), fraction: figures[1].oooFraction, with: figures[1].eventsPerS, without: figures[0].eventsPerS }
    : { ratio: null, reason: 'not asked: use --out-of-order F --compare-ooo' }
  return {
    run,
    phases: figures,
    endOfDayRatio: r2(main.endOfDay.ratio),
    midnightDip: r2(main.midnight.ratio),
    outOfOrderCost: r2(ooo.ratio),
    details: { endOfDay: main.endOfDay, midnight: main.midnight, outOfOrder: ooo }
  }
}

function phaseLine (f) {
  const failed = f.failed.rejected + f.failed.notApplied + f.failed.notReached + f.failed.unknown
  return [
    `  ${f.phase}: simulated ${iso(f.simStart)} → ${iso(f.simEnd)} UTC in ${f.realSeconds.toFixed(1)} s real`,
    `    events acknowledged ${n0(f.acked)} (${f.eventsPerS === null ? 'n/a' : n0(f.eventsPerS)} events/s), failed ${n0(failed)}` +
      (failed ? ` (rejected ${f.failed.rejected}, not applied ${f.failed.notApplied}, not reached ${f.failed.notReached}, unknown ${f.failed.unknown})` : ''),
    `    ack latency p50 ${f.latencyMs.p50?.toFixed(2) ?? 'n/a'} ms, p99 ${f.latencyMs.p99?.toFixed(2) ?? 'n/a'} ms`
  ].join('\n')
}

/** The summary as text for a terminal */
export function formatSummary (s) {
  const { run, details } = s
  const lines = [
    `loadgen → ${run.target}`,
    `  ${run.metrics} metrics, ${run.concurrency} workers, ${run.batch} event(s) per request, speedup ${run.speedup}×, preallocation ${run.prealloc}`
  ]
  for (const f of s.phases) lines.push(phaseLine(f))
  const eod = details.endOfDay
  lines.push(eod.ratio === null
    ? `end-of-day ratio: n/a (${eod.reason})`
    : `end-of-day ratio: ${s.endOfDayRatio.toFixed(3)} (events/s 23:00–24:00 ${n0(eod.lastHour)} ÷ 00:00–01:00 ${n0(eod.firstHour)}, ${iso(eod.day).slice(0, 10)})`)
  const dip = details.midnight
  lines.push(dip.ratio === null
    ? `midnight dip: n/a (${dip.reason})`
    : `midnight dip: ${s.midnightDip.toFixed(3)} (lowest events/s in the 3 minutes after ${iso(dip.midnight)} ${n0(dip.lowest)} ÷ run median ${n0(dip.median)})`)
  const ooo = details.outOfOrder
  lines.push(ooo.ratio === null
    ? `out-of-order cost: n/a (${ooo.reason ?? 'no events acknowledged'})`
    : `out-of-order cost: ${s.outOfOrderCost.toFixed(3)} (events/s with ${ooo.fraction} out of order ${n0(ooo.with)} ÷ with none ${n0(ooo.without)})`)
  const sparse = s.phases.filter(f => f.requestsPerMinute < NOISY_BELOW)
  if (sparse.length) {
    lines.push(`note: ${sparse.map(f => f.phase).join(', ')} averaged ${sparse.map(f => f.requestsPerMinute.toFixed(1)).join(', ')} requests per simulated minute: per-minute figures (dip, ratios) are noisy below ${NOISY_BELOW}; lower --speedup or --batch`)
  }
  if (run.statementsPerEvent !== undefined && run.statementsPerEvent !== null) lines.push(`update statements per event: ${run.statementsPerEvent.toFixed(4)}`)
  if (run.verify) lines.push(`verify: ${run.verify.ok ? 'ok' : 'FAILED'} — ${run.verify.message}`)
  if (run.csv) lines.push(`csv: ${run.csv}`)
  if (run.report) lines.push(`report: ${run.report}`)
  return lines.join('\n') + '\n'
}

/**
 * Whether every acknowledged event is in the database: the increase of the
 * day documents' and of the month documents' totals lies between the events
 * acknowledged and those plus the ones whose outcome is unknown (values are 1).
 */
export function verifyTotals ({ before, after, acked, unknown }) {
  const problems = []
  for (const kind of ['daily', 'monthly']) {
    const delta = after[kind] - before[kind]
    if (delta < acked) problems.push(`${kind} documents gained ${delta}, fewer than the ${acked} acknowledged events`)
    else if (delta > acked + unknown) problems.push(`${kind} documents gained ${delta}, more than the ${acked} acknowledged + ${unknown} unknown events`)
  }
  const gained = after.daily - before.daily
  return problems.length
    ? { ok: false, message: problems.join('; ') }
    : { ok: true, message: `${acked} acknowledged events, day documents +${gained}, month documents +${after.monthly - before.monthly}${unknown ? ` (${unknown} events of unknown outcome)` : ''}` }
}
