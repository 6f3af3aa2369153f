#!/usr/bin/env node
// Shards statbucket's day, month (and minute-hour) collections of every kind
// on { _id: 1 } through a mongos. Ids put the metric first (`cpu.load/20261121`), so a range key on
// _id keeps each metric's days together (a chart is a targeted range scan on
// one shard) while metrics spread over shards, and a new day adds documents
// in every metric's range instead of one hot "today" chunk. `--help` for usage.
import { MongoClient } from 'mongodb'
import { EXIT, UsageError, defineCommand, parseFlags, runIfMain } from '../src/cli.js'

const HELP = `Usage: node scripts/shard.js --uri MONGOS_URI [options]

Enables sharding of statbucket's day and month collections on { _id: 1 }
(range) for a sharded cluster, through its mongos: the counters' daily and
monthly, the distributions' distributionDaily, distributionMonthly and
distributionMinutes, the gauges' gaugeDaily and gaugeMonthly. Safe to run again:
collections already sharded on { _id: 1 } are left as they are.

Options:
  --uri URI          the mongos (default: MONGODB_URI)
  --db NAME          the database (default: MONGODB_DB or statbucket)
  --layout L         hierarchical (default) or flat: which daily collection
                     (daily, or daily_flat for the load generator's experiment)
  --dry-run          print the commands (mongosh syntax) and send nothing
  --help             this text

The metrics registry (one small document per metric) stays unsharded.
Exit codes: 0 done, 1 failed (unreachable, not a mongos, sharded on another key), 2 bad usage.
`

const OPTIONS = {
  uri: { type: 'string' },
  db: { type: 'string' },
  layout: { type: 'string' },
  'dry-run': { type: 'boolean' }
}

function parse (argv, { env }) {
  const { values } = parseFlags(argv, OPTIONS)
  if (values.help) return { help: true }
  const layout = values.layout ?? 'hierarchical'
  if (!['hierarchical', 'flat'].includes(layout)) throw new UsageError(`--layout must be hierarchical or flat, got ${JSON.stringify(layout)}`)
  const db = values.db ?? env.MONGODB_DB ?? 'statbucket'
  if (!/^[^/\\. "$*<>:|?]{1,63}$/.test(db)) throw new UsageError(`--db: not a valid database name: ${JSON.stringify(db)}`)
  const uri = values.uri ?? env.MONGODB_URI
  if (uri !== undefined && !/^mongodb(\+srv)?:\/\//.test(uri)) throw new UsageError('--uri must start with mongodb:// or mongodb+srv://')
  if (!uri && !values['dry-run']) throw new UsageError('--uri (or MONGODB_URI) is required: the mongos of the cluster')
  return { uri, db, layout, dryRun: Boolean(values['dry-run']) }
}

// the other kinds' documents: ids metric-first too (`metric/YYYYMMDD`, `metric/YYYYMMDDHH`), so the same key serves
const KIND_COLLECTIONS = ['distributionDaily', 'distributionMonthly', 'distributionMinutes', 'gaugeDaily', 'gaugeMonthly']

/** The admin commands, in order, with their mongosh helper equivalents */
export function shardingCommands ({ db, layout }) {
  const daily = layout === 'flat' ? 'daily_flat' : 'daily'
  return [
    { command: { enableSharding: db }, helper: `sh.enableSharding(${JSON.stringify(db)})` },
    ...[daily, 'monthly', ...KIND_COLLECTIONS].map(name => ({
      namespace: `${db}.${name}`,
      command: { shardCollection: `${db}.${name}`, key: { _id: 1 } },
      helper: `sh.shardCollection(${JSON.stringify(`${db}.${name}`)}, { _id: 1 })`
    }))
  ]
}

const redact = uri => uri?.replace(/\/\/([^@/]*)@/, '//***@')
/** A command as mongosh source: { shardCollection: "db.daily", key: { _id: 1 } } */
const js = v => (v !== null && typeof v === 'object'
  ? `{ ${Object.entries(v).map(([k, x]) => `${k}: ${js(x)}`).join(', ')} }`
  : JSON.stringify(v))
const shell = command => `db.adminCommand(${js(command)})`

async function apply ({ uri, db, layout }, out) {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 10_000, appName: 'statbucket-shard' })
  try {
    await client.connect()
    const admin = client.db('admin')
    const hello = await admin.command({ isMaster: 1 }).catch(() => admin.command({ hello: 1 }))
    if (hello.msg !== 'isdbgrid') {
      throw new Error(`${redact(uri)} is not a mongos (a sharded cluster's router): sharding is set up through the mongos`)
    }
    const sharded = client.db('config').collection('collections')
    for (const { namespace, command, helper } of shardingCommands({ db, layout })) {
      if (namespace) {
        const existing = await sharded.findOne({ _id: namespace, dropped: { $ne: true } })
        if (existing) {
          if (JSON.stringify(existing.key) !== JSON.stringify({ _id: 1 })) {
            throw new Error(`${namespace} is already sharded on ${JSON.stringify(existing.key)}, not { _id: 1 }; resharding it is a decision for its owner (reshardCollection)`)
          }
          out(`${namespace}: already sharded on { _id: 1 }`)
          continue
        }
      }
      out(`${helper} …`)
      await admin.command(command)
      out(`${helper}: ok`)
    }
  } finally {
    await client.close()
  }
}

async function run (opts, io) {
  const out = line => io.out.write(`${line}\n`)
  const commands = shardingCommands(opts)
  if (opts.dryRun) {
    out(`// dry run: nothing is sent. Through a mongos (${redact(opts.uri) ?? 'MONGOS_URI'}), e.g. mongosh "<uri>":`)
    for (const { command, helper } of commands) out(`${shell(command)}  // ${helper}`)
    return EXIT.OK
  }
  try {
    await apply(opts, out)
  } catch (e) {
    io.err.write(`shard: ${e.message}\n`)
    return EXIT.PROBLEM
  }
  out(`done: ${commands.filter(c => c.namespace).map(c => c.namespace).join(' and ')} sharded on { _id: 1 }`)
  return EXIT.OK
}

export const main = defineCommand({ name: 'shard', usage: HELP, parse, run })

runIfMain(import.meta.url, 'shard', main)
