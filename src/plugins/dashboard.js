// The dashboard at `/`: static files from src/dashboard/ and uPlot from its
// npm package under /vendor/uplot/ (no CDN). The page uses only the public
// JSON API, so it needs nothing else from the server.
import fastifyStatic from '@fastify/static'
import fp from 'fastify-plugin'
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'

const dashboardRoot = fileURLToPath(new URL('../dashboard/', import.meta.url))
const uplotRoot = dirname(fileURLToPath(import.meta.resolve('uplot')))

async function dashboard (app) {
  // wildcard: false makes one route per file found at boot: no catch-all GET,
  // unknown paths still reach the JSON 404 handler.
  await app.register(fastifyStatic, {
    root: dashboardRoot,
    prefix: '/',
    wildcard: false,
    index: ['index.html'],
    logLevel: 'warn'
  })
  await app.register(fastifyStatic, {
    root: uplotRoot,
    prefix: '/vendor/uplot/',
    wildcard: false,
    decorateReply: false,
    allowedPath: path => /^\/uPlot\.(iife(\.min)?\.js|min\.css)$/.test(path),
    maxAge: '1d',
    logLevel: 'warn'
  })
}

export default fp(dashboard, { name: 'dashboard' })
