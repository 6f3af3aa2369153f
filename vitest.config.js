import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.js'],
    globalSetup: ['test/helpers/global-setup.js'],
    testTimeout: 30_000,
    hookTimeout: 180_000,
    pool: 'forks'
  }
})
