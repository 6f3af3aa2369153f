// Runs graphite-web 1.1.10 in-process (scripts/graphite-oracle/oracle.py) over
// whisper files built from the same events, creating its venv when missing.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

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
