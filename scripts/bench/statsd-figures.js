// The statsd phase's arithmetic and the text it reads (Prometheus exposition,
// /proc), pure: ./bench-statsd.js measures, this derives.

const isNum = v => typeof v === 'number' && Number.isFinite(v)

const SAMPLE_RE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/
const LABEL_RE = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g

/** The samples of one metric in Prometheus text → [{ labels: { name: value }, value }] */
export function promSamples (text, name) {
  const out = []
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue
    const m = SAMPLE_RE.exec(line)
    if (!m || m[1] !== name) continue
    const labels = {}
    for (const [, k, v] of (m[2] ?? '').matchAll(LABEL_RE)) labels[k] = v.replace(/\\(.)/g, (_, c) => (c === 'n' ? '\n' : c))
    out.push({ labels, value: Number(m[3]) })
  }
  return out
}

/** One label's values of a counter → { [labelValue]: value } */
export function counterBy (text, name, label) {
  const out = {}
  for (const s of promSamples(text, name)) {
    const key = s.labels[label] ?? ''
    out[key] = (out[key] ?? 0) + s.value
  }
  return out
}

/** after − before per key, keys that did not move left out */
export function counterDelta (before, after) {
  const out = {}
  for (const [k, v] of Object.entries(after)) {
    const d = v - (before[k] ?? 0)
    if (d !== 0) out[k] = d
  }
  return out
}

/** /proc/<pid>/stat → CPU time (user + system) in clock ticks, or null */
export function procStatTicks (text) {
  // the command name (field 2) may hold spaces and parentheses: count fields after the last ')'
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ')
  const utime = Number(rest[11]) // field 14
  const stime = Number(rest[12]) // field 15
  return isNum(utime) && isNum(stime) ? utime + stime : null
}

/** /proc/stat → the machine's { busy, total } clock ticks over all CPUs */
export function machineTicks (text) {
  const line = text.split('\n').find(l => l.startsWith('cpu '))
  if (!line) return null
  const [user, nice, system, idle, iowait, irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number)
  const total = user + nice + system + idle + iowait + irq + softirq + (steal || 0)
  return { busy: total - idle - iowait, total }
}

/** /proc/net/snmp → the host's UDP counters { InDatagrams, RcvbufErrors, … }, or null */
export function udpCounters (text) {
  const lines = text.split('\n').filter(l => l.startsWith('Udp:'))
  if (lines.length < 2) return null
  const names = lines[0].split(/\s+/).slice(1)
  const values = lines[1].split(/\s+/).slice(1).map(Number)
  return Object.fromEntries(names.map((n, i) => [n, values[i]]))
}

/**
 * One transport's run, from what was measured:
 *   sent: lines the clients sent; stored: their sum in the database once the
 *   service drained (the loss); settled: the sum when it stopped changing
 *   before that (the rate and the CPU are over the lines applied by then);
 *   sendSeconds: from go to the last client's close; appliedSeconds: from go
 *   until the sum last changed; serviceCpuMs: the service's CPU over that.
 */
export function runFigures ({ sent, stored, settled = stored, sendSeconds, appliedSeconds, serviceCpuMs }) {
  const lost = isNum(sent) && isNum(stored) ? sent - stored : null
  const cpuS = isNum(serviceCpuMs) ? serviceCpuMs / 1000 : null
  return {
    sent,
    stored,
    lost,
    lossPct: isNum(lost) && sent > 0 ? (lost / sent) * 100 : null,
    sentPerS: sendSeconds > 0 ? sent / sendSeconds : null,
    appliedPerS: appliedSeconds > 0 ? settled / appliedSeconds : null,
    sendSeconds,
    appliedSeconds,
    serviceCpuMs,
    serviceCores: isNum(cpuS) && appliedSeconds > 0 ? cpuS / appliedSeconds : null,
    cpuUsPerLine: isNum(cpuS) && settled > 0 ? (cpuS * 1e6) / settled : null,
    // applied lines/s ÷ cores used = lines applied per second of service CPU
    linesPerCoreS: cpuS > 0 ? settled / cpuS : null
  }
}
