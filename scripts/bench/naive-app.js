// The yardstick a user would otherwise write (docs/adr/0058-naive-writer-yardstick.md):
// the route of ./bare-app.js, each event written by two awaited `$inc`
// upserts through the official driver, its day document and then its
// month document, as the 2012 talk's writer does — no group commit, no
// registry, no idempotency, no metrics. The documents and fields are the
// service's (src/bucket/increments.js), so the database does the same work
// per statement; answered only once MongoDB acknowledged both.
import { MongoClient } from 'mongodb'
import { eventIncrements } from '../../src/bucket/increments.js'
import { parseEventTime } from '../../src/bucket/time.js'
import { driverOptions } from '../../src/db/driver-options.js'
import { eventsRouteSchema, yardstickFastify } from './bare-app.js'

/** config: loadConfig()'s; uri: the database's. The app closes its client on close. */
export async function buildNaiveApp (config, uri) {
  const client = new MongoClient(uri, { ...driverOptions(config.writeTimeoutMs), appName: 'statbucket-naive' })
  await client.connect()
  const db = client.db(config.mongodbDb)
  const daily = db.collection('daily')
  const monthly = db.collection('monthly')
  const app = yardstickFastify(config)
  app.addHook('onClose', () => client.close())
  app.post('/v1/events', { schema: eventsRouteSchema }, async (request) => {
    const list = Array.isArray(request.body) ? request.body : [request.body]
    for (const { metric, value, ts } of list) {
      const time = ts === undefined ? Date.now() : parseEventTime(ts)
      if (time === null) throw Object.assign(new Error(`${JSON.stringify(ts)} is not a valid time`), { statusCode: 400 })
      const inc = eventIncrements({ metric, value, time })
      await daily.updateOne({ _id: inc.daily.id }, { $inc: inc.daily.inc, $setOnInsert: { metric, date: new Date(inc.daily.date) } }, { upsert: true })
      await monthly.updateOne({ _id: inc.monthly.id }, { $inc: inc.monthly.inc, $setOnInsert: { metric, date: new Date(inc.monthly.date) } }, { upsert: true })
    }
    return { accepted: list.length }
  })
  await app.ready()
  return app
}
