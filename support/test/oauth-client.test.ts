import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import {
  followAuthorizationRedirect,
  MemoryOAuthClient,
  preRegisteredFromEnvironment,
  sameIssuer,
} from '../src/oauth-client.js'

const REDIRECT = 'http://127.0.0.1:33418/callback'
const ISSUER = 'https://as.example'

/** The redirect back to the client, as an authorization server writes it. */
function response(params: Record<string, string>): URL {
  const url = new URL(REDIRECT)
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v)
  return url
}

/** A provider whose "browser" answers with `back(state)`, after discovery of ISSUER. */
function provider(
  back: (state: string) => Record<string, string>,
  options: { sdkChecksResponse?: boolean; issParameterSupported?: boolean } = {},
) {
  let state = ''
  const client = new MemoryOAuthClient({
    redirectUrl: REDIRECT,
    clientName: 'kit test',
    authorize: () => response(back(state)),
    ...(options.sdkChecksResponse ? { sdkChecksResponse: true } : {}),
  })
  client.saveDiscoveryState({
    authorizationServerUrl: ISSUER,
    authorizationServerMetadata: {
      issuer: ISSUER,
      authorization_response_iss_parameter_supported: options.issParameterSupported ?? false,
    },
  })
  state = client.state()
  return client
}

describe('MemoryOAuthClient', () => {
  it('keeps what the SDK saves and describes a public client with its redirect URI', () => {
    const client = new MemoryOAuthClient({ redirectUrl: REDIRECT, clientName: 'kit test' })
    expect(client.clientMetadata).toEqual({
      client_name: 'kit test',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    })
    client.saveClientInformation({ client_id: 'c1' })
    client.saveTokens({ access_token: 'a', token_type: 'Bearer', refresh_token: 'r' })
    client.saveCodeVerifier('v')
    expect(client.clientInformation()).toEqual({ client_id: 'c1' })
    expect(client.tokens()?.refresh_token).toBe('r')
    expect(client.codeVerifier()).toBe('v')
    expect(client.state()).not.toBe(client.state())
  })

  it('records the authorization URL without an authorize function', async () => {
    const client = new MemoryOAuthClient({ redirectUrl: REDIRECT, clientName: 'kit test' })
    await client.redirectToAuthorization(new URL(`${ISSUER}/authorize?x=1`))
    expect(client.authorizationUrl?.href).toBe(`${ISSUER}/authorize?x=1`)
    expect(client.authorizations).toBe(1)
    expect(client.code).toBeUndefined()
  })

  it('keeps the code of a response whose state and iss are right', async () => {
    const client = provider((state) => ({ code: 'c', state, iss: ISSUER }))
    await client.redirectToAuthorization(new URL(`${ISSUER}/authorize`))
    expect(client.code).toBe('c')
    expect(client.callbackParams?.get('code')).toBe('c')
  })

  it('refuses a response whose state is not the one sent (RFC 6749 §10.12)', async () => {
    const client = provider(() => ({ code: 'c', state: 'forged' }))
    await expect(client.redirectToAuthorization(new URL(ISSUER))).rejects.toThrow(
      /state is not the one sent/,
    )
    expect(client.code).toBeUndefined()
  })

  it('refuses another issuer in iss, and a missing iss the metadata promised (RFC 9207)', async () => {
    const other = provider((state) => ({ code: 'c', state, iss: 'https://evil.example' }))
    await expect(other.redirectToAuthorization(new URL(ISSUER))).rejects.toThrow(/RFC 9207/)
    const missing = provider((state) => ({ code: 'c', state }), { issParameterSupported: true })
    await expect(missing.redirectToAuthorization(new URL(ISSUER))).rejects.toThrow(/RFC 9207/)
  })

  it('refuses an error response and one without a code', async () => {
    const error = provider((state) => ({ error: 'access_denied', state }))
    await expect(error.redirectToAuthorization(new URL(ISSUER))).rejects.toThrow(/access_denied/)
    const none = provider((state) => ({ state }))
    await expect(none.redirectToAuthorization(new URL(ISSUER))).rejects.toThrow(/no code/)
  })

  it('with sdkChecksResponse, checks only state and leaves iss to the SDK', async () => {
    const client = provider((state) => ({ code: 'c', state, iss: 'https://evil.example' }), {
      sdkChecksResponse: true,
    })
    await client.redirectToAuthorization(new URL(ISSUER))
    expect(client.callbackParams?.get('iss')).toBe('https://evil.example')
    const forged = provider(() => ({ code: 'c', state: 'x' }), { sdkChecksResponse: true })
    await expect(forged.redirectToAuthorization(new URL(ISSUER))).rejects.toThrow(/state/)
  })

  it('with strictIssuer, refuses metadata whose issuer is not its identifier (RFC 8414 §3.3)', () => {
    const client = new MemoryOAuthClient({
      redirectUrl: REDIRECT,
      clientName: 'kit test',
      strictIssuer: true,
    })
    expect(() =>
      client.saveDiscoveryState({
        authorizationServerUrl: ISSUER,
        authorizationServerMetadata: { issuer: 'https://evil.example' },
      }),
    ).toThrow(/RFC 8414/)
    client.saveDiscoveryState({
      authorizationServerUrl: `${ISSUER}/`,
      authorizationServerMetadata: { issuer: ISSUER },
    })
    expect(client.discoveryState()?.authorizationServerUrl).toBe(`${ISSUER}/`)
  })

  it('compares issuers as RFC 8414 §3.3 does, the empty path written "/" aside', () => {
    expect(sameIssuer(ISSUER, ISSUER)).toBe(true)
    expect(sameIssuer(ISSUER, `${ISSUER}/`)).toBe(true)
    expect(sameIssuer(`${ISSUER}/t`, `${ISSUER}/t/`)).toBe(false)
    expect(sameIssuer(undefined, ISSUER)).toBe(false)
  })
})

describe('followAuthorizationRedirect', () => {
  it("returns the authorization server's redirect, resolved against the URL", async () => {
    const server = createServer((_req, res) => {
      res.writeHead(302, { location: '/callback?code=c' }).end()
    })
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    try {
      const back = await followAuthorizationRedirect(new URL(`${base}/authorize`))
      expect(back.href).toBe(`${base}/callback?code=c`)
    } finally {
      server.close()
    }
  })
})

describe('preRegisteredFromEnvironment', () => {
  it('reads the client of auth/pre-registration from MCP_CONFORMANCE_CONTEXT, and nothing otherwise', () => {
    const scenario = 'auth/pre-registration'
    expect(
      preRegisteredFromEnvironment(REDIRECT, {
        MCP_CONFORMANCE_SCENARIO: scenario,
        MCP_CONFORMANCE_CONTEXT: JSON.stringify({ client_id: 'c', client_secret: 's' }),
      }),
    ).toEqual({ client_id: 'c', client_secret: 's', redirect_uris: [REDIRECT] })
    expect(preRegisteredFromEnvironment(REDIRECT, { MCP_CONFORMANCE_SCENARIO: 'auth/basic' })).toBe(
      undefined,
    )
    expect(() =>
      preRegisteredFromEnvironment(REDIRECT, { MCP_CONFORMANCE_SCENARIO: scenario }),
    ).toThrow(/names no client_id/)
  })
})
