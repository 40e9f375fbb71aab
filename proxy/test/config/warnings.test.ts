import { describe, expect, it } from 'vitest'
import { parseConfig as parseText } from '../../src/config/load.js'
import type { GatehouseConfigInput } from '../../src/config/schema.js'
import { configWarnings } from '../../src/config/warnings.js'
import { authConfig } from '../auth/config.js'

/** JSON is YAML: the file parser, given an object. */
const parseConfig = (config: GatehouseConfigInput) => parseText(JSON.stringify(config))

const base = (allowHeaders?: string[]) =>
  authConfig({
    idpPort: 9000,
    backendPort: 8090,
    issuer: 'http://127.0.0.1:9000/oauth2/default',
    ...(allowHeaders ? { allowHeaders } : {}),
  })

describe('configuration warnings', () => {
  it("names the MCP transport headers a CORS filter on an MCP route lacks (the seed's values)", () => {
    const warnings = configWarnings(parseConfig(base()))
    expect(warnings).toEqual([
      {
        path: 'routes.mcp.rules[0].filters[0].cors.allowHeaders',
        message: expect.stringMatching(
          /^lacks Mcp-Session-Id, MCP-Protocol-Version, Mcp-Method, Mcp-Name: browser MCP clients/,
        ),
      },
    ])
  })

  it('is quiet when the headers are allowed (any case), or all are', () => {
    for (const headers of [
      [
        'Origin',
        'Authorization',
        'Content-Type',
        'mcp-session-id',
        'mcp-protocol-version',
        'MCP-METHOD',
        'mcp-name',
      ],
      ['*'],
    ]) {
      expect(configWarnings(parseConfig(base(headers))), headers.join()).toEqual([])
    }
  })

  it('names only what is missing', () => {
    const config = base([
      'Authorization',
      'Content-Type',
      'Mcp-Session-Id',
      'Mcp-Method',
      'Mcp-Name',
    ])
    expect(configWarnings(parseConfig(config))[0]?.message).toMatch(/^lacks MCP-Protocol-Version:/)
  })

  it('no longer warns about ui.gateway, which is served now (read-only view on the gateway)', () => {
    const config = base(['*'])
    config.ui = { gateway: 'default' }
    expect(configWarnings(parseConfig(config))).toEqual([])
  })

  it('leaves routes without an MCP policy alone', () => {
    const config = base()
    const policy = config.policies?.['mcp-auth']
    if (!policy?.traffic.jwtAuthentication) throw new Error('authConfig has no jwtAuthentication')
    delete policy.traffic.jwtAuthentication.mcp
    expect(configWarnings(parseConfig(config))).toEqual([])
  })

  it('says a backendRef port that disagrees with the backend is ignored, and is quiet when they agree', () => {
    const config = base(['*'])
    const rule = config.routes?.mcp?.rules[0]
    const provider = config.policies?.['mcp-auth']?.traffic.jwtAuthentication?.providers?.[0]
    const jwksRef = provider?.jwks?.remote?.backendRef
    if (!rule?.backendRefs[0] || !jwksRef) throw new Error('authConfig changed shape')
    rule.backendRefs[0].port = 8090 // the backend's own port: fine
    jwksRef.port = 443 // the seed's value, but the IdP backend here listens on 9000
    expect(configWarnings(parseConfig(config))).toEqual([
      {
        path: 'policies.mcp-auth.traffic.jwtAuthentication.providers[0].jwks.remote.backendRef.port',
        message:
          'is ignored: gatehouse connects to backends.idp.static.port (9000), not 443; remove it or make the two agree',
      },
    ])
  })
})
