// CPU time of another process (the embedded database's), read from /proc:
// the bench's sections report the database's CPU per event beside the
// service's where they know its pid (Linux, embedded database).
import fs from 'node:fs'
import { procStatTicks } from './statsd-figures.js'

/** CPU time (user + system) of process `pid` in ms (clock ticks of 10 ms), or null (no pid, not Linux) */
export function procCpuMs (pid) {
  let text = null
  try { text = pid ? fs.readFileSync(`/proc/${pid}/stat`, 'utf8') : null } catch {}
  const ticks = text ? procStatTicks(text) : null
  return ticks === null ? null : ticks * 10
}
