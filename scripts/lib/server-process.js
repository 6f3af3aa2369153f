// Starts scripts/lib/bench-server.js as a child process and talks to it.
import { fork } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'

const SERVER = fileURLToPath(new URL('./bench-server.js', import.meta.url))

/** env: statbucket configuration (MONGODB_URI, MONGODB_DB, …) → { url, pid, backend, stats(), resetPeak(), stop() } */
export async function startServerProcess (env, { startTimeoutMs = 60_000 } = {}) {
  const child = fork(SERVER, [], { execArgv: [], env: { ...process.env, LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const exited = once(child, 'exit')
  const listening = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`statbucket did not listen within ${startTimeoutMs} ms`)) }, startTimeoutMs)
    child.on('message', function onMessage (msg) {
      if (msg?.type !== 'listening') return
      clearTimeout(timer)
      child.off('message', onMessage)
      resolve(msg)
    })
    child.once('exit', (code, signal) => { clearTimeout(timer); reject(new Error(`statbucket exited (${signal ?? `code ${code}`}) before listening`)) })
  })
  let nextId = 0
  function ask (type) {
    const id = ++nextId
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to ${type} from statbucket`)), 30_000)
      child.on('message', function onMessage (msg) {
        if (msg?.id !== id) return
        clearTimeout(timer)
        child.off('message', onMessage)
        resolve(msg)
      })
      child.send({ type, id })
    })
  }
  return {
    url: `http://127.0.0.1:${listening.port}`,
    port: listening.port,
    pid: child.pid,
    backend: listening.backend,
    layout: listening.layout,
    stats: () => ask('stats'),
    resetPeak: () => ask('reset-peak'),
    async stop () {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
      try { await exited } finally { clearTimeout(timer) }
    }
  }
}
