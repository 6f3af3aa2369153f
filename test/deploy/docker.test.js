// docker/Dockerfile and docker/compose.yaml. No Docker engine runs here:
// compose checks the file (`config` needs only the client), and the
// Dockerfile is checked for what the image promises.
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { join, posix } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { SERVICE_NODE_FLAGS } from '../../src/heap-growth.js'

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')

const root = fileURLToPath(new URL('../../', import.meta.url))
const composeFile = join(root, 'docker/compose.yaml')
const dockerfile = readFileSync(join(root, 'docker/Dockerfile'), 'utf8')
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))

const works = (cmd, args) => spawnSync(cmd, args, { stdio: 'ignore' }).status === 0

/** How to run compose here: the docker plugin, else the standalone docker-compose */
function findCompose () {
  if (works('docker', ['compose', 'version'])) return ['docker', 'compose']
  if (works('docker-compose', ['version'])) return ['docker-compose']
  return null
}

const hasDocker = works('docker', ['--version'])
const compose = findCompose()
if (!hasDocker) console.log('compose check skipped: no docker client on this machine')
else if (!compose && !process.env.CI) console.log('compose check skipped: the docker client has no compose plugin and docker-compose is not installed (apt-get install docker-compose)')

function runCompose (...args) {
  if (!compose) throw new Error('docker is here but compose is not: install the compose plugin or docker-compose (apt-get install docker-compose)')
  const [cmd, ...pre] = compose
  return execFileSync(cmd, [...pre, '-f', composeFile, ...args], { encoding: 'utf8', cwd: root, env: { ...process.env, WRITE_TOKENS: '', READ_TOKENS: '' } })
}

describe.skipIf(!hasDocker || (!compose && !process.env.CI))('docker compose config', () => {
  it('accepts docker/compose.yaml and resolves MongoDB 8, statbucket and the loadgen profile', () => {
    // with the profile on, so that every version of compose prints the loadgen service
    const config = runCompose('--profile', 'loadgen', 'config')
    expect(config).toMatch(/image: mongo:8/)
    expect(config).toMatch(/--replSet/)
    expect(config).toMatch(/healthcheck:/)
    expect(config).toMatch(/condition: service_healthy/)
    expect(config).toMatch(/MONGODB_URI: mongodb:\/\/mongo:27017\/\?replicaSet=rs0/)
    expect(config).toMatch(/dockerfile: docker\/Dockerfile/)
    expect(config).toMatch(/profiles:\s*\n\s*- loadgen/)
    const services = runCompose('--profile', 'loadgen', 'config', '--services').trim().split('\n').sort()
    expect(services).toEqual(['loadgen', 'mongo', 'statbucket'])
  })
})

describe('docker/Dockerfile', () => {
  const stages = dockerfile.split(/^FROM /m).slice(1)
  const finalStage = stages.at(-1)

  it('is multi-stage on a Node LTS image, production dependencies only, non-root, with a readiness healthcheck', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2)
    expect(dockerfile).toMatch(/^ARG NODE_VERSION=(22|24)$/m)
    for (const stage of stages) expect(stage).toMatch(/^node:\$\{NODE_VERSION\}-bookworm-slim AS \w+/)
    expect(finalStage).toMatch(/^node:\$\{NODE_VERSION\}-bookworm-slim AS runtime/)
    expect(dockerfile).toMatch(/npm ci --omit=dev/)
    expect(finalStage).toMatch(/COPY --from=deps \/app\/node_modules/)
    expect(finalStage).toMatch(/^USER node$/m)
    expect(finalStage).toMatch(/^HEALTHCHECK .*\n.*\/readyz/m)
    expect(finalStage).toMatch(/^ENV HOST=0\.0\.0\.0/m)
    // StatsD's default (127.0.0.1:8125) would be the container's loopback: off unless asked for
    expect(finalStage).toMatch(/^ENV HOST=0\.0\.0\.0 \\\n(?: {4}\S+ \\\n)* {4}STATSD_PORT=0\b/m)
    // the service's node flags, as `npm start` passes them (src/heap-growth.js)
    expect(finalStage).toMatch(new RegExp(`^CMD ${escape(JSON.stringify(['node', ...SERVICE_NODE_FLAGS, 'src/server.js']).replaceAll(',', ', '))}$`, 'm'))
    const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
    expect(scripts.start).toBe(`exec node ${SERVICE_NODE_FLAGS.join(' ')} src/server.js`)
  })

  it('copies only what exists, and the build context sends it', () => {
    for (const [, from] of dockerfile.matchAll(/^COPY (?!--from)(.+) \S+$/gm)) {
      for (const source of from.split(' ')) expect(existsSync(join(root, source)), source).toBe(true)
    }
    const ignore = readFileSync(join(root, 'docker/Dockerfile.dockerignore'), 'utf8')
    for (const kept of ['package.json', 'package-lock.json', 'src/', 'scripts/']) expect(ignore).toContain(`!${kept}`)
  })

  it('needs no dev dependency at run time: every package src/ imports statically is a dependency', () => {
    const files = readdirSync(join(root, 'src'), { recursive: true }).filter(f => f.endsWith('.js') && !f.startsWith('dashboard'))
    const imported = new Set()
    for (const file of files) {
      const text = readFileSync(join(root, 'src', file), 'utf8')
      for (const [, spec] of text.matchAll(/^import (?:[^'"]+ from )?'([^'.][^']*)'/gm)) {
        if (spec.startsWith('node:')) continue
        imported.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0])
      }
    }
    expect(imported.size).toBeGreaterThan(5)
    for (const name of imported) expect(pkg.dependencies, `${name} is imported by src/ but not a dependency`).toHaveProperty([name])
  })
})

