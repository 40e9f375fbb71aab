/** The schema of `jwtAuthentication.mcp.broker` (docs/design/broker.md). */
import { describe, expect, it } from 'vitest'
import { parseConfig } from '../../../src/config/load.js'
import { ConfigError } from '../../../src/errors.js'
import { authConfig } from '../../auth/config.js'

const BASE = { idpPort: 9000, backendPort: 9001, issuer: 'http://127.0.0.1:9000/oauth2/default' }

function parse(broker: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return parseConfig(JSON.stringify(authConfig({ ...BASE, broker, ...extra })), 'test.yaml', {})
}

function messages(broker: Record<string, unknown>, extra: Record<string, unknown> = {}): string[] {
  try {
    parse(broker, extra)
  } catch (err) {
    if (err instanceof ConfigError) return err.issues.map((i) => `${i.path}: ${i.message}`)
    throw err
  }
  throw new Error('expected a ConfigError')
}

const MCP = 'policies.mcp-auth.traffic.jwtAuthentication.mcp.broker'

describe('mcp.broker configuration', () => {
  it('fills every default from an empty block, leaving the store to the state directory', () => {
    const broker = parse({}).policies['mcp-auth']?.traffic.jwtAuthentication?.mcp?.broker
    // No store block: SQLite in the state directory (broker/store.ts, effectiveStore).
    expect(broker?.store).toBeUndefined()
    // The scopes default to the provider's preset's (config/idp-presets.ts), resolved at compile.
    expect(broker?.upstreamClient.scopes).toBeUndefined()
    expect(broker?.clientMetadataDocuments).toMatchObject({
      enabled: true,
      allowHttp: false,
      allowPrivateAddresses: false,
      maxBytes: 16_384,
      maxRedirects: 0,
    })
    expect(broker?.clientMetadataDocuments.timeout.ms).toBe(5000)
    expect(broker?.authorization.codeTtl.ms).toBe(60_000)
    expect(broker?.registration.perSourceLimit).toBe(20)
  })

  it('rejects an unknown field, naming its path', () => {
    expect(messages({ stroe: {} }).join('\n')).toMatch(
      new RegExp(`${MCP.replace(/\./g, '\\.')}.*stroe`),
    )
  })

  it('requires an upstream client id when mcp.clientId is not set', () => {
    expect(messages({}, { clientId: null })).toEqual([
      expect.stringMatching(/broker\.upstreamClient\.clientId: required when mcp\.clientId/),
    ])
  })

  it('requires a shared secret with the redis store', () => {
    const out = messages({ store: { redis: { url: 'redis://127.0.0.1:6379' } } })
    expect(out).toEqual([expect.stringMatching(/broker\.secret: required with store\.redis/)])
    const ok = parse({
      secret: 'x'.repeat(32),
      store: { redis: { url: 'redis://127.0.0.1:6379' } },
    })
    const store = ok.policies['mcp-auth']?.traffic.jwtAuthentication?.mcp?.broker?.store
    expect(store).toMatchObject({ redis: { keyPrefix: 'gatehouse:', maxEntries: 100_000 } })
  })

  it('refuses a Redis password in the URL, where a dump would show it', () => {
    const out = messages({
      secret: 'x'.repeat(32),
      store: { redis: { url: 'redis://:hunter2@127.0.0.1:6379' } },
    })
    expect(out.join('\n')).toMatch(/store\.redis\.password/)
  })

  it('refuses both stores at once and a short secret', () => {
    expect(messages({ store: { memory: {}, redis: { url: 'redis://h' } } }).join('\n')).toMatch(
      /exactly one of store\.memory, store\.sqlite or store\.redis/,
    )
    const sqlite = parse({ store: { sqlite: { path: 'state/gatehouse.db' } } })
    expect(sqlite.policies['mcp-auth']?.traffic.jwtAuthentication?.mcp?.broker?.store).toEqual({
      sqlite: { path: 'state/gatehouse.db', maxEntries: 100_000 },
    })
    expect(messages({ secret: 'short' }).join('\n')).toMatch(/at least 32 characters/)
  })

  it('requires a client secret for a client_secret_* upstream method', () => {
    expect(
      messages({ upstreamClient: { tokenEndpointAuthMethod: 'client_secret_post' } }).join('\n'),
    ).toMatch(/upstreamClient\.clientSecret: required with tokenEndpointAuthMethod/)
  })

  it('bounds the metadata-document guards', () => {
    expect(messages({ clientMetadataDocuments: { maxBytes: 50_000_000 } }).join('\n')).toMatch(
      /maxBytes: expected an integer from 256 to 1048576/,
    )
    expect(messages({ clientMetadataDocuments: { timeout: '5m' } }).join('\n')).toMatch(
      /timeout: expected a duration from 100ms to 30s/,
    )
  })
})
