// The browser the dashboard's tests drive: Debian's `chromium` (or
// CHROMIUM_PATH), headless, with the flags they share.
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'

export const CHROMIUM_FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--no-first-run', '--disable-sync'
]

/** The browser's path, or null where there is none */
export function findChromium () {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH
  if (existsSync('/usr/bin/chromium')) return '/usr/bin/chromium'
  try {
    return execFileSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], { encoding: 'utf8' }).trim() || null
  } catch {
    return null
  }
}
