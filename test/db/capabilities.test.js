// What db/capabilities.js tells of a server from its answers, on stand-in
// databases: FerretDB by name (docs/adr/0057-ferretdb.md), and what a bulk of
// updates is sent to it as.
import { describe, expect, it } from 'vitest'
import { bulkUpdatesFor, detectBackend } from '../../src/db/capabilities.js'

/** A stand-in Db answering each command by its name; a missing one fails as a server's unknown command does */
const answering = (answers) => ({
  async command (cmd) {
    const name = Object.keys(cmd)[0]
    if (!(name in answers)) throw Object.assign(new Error(`no such command: '${name}'`), { code: 59 })
    return answers[name]
  }
})

describe('detectBackend', () => {
  it('names FerretDB by buildInfo.ferretdbVersion, though it answers hello and claims 7.0', async () => {
    expect(await detectBackend(answering({ hello: { ok: 1 }, buildInfo: { version: '7.0.42', ferretdbVersion: 'v1.24.2', ok: 1 } }))).toBe('ferretdb')
  })

  it('takes a server that answers hello and says no other name for mongod', async () => {
    expect(await detectBackend(answering({ hello: { ok: 1 }, buildInfo: { version: '8.0.4', ok: 1 } }))).toBe('mongod')
  })

  it('tells mongo-java-server by isMaster without explain', async () => {
    expect(await detectBackend(answering({ isMaster: { ok: 1 } }))).toBe('mongo-java-server')
  })
})

describe('bulkUpdatesFor', () => {
  const ops = [
    { updateOne: { filter: { _id: 'a/20261128' }, update: { $inc: { daily: 1 } }, upsert: true } },
    { deleteOne: { filter: { _id: 'b/20261128' } } }
  ]

  it('sends FerretDB each updateOne as updateMany on the same filter, update and upsert, and leaves the rest', () => {
    expect(bulkUpdatesFor('ferretdb')(ops)).toEqual([{ updateMany: ops[0].updateOne }, ops[1]])
  })

  it('sends every other server the operations as they are', () => {
    for (const backend of ['mongod', 'mongo-java-server', 'unknown']) expect(bulkUpdatesFor(backend)(ops)).toBe(ops)
  })
})
