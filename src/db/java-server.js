// The MongoDB-wire-compatible fallback (docs/architecture.md#where-the-database-comes-from): mongo-java-server as a
// child JVM. The launcher in java/mongo-java-server binds, prints
// "LISTENING <port>" on stdout and closes cleanly (committing H2) on SIGTERM.
import { spawn, execFile } from 'node:child_process'
import { createInterface } from 'node:readline'
import { once } from 'node:events'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const PROJECT_DIR = path.join(ROOT, 'java', 'mongo-java-server')
const POM = path.join(PROJECT_DIR, 'pom.xml')
const SOURCES = [POM, path.join(PROJECT_DIR, 'src/main/java/statbucket/MongoJavaServerLauncher.java')]
export const JAR_PATH = path.join(PROJECT_DIR, 'target', 'mongo-java-server-launcher.jar')
// mkdir is atomic: it serialises builds between processes (vitest runs files in parallel).
const LOCK_DIR = path.join(PROJECT_DIR, 'target', '.build-lock')

const noop = () => {}
const quietLogger = { debug: noop, info: noop, warn: noop, error: noop }

// JVMs still running; killed when this process exits so none is orphaned.
const live = new Set()
process.on('exit', () => { for (const child of live) child.kill('SIGTERM') })

function onPath (cmd) {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue
    try {
      fs.accessSync(path.join(dir, cmd), fs.constants.X_OK)
      return true
    } catch {}
  }
  return false
}

function requireOnPath (cmd, why) {
  if (!onPath(cmd)) throw new Error(`'${cmd}' is not on PATH; it is needed ${why} (install a JDK 17+ and Maven, or set MONGODB_URI)`)
}

// Missing, or older than its sources (someone edited the launcher).
function jarIsStale () {
  let jarTime
  try { jarTime = fs.statSync(JAR_PATH).mtimeMs } catch { return true }
  return SOURCES.some((f) => { try { return fs.statSync(f).mtimeMs > jarTime } catch { return false } })
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

async function withBuildLock (timeoutMs, fn) {
  fs.mkdirSync(path.dirname(LOCK_DIR), { recursive: true })
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      fs.mkdirSync(LOCK_DIR)
      break
    } catch (err) {
      if (err.code !== 'EEXIST') throw err
      // A lock older than a whole build is left over from a killed process.
      let age = 0
      try { age = Date.now() - fs.statSync(LOCK_DIR).mtimeMs } catch {}
      if (age > timeoutMs) fs.rmSync(LOCK_DIR, { recursive: true, force: true })
      else if (Date.now() > deadline) throw new Error(`timed out waiting for another mongo-java-server build (${LOCK_DIR})`)
      else await sleep(250)
    }
  }
  try {
    return await fn()
  } finally {
    fs.rmSync(LOCK_DIR, { recursive: true, force: true })
  }
}

let building = null // one build per process at a time

/** Builds the launcher jar with Maven unless it is up to date; returns its path. */
export async function ensureJavaServerBuilt ({ logger = quietLogger, buildTimeoutMs = 300_000 } = {}) {
  if (!jarIsStale() && !fs.existsSync(LOCK_DIR)) return JAR_PATH
  building ??= withBuildLock(buildTimeoutMs, async () => {
    if (!jarIsStale()) return JAR_PATH // another process built it meanwhile
    requireOnPath('mvn', 'to build the embedded mongo-java-server')
    logger.info({ pom: POM }, 'building mongo-java-server launcher with Maven (first run only)')
    const started = Date.now()
    await new Promise((resolve, reject) => {
      execFile('mvn', ['-q', '-B', '-f', POM, 'package'], { cwd: ROOT, timeout: buildTimeoutMs, killSignal: 'SIGKILL', maxBuffer: 16 << 20 },
        (err, stdout, stderr) => {
          if (!err) return resolve()
          const tail = `${stdout}\n${stderr}`.trim().split('\n').slice(-15).join('\n')
          reject(new Error(`mvn package failed (${err.killed ? `killed after ${buildTimeoutMs} ms` : `exit ${err.code}`}):\n${tail}`))
        })
    })
    if (!fs.existsSync(JAR_PATH)) throw new Error(`mvn package succeeded but ${JAR_PATH} is missing`)
    logger.info({ ms: Date.now() - started }, 'mongo-java-server launcher built')
    return JAR_PATH
  }).finally(() => { building = null })
  return building
}

