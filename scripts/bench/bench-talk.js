// The talk's experiment inside the benchmark (opt-in: --only talk): a
// simulated day from 00:00 past midnight, straight to MongoDB with one
// upsert per document per event, for the flat and the hierarchical layout,
// with and without probabilistic preallocation.
import { DAY_MS, startOfDay } from '../../src/bucket/time.js'
import { metricNames, seededRandom } from '../shared/workload.js'
import { phaseFigures } from '../loadgen/summary.js'
import { runPhase } from '../loadgen/load-run.js'
import { connectMongo, createMongoTarget } from '../loadgen/mongo-target.js'
import { LAYOUTS } from '../loadgen/layouts.js'

export const TALK_PREALLOC = 0.000667 // the talk's 1/1500
export const TALK_SIM_MINUTES = 1450 // a whole day and 10 minutes past midnight

export async function benchTalk ({ uri, dbName, speedup, concurrency = 8, metrics = 100, now = Date.now(), log = () => {} }) {
  const runs = []
  const start = startOfDay(now) - 3 * DAY_MS
  for (const layoutName of ['flat', 'hierarchical']) {
    for (const prealloc of [0, TALK_PREALLOC]) {
      const layout = LAYOUTS[layoutName]
      const target = await createMongoTarget({ uri, dbName, layout, coalesce: false, prealloc, random: seededRandom(3) })
      try {
        log(`talk: ${layoutName} layout, preallocation ${prealloc}, ${TALK_SIM_MINUTES} simulated minutes at ${speedup}× (${(TALK_SIM_MINUTES * 60 / speedup).toFixed(0)} s)`)
        // warm-up (unrecorded): JIT and connections, on other metrics
        await runPhase({ target, start, spanMs: 2000 * speedup, speedup, concurrency, batch: 1, metrics: metricNames(`talk.warmup.${layoutName}.`, metrics), random: seededRandom(2) })
        const result = await runPhase({
          target,
          start,
          spanMs: TALK_SIM_MINUTES * 60_000,
          speedup,
          concurrency,
          batch: 1,
          metrics: metricNames(`talk.${layoutName}.p${prealloc ? 1 : 0}.`, metrics),
          random: seededRandom(1)
        })
        const f = phaseFigures(result)
        runs.push({
          layout: layoutName,
          prealloc,
          eventsPerS: f.eventsPerS,
          endOfDayRatio: f.endOfDay.ratio,
          firstHour: f.endOfDay.firstHour ?? null,
          lastHour: f.endOfDay.lastHour ?? null,
          midnightDip: f.midnight.ratio,
          requestsPerMinute: f.requestsPerMinute,
          failed: f.failed
        })
      } finally {
        await target.close()
      }
      // free the database's memory between runs (the substitute keeps documents on its heap)
      await dropTalkCollections(uri, dbName, layout)
    }
  }
  return { speedup, concurrency, metrics, simMinutes: TALK_SIM_MINUTES, prealloc: TALK_PREALLOC, runs }
}

async function dropTalkCollections (uri, dbName, layout) {
  const client = await connectMongo(uri)
  try {
    for (const name of [layout.collection, 'monthly', 'metrics']) await client.db(dbName).collection(name).drop().catch(() => {})
  } finally {
    await client.close()
  }
}
