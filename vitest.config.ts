import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: [
      '{redact,support,proxy,mock-idp,mock-mcp,conformance,gwctl,peers,mutation}/test/**/*.test.{ts,tsx}',
      'scripts/test/**/*.test.ts',
    ],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    reporters: ['default'],
  },
})
