import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { configJsonSchema, renderConfigReference } from '../../src/config/reference.js'

const root = new URL('../../../', import.meta.url)

describe('published configuration schema', () => {
  it('matches the committed proxy/config.schema.json (run `npm run schema` after changing the schema)', () => {
    const committed = readFileSync(new URL('proxy/config.schema.json', root), 'utf8')
    expect(committed).toBe(`${JSON.stringify(configJsonSchema(), null, 2)}\n`)
  })

  it('matches the committed docs/configuration.md (run `npm run schema` after changing the schema)', () => {
    const committed = readFileSync(new URL('docs/configuration.md', root), 'utf8')
    expect(committed).toBe(renderConfigReference())
  })

  it('documents every seed field of the standalone file and the policy', () => {
    const doc = renderConfigReference()
    for (const field of [
      'config.adminAddr',
      'gateways.<name>.port',
      'jwtAuthentication.mode',
      'providers[].issuer',
      'providers[].audiences',
      'jwks.remote.jwksPath',
      'mcp.provider',
      'mcp.clientId',
      'resourceMetadata.resource',
      'matchExpressions',
    ]) {
      expect(doc).toContain(field)
    }
  })
})
