import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { startAdmin } from '../../src/admin/server.js'
import { LOG_MODULES } from '../../src/telemetry/logging.js'
import { fakeContext } from './context.js'

const doc = readFileSync(new URL('../../../docs/admin-api.md', import.meta.url), 'utf8')

describe('docs/admin-api.md', () => {
  it('lists every log module', () => {
    for (const m of LOG_MODULES) expect(doc).toContain(`| \`${m}\` |`)
  })

  it('documents every endpoint the server registers', async () => {
    const admin = await startAdmin('127.0.0.1:0', fakeContext())
    try {
      const { endpoints } = (await (await fetch(`${admin.url}/nope`)).json()) as {
        endpoints: Array<{ path: string }>
      }
      expect(endpoints.length).toBeGreaterThan(5)
      for (const e of endpoints) expect(doc).toContain(`\`${e.path}\``)
    } finally {
      await admin.close()
    }
  })

  it('carries the loopback warning and the container caveat', () => {
    expect(doc).toContain('no authentication')
    expect(doc).toContain("container's own loopback")
  })
})
