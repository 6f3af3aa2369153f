// While the app drains and closes, every answer carries `Connection: close`,
// so that a keep-alive client opens a new connection (to another instance)
// instead of sending into a socket that is about to close. The drain begins
// before the close (src/shutdown.js: app.beginDrain()), so that idle
// keep-alive connections have a grace period to be told.
import fp from 'fastify-plugin'

async function closing (app) {
  let isClosing = false
  app.decorate('beginDrain', () => { isClosing = true })
  app.decorate('isDraining', () => isClosing)
  app.addHook('preClose', async () => { isClosing = true })
  app.addHook('onSend', (request, reply, payload, done) => {
    if (isClosing) reply.header('connection', 'close')
    done(null, payload)
  })
}

export default fp(closing, { name: 'closing' })
