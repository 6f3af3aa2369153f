// docker/Dockerfile and docker/compose.yaml. No Docker engine runs here:
// compose checks the file (`config` needs only the client), and the
// Dockerfile is checked for what the image promises.
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

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
    expect(finalStage).toMatch(/^CMD \["node", "src\/server\.js"\]$/m)
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
