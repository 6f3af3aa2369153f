// Doors that are not Fastify routes (the StatsD listeners) close before the
// writer drains: registered before the writer, this plugin's preClose hook
// runs first (Fastify runs preClose hooks in the order they were added), so
// what a door holds is submitted while the writer still takes it.
import fp from 'fastify-plugin'

async function doors (app) {
  const closers = []
  app.decorate('doors', {
    /** close: async () => {}, run on preClose before the writer's */
    onClose (close) { closers.push(close) }
  })
  app.addHook('preClose', async () => {
    await Promise.all(closers.splice(0).map(close => close()))
  })
}

export default fp(doors, { name: 'doors' })
