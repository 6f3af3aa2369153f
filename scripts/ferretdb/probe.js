#!/usr/bin/env node
// Shows what docs/adr/0057-ferretdb.md says of FerretDB 1.24, on any server
// (mongod answers every line quickly): how long one update by _id and one
// read of two _ids take against the size of the collection, and whether one
// bulkWrite of N updateOne (or updateMany) of existing documents answers.
// `--help` for usage.
import { MongoClient } from 'mongodb'
import { EXIT, UsageError, defineCommand, parseFlags, runIfMain } from '../../src/cli.js'
import { dayZeroIncrements } from '../../src/bucket/minute-fields.js'

const HELP = `Usage: node scripts/ferretdb/probe.js --uri URI [options]

In the database statbucket_probe (dropped before and after):

  --scan 10,100,500  grows one collection to each size in turn, in zero-filled
                     day documents (1,561 fields each, as preallocation
                     writes them), and prints the mean time of an updateOne
                     by _id and of a find of two _ids by $in
  --bulk 49,50,99,100
                     for each N, inserts N documents, then sends one
                     unordered bulkWrite of N updateMany $inc by _id, then
                     the same as updateOne; prints "answered in … ms" or
                     "no answer within --wait-ms". On FerretDB a bulk that
                     does not answer keeps its connections: the database
                     (SQLite) or the whole server (PostgreSQL) answers no
                     more reads or writes until it restarts. Runs after --scan.
  --wait-ms MS       how long a command may take (default 5000)
  --help             this text

Exit codes: 0 every command answered, 1 one did not (or failed), 2 bad usage.
`

const OPTIONS = {
  uri: { type: 'string' },
  scan: { type: 'string' },
  bulk: { type: 'string' },
  'wait-ms': { type: 'string' }
}

const sizes = (flag, text) => {
  if (text === undefined) return []
  const list = text.split(',').map(Number)
  if (list.some(n => !Number.isInteger(n) || n < 1 || n > 100_000)) throw new UsageError(`--${flag} takes sizes from 1 to 100000, comma-separated, got ${JSON.stringify(text)}`)
  return list
}

function parse (argv, { env }) {
  const { values } = parseFlags(argv, OPTIONS)
  if (values.help) return { help: true }
  const uri = values.uri ?? env.MONGODB_URI
  if (!uri || !/^mongodb(\+srv)?:\/\//.test(uri)) throw new UsageError('--uri (or MONGODB_URI) is required and starts with mongodb://')
  const waitMs = Number(values['wait-ms'] ?? 5000)
  if (!Number.isInteger(waitMs) || waitMs < 100) throw new UsageError('--wait-ms is a whole number of milliseconds, at least 100')
  const scan = sizes('scan', values.scan)
  const bulk = sizes('bulk', values.bulk)
  if (scan.length === 0 && bulk.length === 0) throw new UsageError('give --scan, --bulk or both')
  return { uri, waitMs, scan, bulk }
}

/** The zero-filled day document preallocation upserts (bucket/minute-fields.js), as nested fields */
function zeroDay () {
  const doc = {}
  for (const [path, value] of Object.entries(dayZeroIncrements())) {
    const parts = path.split('.')
    let at = doc
    for (const part of parts.slice(0, -1)) at = (at[part] ??= {})
    at[parts.at(-1)] = value
  }
  return doc
}

async function meanMs (times, fn) {
  const started = performance.now()
  for (let i = 0; i < times; i++) await fn(i)
  return ((performance.now() - started) / times).toFixed(1)
}

async function scan (db, list, out) {
  const daily = db.collection('daily')
  const doc = zeroDay()
  let have = 0
  for (const n of list) {
    while (have < n) {
      const count = Math.min(100, n - have)
      await daily.insertMany(Array.from({ length: count }, (_, i) => ({ _id: `m${have + i}/20261128`, ...doc })))
      have += count
    }
    const update = await meanMs(10, i => daily.updateOne({ _id: `m${(i * 7) % n}/20261128` }, { $inc: { daily: 1, 'hourly.10': 1, 'minute.10.31': 1 } }))
    const read = await meanMs(10, i => daily.find({ _id: { $in: [`m${i % n}/20261128`, `m${(i + 1) % n}/20261128`] } }, { projection: { hourly: 1 } }).toArray())
    out.write(`${n} documents: updateOne by _id ${update} ms, find of 2 _ids by $in ${read} ms\n`)
  }
}

async function bulk (db, list, waitMs, out) {
  let answered = true
  for (const n of list) {
    for (const verb of ['updateMany', 'updateOne']) {
      const collection = db.collection(`bulk_${n}_${verb}`)
      await collection.insertMany(Array.from({ length: n }, (_, i) => ({ _id: `d${i}`, v: 0 })))
      const started = performance.now()
      try {
        await collection.bulkWrite(Array.from({ length: n }, (_, i) => ({ [verb]: { filter: { _id: `d${i}` }, update: { $inc: { v: 1 } } } })), { ordered: false })
        out.write(`${n} × ${verb}: answered in ${Math.round(performance.now() - started)} ms\n`)
      } catch (err) {
        answered = false
        out.write(`${n} × ${verb}: no answer within ${waitMs} ms (${err.message})\n`)
        return answered // the server's pool may be held now: nothing more can be asked
      }
    }
  }
  return answered
}

async function run ({ uri, waitMs, scan: scanSizes, bulk: bulkSizes }, { out, err }) {
  // the scan waits as long as it takes; a bulk gives up after waitMs (the driver then closes its connection)
  const client = await new MongoClient(uri, { serverSelectionTimeoutMS: 5000 }).connect()
  const bulkClient = await new MongoClient(uri, { serverSelectionTimeoutMS: 5000, socketTimeoutMS: waitMs }).connect()
  const db = client.db('statbucket_probe')
  let answered = true
  try {
    await db.dropDatabase()
    if (scanSizes.length) await scan(db, scanSizes, out)
    if (bulkSizes.length) answered = await bulk(bulkClient.db('statbucket_probe'), bulkSizes, waitMs, out)
    if (answered) await db.dropDatabase()
    return answered ? EXIT.OK : EXIT.PROBLEM
  } catch (e) {
    err.write(`probe: ${e.message}\n`)
    return EXIT.PROBLEM
  } finally {
    await Promise.all([client, bulkClient].map(c => c.close(true).catch(() => {})))
  }
}

export const main = defineCommand({ name: 'probe', usage: HELP, parse, run })

runIfMain(import.meta.url, 'probe', main, { exit: true })
