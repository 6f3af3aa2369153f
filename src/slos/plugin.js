// The SLOs (docs/slos.md): the definitions of SLO_FILE, read at boot by
// config.js and again on SIGHUP (a file that no longer parses is logged and
// the definitions in force are kept), those stored through PUT /v1/slos/:name
// (stored-slos.js), and their reports (slo-service.js).
import fp from 'fastify-plugin'
import { realTimers } from '../clock.js'
import { ConfigError, loadSloFile } from '../config.js'
import { ZONE_REFRESH_MS } from '../registry/zone-records.js'
import { createSloService } from './slo-service.js'
import { createStoredSlos } from './stored-slos.js'

/**
 * options.sighup: reload SLO_FILE on SIGHUP (default true; only when SLO_FILE
 * is set); timers: those of the zones' refresh (src/clock.js), for tests
 */
async function slos (app, { sighup = true, timers = realTimers } = {}) {
  const { config, clock, reader, taggedReads, registry, log, collections, zones } = app
  let inForce = config.slos
  const service = createSloService({ reader, taggedReads, registry, clock, definitions: () => inForce, stored: createStoredSlos(collections.slos), zones })
  // the zones of the SLOs in force (docs/adr/0073-local-days-in-the-month.md), declared again with every change of them;
  // past 8 together (SLO_FILE's and the stored ones), the SLO of the 9th is logged once: its days read day documents
  let overflowLogged = null
  const declare = async () => {
    const overflow = await service.declareZones()
    if (overflow !== null && overflow.message !== overflowLogged) log.warn(`SLO ${overflow.slo.name}: ${overflow.message} (SLO_FILE and the stored SLOs together): its local days are read from its day documents`)
    overflowLogged = overflow?.message ?? null
  }
  await declare()
  let declaring = Promise.resolve()
  /** Resolves once the zones of the last reload or refresh are recorded */
  service.zonesDeclared = () => declaring
  /** The zones declared again after the last declaration (a reload, a refresh) */
  const declareAgain = (why) => {
    declaring = declaring.then(declare)
      .catch(err => log.error({ err }, `the zones of the ${why} SLOs were not recorded: their local days are read from day documents`))
    return declaring
  }
  // every minute: an SLO stored or deleted through another instance changes the zones this one writes
  let refresh = null
  let closed = false
  const tick = () => declareAgain('refreshed').finally(() => {
    if (closed) return
    refresh = timers.setTimeout(tick, ZONE_REFRESH_MS)
    refresh?.unref?.()
  })
  refresh = timers.setTimeout(tick, ZONE_REFRESH_MS)
  refresh?.unref?.()
  app.addHook('onClose', async () => {
    closed = true
    timers.clearTimeout(refresh)
    await declaring
  })

  /** SLO_FILE read again → the definitions now in force (the old ones kept when it does not parse) */
  service.reload = () => {
    try {
      inForce = loadSloFile(config.sloFile)
      log.info({ slos: inForce.length, file: config.sloFile }, 'SLO definitions reloaded')
      declareAgain('reloaded')
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err
      log.error(`SLO definitions kept, SLO_FILE not reloaded: ${err.message}`)
    }
    return inForce
  }
  app.decorate('slos', service)

  if (config.sloFile && sighup) {
    const onHangup = () => service.reload()
    process.on('SIGHUP', onHangup)
    app.addHook('onClose', async () => { process.off('SIGHUP', onHangup) })
  }
}

export default fp(slos, { name: 'slos', dependencies: ['reader', 'registry', 'collections'] })
