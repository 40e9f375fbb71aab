/**
 * The resource server built on the SDK's auth helpers, against a real mock-idp: what
 * `requireBearerAuth` and `mcpAuthMetadataRouter` answer, and the official SDK client getting an
 * MCP session with a token.
 */
import { controlClient, type MockIdp, startMockIdp } from '@gatehouse/mock-idp'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type SdkResourceServer, startSdkResourceServer } from '../src/sdk-resource-server.js'

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'test', version: '0' },
  },
}

describe('startSdkResourceServer', () => {
  let idp: MockIdp
  let rs: SdkResourceServer

  beforeAll(async () => {
    idp = await startMockIdp()
    rs = await startSdkResourceServer({ issuer: idp.issuer, audience: idp.audience })
  }, 30_000)

  afterAll(async () => {
    await rs?.stop()
    await idp?.stop()
  })

  async function token(claims: Record<string, unknown> = {}, expiresIn?: number) {
    const { access_token } = await controlClient(idp.controlUrl).token({
      sub: 'alice',
      claims,
      ...(expiresIn === undefined ? {} : { expiresIn }),
    })
    return access_token
  }

  function post(authorization?: string) {
    return fetch(rs.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(authorization ? { authorization } : {}),
      },
      body: JSON.stringify(INIT),
    })
  }

  it('serves RFC 9728 metadata at the path form, naming the issuer as its authorization server', async () => {
    expect(rs.resourceMetadataUrl).toBe(`${rs.origin}/.well-known/oauth-protected-resource/mcp`)
    const prm = (await (await fetch(rs.resourceMetadataUrl)).json()) as Record<string, unknown>
    expect(prm.resource).toBe(rs.url)
    expect(prm.authorization_servers).toEqual([idp.issuer])
    const asm = (await (
      await fetch(`${rs.origin}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, unknown>
    expect(asm.issuer).toBe(idp.issuer)
  })

  it('answers a request without a token with 401 and a challenge naming its metadata', async () => {
    const res = await post()
    expect(res.status).toBe(401)
    expect(res.headers.get('www-authenticate')).toContain(
      `resource_metadata="${rs.resourceMetadataUrl}"`,
    )
  })

  it('refuses a token for another audience, an expired one and a garbage one with 401 invalid_token', async () => {
    for (const bad of [await token({ aud: 'api://other' }), await token({}, -60), 'not-a-jwt']) {
      const res = await post(`Bearer ${bad}`)
      expect(res.status).toBe(401)
      expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"')
    }
  })

  it('lets the SDK client with a valid token list the tools and call echo', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(rs.url), {
      requestInit: { headers: { authorization: `Bearer ${await token()}` } },
    })
    const client = new Client({ name: 'test', version: '0' })
    await client.connect(transport)
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo'])
    const result = await client.callTool({ name: 'echo', arguments: { text: 'hi' } })
    expect(result.content).toEqual([{ type: 'text', text: 'hi' }])
    await client.close()
  })
})