/**
 * Starts mongo-java-server in a child JVM: in memory, or persistent in one
 * H2 MVStore file. `port` 0 lets the OS choose; fault tests pass the old
 * port to restart an H2-backed server "in place".
 */
export async function startJavaServer ({
  h2File,
  heap = '512m',
  logger = quietLogger,
  buildTimeoutMs,
  port = 0,
  startTimeoutMs = 60_000
} = {}) {
  requireOnPath('java', 'to run the embedded mongo-java-server')
  const jar = await ensureJavaServerBuilt({ logger, buildTimeoutMs })

  const args = [`-Xmx${heap}`, '-jar', jar, '--host', '127.0.0.1', '--port', String(port), '--exit-on-stdin-close']
  if (h2File) args.push('--h2', path.resolve(h2File))
  // detached: its own process group, so a terminal's Ctrl-C reaches only us and
  // the app can still flush to the database while it shuts down. The stdin pipe
  // is the lifeline: if this process dies in any way, the JVM sees EOF and exits.
  const child = spawn('java', args, { stdio: ['pipe', 'pipe', 'pipe'], detached: true })
  live.add(child)
  child.once('exit', () => live.delete(child))
  child.on('error', (err) => logger.warn({ err }, 'mongo-java-server process error'))
  child.stdin.on('error', noop) // EPIPE once the JVM has gone

  const stderrTail = []
  createInterface({ input: child.stderr }).on('line', (line) => {
    stderrTail.push(line)
    if (stderrTail.length > 20) stderrTail.shift()
    logger.debug({ backend: 'mongo-java-server', pid: child.pid }, line)
  })

  let listenPort
  try {
    listenPort = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no LISTENING line within ${startTimeoutMs} ms`)), startTimeoutMs)
      const done = (fn, value) => { clearTimeout(timer); fn(value) }
      createInterface({ input: child.stdout }).on('line', (line) => {
        const m = /^LISTENING (\d+)$/.exec(line)
        if (m) done(resolve, Number(m[1]))
      })
      child.once('error', (err) => done(reject, err))
      child.once('exit', (code, signal) => done(reject, new Error(`exited (${signal ?? `code ${code}`}) before listening`)))
    })
  } catch (err) {
    child.kill('SIGKILL')
    await sleep(50) // let the last stderr lines arrive
    throw new Error(`mongo-java-server failed to start: ${err.message}\n${stderrTail.join('\n')}`.trim())
  }

  // The server lives as long as the app wants it; it must not by itself keep
  // a script's event loop alive (the 'exit' handler above still stops it).
  child.unref()
  for (const s of [child.stdin, child.stdout, child.stderr]) s.unref?.()

  let stopping = null
  child.once('exit', (code, signal) => {
    if (!stopping) logger.warn({ code, signal, pid: child.pid }, 'mongo-java-server exited unexpectedly')
  })
  const stop = () => {
    stopping ??= (async () => {
      if (child.exitCode !== null || child.signalCode !== null) return
      const exited = once(child, 'exit')
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000)
      try { await exited } finally { clearTimeout(timer) }
    })()
    return stopping
  }

  const uri = `mongodb://127.0.0.1:${listenPort}`
  logger.debug({ uri, pid: child.pid, h2File: h2File ?? null }, 'mongo-java-server listening')
  return { uri, port: listenPort, pid: child.pid, backend: 'mongo-java-server', stop }
}
