// What the tests against graphite-web share (render-oracle.test.js,
// tags-oracle.test.js): graphite-web 1.1.10 run in-process
// (scripts/graphite-oracle/oracle.py) over whisper files built from the same
// events, its venv created when missing; the clock and the seeded days of
// events; statbucket's app on that clock with the events posted; the
// comparison of two renders, tags included.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect } from 'vitest'
import { manualClock } from '../../src/clock.js'
import { testApp } from '../helpers/test-app.js'

const ORACLE_DIR = fileURLToPath(new URL('../../scripts/graphite-oracle/', import.meta.url))

export function oracleVenv () {
  return execFileSync(join(ORACLE_DIR, 'setup-venv.sh'), { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim()
}

/**
 * events: [{ metric, value, time (ms) }]; requests: [{ path, params: [[k, v]] }];
 * minuteFrom: statbucket's minute horizon (ms), for whisper files with its three tiers as archives,
 * chosen by age from `now` (epoch seconds, the requests' now)
 * → [{ status, body }]
 */
export function askGraphiteWeb (venv, events, requests, { minuteFrom, now } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'statbucket-oracle-spec-'))
  try {
    const spec = join(dir, 'spec.json')
    writeFileSync(spec, JSON.stringify({ events, requests, minuteFrom, now }))
    const out = execFileSync(join(venv, 'bin', 'python'), [join(ORACLE_DIR, 'oracle.py'), spec], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] })
    return JSON.parse(out)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

// 2025-03-10T09:00:30Z. Days with events: 03-08 and 03-10 (until now); 03-09 has none (null).
export const NOW = Date.UTC(2025, 2, 10, 9, 0, 30)
export const NOW_S = NOW / 1000
const DAYS = [Date.UTC(2025, 2, 8), Date.UTC(2025, 2, 10)]

/** A seeded random number generator in [0, 1): the same events on every run */
export function seededRandom (seed) {
  let state = seed
  return () => { state = (state * 1103515245 + 12345) % 2147483648; return state / 2147483648 }
}

/** The i-th event's time: on the two days in turn, the day of now until its ninth hour */
export function eventTime (random, i) {
  const day = DAYS[i % 2]
  const span = day === DAYS[1] ? 9 * 3_600_000 : 86_400_000
  return day + Math.floor(random() * span)
}

/** Parameters ([[k, v]]) URL-encoded */
export const form = params => params.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')

/** statbucket on the oracles' clock, no preallocation (env on top), with each body of `bodies` posted to /v1/events */
export async function oracleApp (label, bodies, env = {}) {
  const app = await testApp(label, { clock: manualClock(NOW), env: { PREALLOC_PROBABILITY: '0', ...env } })
  for (const body of bodies) {
    const res = await app.inject({ method: 'POST', url: '/v1/events', payload: body })
    expect(res.statusCode, res.body).toBe(200)
  }
  return app
}

/**
 * graphite-web's tags of a target it was asked wrapped in consolidateBy(…,
 * "sum") where statbucket sums without one: the tag that call adds left out
 */
export const withoutConsolidateBy = ({ consolidateBy, ...tags }) => tags

/**
 * Two renders equal but for float rounding in the last bits: targets
 * (theirName: ours as graphite-web names it), tags (theirTags: graphite-web's
 * as ours should be), timestamps, nulls and values
 */
export function expectSameRender (ours, theirs, label, { theirName = name => name, theirTags = tags => tags } = {}) {
  expect(ours.map(s => theirName(s.target)), label).toEqual(theirs.map(s => s.target))
  ours.forEach((series, i) => {
    expect(series.tags, `${label} ${series.target} tags`).toEqual(theirTags(theirs[i].tags))
    const expected = theirs[i].datapoints
    expect(series.datapoints.map(p => p[1]), `${label} ${series.target} timestamps`).toEqual(expected.map(p => p[1]))
    expect(series.datapoints.map(p => p[0] === null), `${label} ${series.target} nulls`).toEqual(expected.map(p => p[0] === null))
    series.datapoints.forEach(([v], k) => {
      if (v === null) return
      const e = expected[k][0]
      expect(Math.abs(v - e) <= 1e-9 * Math.max(1, Math.abs(e)), `${label} ${series.target} at ${expected[k][1]}: ${v} vs ${e}`).toBe(true)
    })
  })
}
