// While the app drains and closes, every answer carries `Connection: close`,
// so that a keep-alive client opens a new connection (to another instance)
// instead of sending into a socket that is about to close. The drain begins
// before the close (src/shutdown.js: app.beginDrain()), so that idle
// keep-alive connections have a grace period to be told. Just before the
// listener closes, the drain holds every new request unanswered
// (holdRequests() → { held(), release() }) so that no client, answered,
// connects again at that instant; released, they go on as any other. An
// answer sent before its request's body was all received closes its
// connection in stages (close-in-stages.js).
import fp from 'fastify-plugin'
import { bodyUnread, closeInStages, droppedBehindClose } from './close-in-stages.js'

async function closing (app) {
  let isClosing = false
  let holding = null // { gate, held }
  app.decorate('beginDrain', () => { isClosing = true })
  app.decorate('isDraining', () => isClosing)
  app.decorate('holdRequests', () => {
    let open
    const hold = { gate: new Promise(resolve => { open = resolve }), held: 0 }
    holding = hold
    return { held: () => hold.held, release: () => { if (holding === hold) holding = null; open() } }
  })
  // first of the onRequest hooks (this plugin is registered before the others): nothing of a held request runs,
  // nor of one sent behind an answer that closes its connection (it ends with the connection, unanswered, at once)
  app.addHook('onRequest', (request, reply, done) => {
    if (droppedBehindClose(request.raw.socket)) return
    if (!holding) return done()
    const hold = holding
    hold.held++
    hold.gate.then(() => { hold.held--; done() })
  })
  app.addHook('preClose', async () => { isClosing = true })
  app.addHook('onSend', (request, reply, payload, done) => {
    if (isClosing) {
      reply.header('connection', 'close')
      // answered before its body was all received (a 401, a 413, a refused write): closed in stages, so its sender reads the answer
      if (bodyUnread(request.raw)) closeInStages(request.raw.socket)
    }
    done(null, payload)
  })
}

export default fp(closing, { name: 'closing' })
