// What the benchmark ran on: machine, database backend, versions.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

export function packageVersion (name) {
  try {
    return JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version
  } catch {
    return 'unknown'
  }
}

function javaServerVersion () {
  try {
    const pom = fs.readFileSync(path.join(ROOT, 'java/mongo-java-server/pom.xml'), 'utf8')
    return /<mongo-java-server\.version>([^<]+)</.exec(pom)?.[1] ?? 'unknown'
  } catch {
    return 'unknown'
  }
}

/** backend: 'mongod' | 'mongo-java-server' | 'unknown'; how: 'MONGODB_URI' | 'embedded' */
export async function describeBackend (db, { backend, how, uri }) {
  let version = 'unknown'
  try { version = (await db.admin().command({ buildInfo: 1 })).version } catch {}
  const where = how === 'embedded' ? 'embedded, in memory' : `MONGODB_URI ${uri.replace(/\/\/[^@/]*@/, '//…@')}`
  const description = backend === 'mongo-java-server'
    ? `mongo-java-server ${javaServerVersion()} (${where}; its buildInfo claims ${version}) — the offline substitute, not a real mongod`
    : `${backend === 'mongod' ? 'mongod' : `unknown server (${backend})`} ${version} (${where})`
  return { name: backend, version, how, description }
}

export function describeMachine () {
  const cpus = os.cpus()
  return {
    cpu: (cpus[0]?.model ?? 'unknown CPU').replace(/\s+/g, ' ').trim(),
    cores: cpus.length,
    memoryGiB: (os.totalmem() / 2 ** 30).toFixed(1),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    loadAverage: os.loadavg()[0]
  }
}

export function versions () {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'))
  return {
    node: process.version,
    statbucket: pkg.version,
    driver: packageVersion('mongodb'),
    fastify: packageVersion('fastify'),
    autocannon: packageVersion('autocannon')
  }
}