// The maintenance commands run in the service's image (`docker compose run
// --rm statbucket npm run check`): every file they load is in it, and every
// package they load is a production dependency.
describe('the maintenance commands in the image', () => {
  const runtime = dockerfile.split(/^FROM /m).at(-1)
  const ignoreRules = readFileSync(join(root, 'docker/Dockerfile.dockerignore'), 'utf8').split('\n')
    .map(line => line.trim()).filter(line => line && !line.startsWith('#'))
    .map(line => ({ keep: line.startsWith('!'), path: line.replace(/^!/, '').replace(/\/$/, '') }))
  const covers = (path, file) => path === '*' || file === path || file.startsWith(`${path}/`)
  /** Whether the build context sends the file: the last rule that matches it decides */
  const sent = file => ignoreRules.reduce((kept, rule) => (covers(rule.path, file) ? rule.keep : kept), true)
  // the runtime stage's COPY sources from the context (not --from another stage)
  const copied = [...runtime.matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap(([, from]) => from.split(' ')).map(source => source.replace(/\/$/, ''))
  const inImage = file => sent(file) && copied.some(source => covers(source, file))

  /** The files an entry loads, by static and dynamic import, and the packages each imports */
  function walk (entry) {
    const files = new Set()
    const packages = [] // { name, file, dynamic }
    const visit = file => {
      if (files.has(file)) return
      files.add(file)
      const text = readFileSync(join(root, file), 'utf8')
      const specifiers = [
        ...[...text.matchAll(/^(?:import|export) (?:[^'"]+ from )?'([^']+)'/gm)].map(m => ({ spec: m[1], dynamic: false })),
        ...[...text.matchAll(/\bimport\('([^']+)'\)/g)].map(m => ({ spec: m[1], dynamic: true }))
      ]
      for (const { spec, dynamic } of specifiers) {
        if (spec.startsWith('node:')) continue
        if (spec.startsWith('.')) visit(posix.join(posix.dirname(file), spec))
        else packages.push({ name: spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0], file, dynamic })
      }
    }
    visit(entry)
    return { files: [...files].sort(), packages }
  }

  const entries = ['check', 'retention'].map(name => {
    const [, entry] = /^node (\S+)$/.exec(pkg.scripts[name]) ?? []
    return { name, entry }
  })

  it('reads the build rules as this test understands them', () => {
    for (const rule of ignoreRules) expect(rule.path, 'a .dockerignore rule more complex than a path or *').toMatch(/^(\*|[\w.-]+(\/[\w.-]+)*)$/)
    expect(copied).toEqual(expect.arrayContaining(['package.json', 'src']))
    expect(inImage('src/server.js')).toBe(true)
    expect(inImage('scripts/shard.js')).toBe(false) // the context sends it for the loadgen stage only
    expect(inImage('test/cli.test.js')).toBe(false)
  })

  it.each(['check', 'retention'])('npm run %s is a command in src/jobs/', name => {
    expect(entries.find(e => e.name === name).entry).toBe(`src/jobs/${name}-command.js`)
  })

  it.each(entries)('npm run $name: the image holds its file and every file it imports', ({ entry }) => {
    const { files } = walk(entry)
    expect(files.length).toBeGreaterThan(10)
    for (const file of files) {
      expect(existsSync(join(root, file)), `${entry} imports ${file}, which does not exist`).toBe(true)
      expect(inImage(file), `${entry} imports ${file}, which the image lacks`).toBe(true)
    }
  })

  it.each(entries)('npm run $name: imports no dev dependency (but the embedded database\'s, lazily, when MONGODB_URI is unset)', ({ entry }) => {
    const { packages } = walk(entry)
    expect(packages.map(p => p.name)).toEqual(expect.arrayContaining(['mongodb', 'node-cron']))
    for (const { name, file, dynamic } of packages) {
      if (dynamic && name === 'mongodb-memory-server-core' && file === 'src/db/embedded.js') continue
      expect(pkg.devDependencies, `${file} imports the dev dependency ${name}`).not.toHaveProperty([name])
      expect(pkg.dependencies, `${file} imports ${name}, which is not a dependency`).toHaveProperty([name])
    }
  })

  it('runs them as documented: npm from /app, through the node image\'s entrypoint, with the service\'s environment', () => {
    expect(dockerfile).toMatch(/^# +docker compose -f docker\/compose\.yaml run --rm statbucket npm run check$/m)
    expect(dockerfile).toMatch(/^# +docker compose -f docker\/compose\.yaml run --rm statbucket npm run retention -- --once$/m)
    expect(runtime).toMatch(/^WORKDIR \/app$/m)
    expect(runtime).toMatch(/^COPY package\.json \.\/$/m)
    // the command given to `run` replaces CMD; an ENTRYPOINT of ours would swallow it
    expect(runtime).not.toMatch(/^ENTRYPOINT /m)
    const compose = readFileSync(composeFile, 'utf8')
    const service = /^ {2}statbucket:\n((?: {4}.*\n|\s*\n)+)/m.exec(compose)?.[1]
    expect(service).toMatch(/dockerfile: docker\/Dockerfile/)
    expect(service).toMatch(/MONGODB_URI: /)
    expect(service).not.toMatch(/^ {4}(entrypoint|command|target):/m)
  })
})
