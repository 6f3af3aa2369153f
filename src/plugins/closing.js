// While the app closes, every answer carries `Connection: close`, so that a
// keep-alive client opens a new connection (to another instance) instead of
// sending into a socket that is about to close.
import fp from 'fastify-plugin'

async function closing (app) {
  let isClosing = false
  app.addHook('preClose', async () => { isClosing = true })
  app.addHook('onSend', async (request, reply) => {
    if (isClosing) reply.header('connection', 'close')
  })
}

export default fp(closing, { name: 'closing' })
