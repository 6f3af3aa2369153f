// The jobs' cron schedules, started only by their plugins: node-cron in UTC,
// no overlapping runs, destroyed on the app's close.
import cron from 'node-cron'

/** Runs `run` on `expression` (UTC) until the app closes. */
export function scheduleInUtc (app, { expression, name, run }) {
  const task = cron.schedule(expression, run, { timezone: 'Etc/UTC', noOverlap: true, name })
  app.addHook('onClose', async () => { await task.destroy() })
  return task
}
