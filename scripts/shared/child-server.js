// The one launcher of statbucket child processes for the tools: the
// benchmark's server (scripts/bench/bench-server.js, which reports over IPC)
// and the fault tests' `node src/server.js` (which logs "listening at").
// Loopback only; every child is killed if this process exits first.
import { spawn } from 'node:child_process'
import dgram from 'node:dgram'
import fs from 'node:fs'
import net from 'node:net'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const children = new Set()
let exitHookInstalled = false

/** Resident memory of a process in KiB (Linux /proc), or null */
export function rssKb (pid) {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Number(m[1]) : null
  } catch {
    return null
  }
}

/**
 * A port of 127.0.0.1 free for both TCP and UDP now, for a child's
 * STATSD_PORT (STATSD_PORT=0 turns StatsD off, so a child cannot be asked
 * for any free port); another program may take it before the child does.
 */
export async function freeStatsdPort () {
  for (let attempt = 0; ; attempt++) {
    const server = net.createServer()
    const port = await new Promise((resolve, reject) => {
      server.once('error', reject)
      server.listen(0, '127.0.0.1', () => resolve(server.address().port))
    })
    const socket = dgram.createSocket('udp4')
    const udpFree = await new Promise(resolve => {
      socket.once('error', () => resolve(false))
      socket.bind({ port, address: '127.0.0.1', exclusive: true }, () => resolve(true))
    })
    await new Promise(resolve => socket.close(resolve))
    await new Promise(resolve => server.close(resolve))
    if (udpFree) return port
    if (attempt === 9) throw new Error('no port of 127.0.0.1 free for both TCP and UDP in 10 tries')
  }
}

/**
 * script: path of the entry file; env: the child's whole environment;
 * inheritOutput: false (its output is read: logs, stderr), true (this
 * process's stdout and stderr) or 'stderr' (both to this process's stderr).
 * Resolves once it listens: on an IPC { type: 'listening', port, … } or a
 * log line "listening at http://127.0.0.1:PORT".
 * → { pid, port, info (the IPC message, if any), child, logs (parsed JSON
 *     lines, { raw } for others), stderr, exited, alive(), kill(signal),
 *     rssKb(), ask(type), stop({ signal, graceMs }) }
 */
export async function startChildServer ({ script, env, startTimeoutMs = 60_000, inheritOutput = false, nodeArgs = [] }) {
  if (!exitHookInstalled) {
    exitHookInstalled = true
    process.on('exit', () => { for (const c of children) c.kill('SIGKILL') })
  }
  const child = spawn(process.execPath, [...nodeArgs, script], {
    cwd: ROOT,
    env,
    // inheritOutput 'stderr': both to this process's stderr (its stdout is a report: the child's log lines stay out of it)
    stdio: ['ignore', inheritOutput === 'stderr' ? 2 : inheritOutput ? 'inherit' : 'pipe', inheritOutput ? 'inherit' : 'pipe', 'ipc']
  })
  children.add(child)
  const exited = new Promise(resolve => child.once('exit', (code, signal) => {
    children.delete(child)
    resolve({ code, signal })
  }))
  const logs = []
  const stderr = []
  let onLog = () => {}
  if (!inheritOutput) {
    createInterface({ input: child.stdout }).on('line', line => {
      let entry
      try { entry = JSON.parse(line) } catch { entry = { raw: line } }
      logs.push(entry)
      onLog(entry)
    })
    createInterface({ input: child.stderr }).on('line', line => stderr.push(line))
  }

  const listening = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`statbucket did not listen within ${startTimeoutMs} ms`)), startTimeoutMs)
    const fail = err => { clearTimeout(timer); child.kill('SIGKILL'); reject(err) }
    const ready = info => { clearTimeout(timer); resolve(info) }
    child.on('message', msg => { if (msg?.type === 'listening') ready(msg) })
    onLog = entry => {
      const m = /listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(entry.msg ?? entry.raw ?? '')
      if (m) ready({ type: 'listening', port: Number(m[1]) })
    }
    exited.then(({ code, signal }) => fail(new Error(`statbucket exited (${signal ?? `code ${code}`}) before listening:\n${[...stderr, ...logs.map(l => l.raw ?? JSON.stringify(l))].join('\n')}`)))
  })
  onLog = () => {}

  let nextId = 0
  return {
    pid: child.pid,
    port: listening.port,
    info: listening,
    child,
    logs,
    stderr,
    exited,
    alive: () => child.exitCode === null && child.signalCode === null,
    kill: signal => child.kill(signal),
    rssKb: () => rssKb(child.pid),
    /** Asks a child that answers over IPC ({ type, id, ...fields } → { id, … }) */
    ask (type, timeoutMs = 30_000, fields = {}) {
      const id = ++nextId
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no answer to ${type} from statbucket`)), timeoutMs)
        child.on('message', function onMessage (msg) {
          if (msg?.id !== id) return
          clearTimeout(timer)
          child.off('message', onMessage)
          resolve(msg)
        })
        child.send({ ...fields, type, id })
      })
    },
    /** Sends `signal` (SIGKILL by default) unless it already exited, SIGKILL after graceMs, and waits for the exit */
    async stop ({ signal = 'SIGKILL', graceMs = 30_000 } = {}) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
      try { return await exited } finally { clearTimeout(timer) }
    }
  }
}
