/**
 * Authentication (401), authorization (403) and the MCP OAuth endpoints over real HTTP, with a
 * key endpoint the test switches on and off (tiny-idp) and the real MCP backend.
 */
import { connect } from 'node:net'
import { initializeRequest, type McpBackend, startMcpBackend } from '@gatehouse/mock-mcp'
import { exportJWK, generateKeyPair } from 'jose'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { parseConfig } from '../../src/index.js'
import { compileOrThrow } from '../../src/lifecycle/compile.js'
import { type AuthConfigOptions, authConfig } from '../auth/config.js'
import { startTinyIdp, type TinyIdp } from '../auth/tiny-idp.js'
import { startTestGatehouse, type TestGatehouse } from '../helpers.js'

let idp: TinyIdp
let backend: McpBackend
let gh: TestGatehouse
const extra: TestGatehouse[] = []

function post(
  base: string,
  token?: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${base}/mcp`, initializeRequest({ bearer: token, headers }))
}

async function start(o: Partial<AuthConfigOptions> = {}): Promise<TestGatehouse> {
  const g = await startTestGatehouse(
    authConfig({ idpPort: idp.port, backendPort: backend.port, issuer: idp.issuer, ...o }),
  )
  extra.push(g)
  return g
}

const PRM = 'http://gateway.example:3000/.well-known/oauth-protected-resource/mcp'

beforeAll(async () => {
  idp = await startTinyIdp()
  backend = await startMcpBackend()
  gh = await start()
})
afterEach(() => {
  idp.keysDown(false)
  idp.discoveryDown(false)
  idp.discoveryDocument(undefined)
})
afterAll(async () => {
  for (const g of extra) await g.stop('test done')
  await backend.stop()
  await idp.stop()
})

describe('authentication (seed: Authentication 1-2, Errors)', () => {
  it('answers 401 with the resource_metadata challenge built from the configured resource', async () => {
    const res = await post(gh.url)
    expect(res.status).toBe(401)
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${PRM}", scope="openid profile"`,
    )
    expect(await res.json()).toMatchObject({
      error: 'unauthorized',
      error_description: expect.any(String),
    })
  })

  it('forwards a valid token for a user in the group, without the Authorization header', async () => {
    await fetch(`${backend.origin}/__requests`, { method: 'DELETE' })
    const res = await post(gh.url, await idp.sign())
    expect(res.status).toBe(200)
    const seen = (await (await fetch(`${backend.origin}/__requests`)).json()) as Array<{
      hasAuthorization: boolean
    }>
    expect(seen.length).toBeGreaterThan(0)
    expect(seen.every((r) => !r.hasAuthorization)).toBe(true)
  })

  it.each([
    ['expired', { exp: Math.floor(Date.now() / 1000) - 3600 }],
    ['not yet valid', { nbf: Math.floor(Date.now() / 1000) + 3600 }],
    ['wrong issuer', { iss: 'https://evil.example/oauth2/default' }],
    ['wrong audience', { aud: 'api://other' }],
  ])('refuses a token that is %s with 401 invalid_token', async (_name, claims) => {
    const res = await post(gh.url, await idp.sign(claims))
    expect(res.status).toBe(401)
    const challenge = res.headers.get('www-authenticate') ?? ''
    expect(challenge).toContain(`resource_metadata="${PRM}"`)
    expect(challenge).toContain('error="invalid_token"')
  })

  it('refuses unknown kid, alg none, HS256 signed with the public key, and garbage', async () => {
    const good = await idp.sign()
    const [h, p] = good.split('.')
    const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url')
    const payload = JSON.parse(Buffer.from(p ?? '', 'base64url').toString()) as Record<
      string,
      unknown
    >
    const other = await generateKeyPair('RS256')
    const unknownKid = await idp.sign({}, { kid: 'nobody', key: other.privateKey })
    const none = `${enc({ alg: 'none', typ: 'JWT' })}.${enc(payload)}.`
    const jwk = idp.currentKey().jwk
    const { createHmac } = await import('node:crypto')
    const hsHeader = enc({ alg: 'HS256', kid: jwk.kid })
    const hsBody = enc(payload)
    const secret = JSON.stringify(jwk)
    const hs = `${hsHeader}.${hsBody}.${createHmac('sha256', secret).update(`${hsHeader}.${hsBody}`).digest('base64url')}`
    const tampered = `${h}.${enc({ ...payload, groups: ['AI-Users', 'admins'] })}.${good.split('.')[2]}`
    for (const token of [unknownKid, none, hs, tampered, 'garbage', 'a.b.c']) {
      const res = await post(gh.url, token)
      expect(res.status, token.slice(0, 20)).toBe(401)
      expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"')
    }
  })

  it('answers 400 invalid_request to a request with two Authorization headers', async () => {
    const token = await idp.sign()
    const body = initializeRequest().body as string
    const { port } = new URL(gh.url)
    // Raw bytes: fetch and http.request would fold the two headers into one.
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1')
      let text = ''
      socket.on('data', (c) => (text += c))
      socket.on('end', () => resolve(text))
      socket.on('error', reject)
      socket.end(
        [
          'POST /mcp HTTP/1.1',
          `Host: 127.0.0.1:${port}`,
          'Content-Type: application/json',
          'Accept: application/json, text/event-stream',
          `Authorization: Bearer ${token}`,
          'Authorization: Bearer other',
          'Connection: close',
          `Content-Length: ${Buffer.byteLength(body)}`,
          '',
          body,
        ].join('\r\n'),
      )
    })
    expect(answer).toMatch(/^HTTP\/1\.1 400 /)
    expect(answer).toMatch(/\r\nwww-authenticate: Bearer .*error="invalid_request"/i)
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({
      error: 'invalid_request',
      error_description: expect.stringContaining('2 Authorization headers'),
    })
  })

  it('answers 404, not 401, to /mcp/.well-known/openid-configuration (no metadata there; not the MCP endpoint)', async () => {
    for (const suffix of ['openid-configuration', 'oauth-authorization-server']) {
      const res = await fetch(`${gh.url}/mcp/.well-known/${suffix}`)
      expect(res.status).toBe(404)
      expect(res.headers.get('www-authenticate')).toBeNull()
      const answer = (await res.json()) as { error: string; error_description: string }
      expect(answer.error).toBe('not_found')
      expect(answer.error_description).toContain('/.well-known/oauth-protected-resource/mcp')
    }
    // The resource itself still asks for a token.
    expect((await fetch(`${gh.url}/mcp`, { method: 'POST' })).status).toBe(401)
  })

  it('does not accept a token in the query string', async () => {
    const res = await fetch(`${gh.url}/mcp?access_token=${await idp.sign()}`, initializeRequest())
    expect(res.status).toBe(401)
  })

  it('accepts a token signed with a rotated key without a restart', async () => {
    await idp.rotate()
    const res = await post(gh.url, await idp.sign())
    expect(res.status).toBe(200)
  })

  it('keeps the last-known-good keys when the key endpoint fails after start', async () => {
    idp.keysDown(true)
    const keyFetches = () => idp.hits.filter((h) => h.path === '/oauth2/default/v1/keys').length
    const before = keyFetches()
    // A kid the gateway does not know makes it fetch the key set now, from the failing endpoint.
    const unknown = await post(gh.url, await idp.sign({}, { kid: 'key-never-published' }))
    expect(unknown.status).toBe(401)
    expect(keyFetches()).toBeGreaterThan(before)
    const res = await post(gh.url, await idp.sign())
    expect(res.status).toBe(200)
  })

  it('carries CORS headers on a 401 and exposes WWW-Authenticate to the browser', async () => {
    const res = await post(gh.url, undefined, { origin: 'http://app.example' })
    expect(res.status).toBe(401)
    expect(res.headers.get('access-control-allow-origin')).toBe('http://app.example')
    expect(res.headers.get('access-control-expose-headers')?.toLowerCase()).toContain(
      'www-authenticate',
    )
  })

  it("warns at start that the seed's CORS headers break browser MCP sessions", () => {
    const warnings = gh.logs.filter(
      (l) => l.level === 'warn' && l.module === 'proxy::config' && l.path !== undefined,
    )
    expect(warnings.map((l) => l.path)).toEqual([
      'routes.mcp.rules[0].filters[0].cors.allowHeaders',
    ])
    expect(String(warnings[0]?.msg)).toContain(
      'lacks Mcp-Session-Id, MCP-Protocol-Version, Mcp-Method, Mcp-Name',
    )
  })
})

describe('fail closed (seed: Errors, "Wrong domain or JWKS path")', () => {
  it('answers 401 on a wrong jwksPath, reports the policy not programmed and logs it', async () => {
    const g = await start({ jwksPath: '/oauth2/wrong/v1/keys' })
    const res = await post(g.url, await idp.sign())
    expect(res.status).toBe(401)
    const status = [...g.policies().values()][0]?.status()
    expect(status).toMatchObject({ accepted: true, programmed: false, reason: 'JwksUnavailable' })
    expect(status?.message).toContain('/oauth2/wrong/v1/keys')
    expect(g.logs.some((l) => l.code === 'GW_ERR_JWKS_UNAVAILABLE')).toBe(true)
    await g.stop('done')
  })

  it('recovers by itself once the keys become available', async () => {
    idp.keysDown(true)
    const g = await start()
    expect(await post(g.url, await idp.sign()).then((r) => r.status)).toBe(401)
    idp.keysDown(false)
    let status = 0
    for (let i = 0; i < 40 && status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 250))
      status = (await post(g.url, await idp.sign())).status
    }
    expect(status).toBe(200)
    expect([...g.policies().values()][0]?.status().programmed).toBe(true)
    await g.stop('done')
  })
})

describe('authorization (seed: Authentication 3)', () => {
  it('answers 403 insufficient_scope without a scope parameter to a valid token outside the group', async () => {
    const res = await post(gh.url, await idp.sign({ sub: 'bob', groups: [] }))
    expect(res.status).toBe(403)
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${PRM}", error="insufficient_scope"`,
    )
    expect(await res.json()).toMatchObject({ error: 'insufficient_scope' })
  })

  it('denies a client-only token without groups (the rule cannot be evaluated)', async () => {
    const token = await idp.sign({ sub: 'service-client', groups: undefined, uid: undefined })
    expect((await post(gh.url, token)).status).toBe(403)
  })

  it('names required scopes in the challenge when the policy lists them', async () => {
    const g = await start({ requiredScopes: ['mcp:tools'] })
    const res = await post(g.url, await idp.sign({ groups: [] }))
    expect(res.headers.get('www-authenticate')).toContain('scope="mcp:tools"')
    await g.stop('done')
  })

  it('rejects a configuration whose CEL expression does not parse, naming it', async () => {
    const config = parseConfig(
      JSON.stringify(
        authConfig({
          idpPort: 1,
          backendPort: 2,
          issuer: idp.issuer,
          rules: ['jwt.groups.exists(g, '],
        }),
      ),
      'bad.yaml',
    )
    await expect(compileOrThrow(config, 'bad.yaml')).rejects.toThrow(
      /matchExpressions\[0\].*jwt\.groups\.exists/s,
    )
  })

  it.each([
    ['an unknown variable', '"AI-Users" in jwts.groups', 'Unknown variable: jwts'],
    ['a missing overload', 'jwt.sub + 1 == 2 && 1 + "a" == "1a"', 'no such overload'],
    ['a rule that is not a boolean', 'size(jwt.groups)', 'must be a boolean'],
  ])(
    'rejects at load (as --validate does) a rule with %s instead of denying every request',
    async (_what, rule, reason) => {
      const config = parseConfig(
        JSON.stringify(
          authConfig({ idpPort: 1, backendPort: 2, issuer: idp.issuer, rules: [rule] }),
        ),
        'bad.yaml',
      )
      const err = await compileOrThrow(config, 'bad.yaml').then(
        () => undefined,
        (e: Error) => e,
      )
      expect(err?.message).toContain(
        'policies.mcp-auth.traffic.authorization.policy.matchExpressions[0]',
      )
      expect(err?.message).toContain(reason)
    },
  )

  it('reads the bearer credential as RFC 6750 §2.1 writes it, and nothing else', async () => {
    const token = await idp.sign()
    const status = async (authorization: string) =>
      (await post(gh.url, undefined, { authorization })).status
    // 1*SP between the scheme and the token, any case of the scheme (HTTP trims the value).
    expect(await status(`Bearer  ${token}`)).toBe(200)
    expect(await status(`bearer ${token} `)).toBe(200)
    // Anything around it makes it a malformed credential: 401.
    expect(await status(`XBearer ${token}`)).toBe(401)
    expect(await status(`Bearer ${token} trailing`)).toBe(401)
    expect(await status(`Bearer ${token}!`)).toBe(401)
  })

  it('lets a request without a token through in Optional mode when there are no rules', async () => {
    const g = await start({ mode: 'Optional', rules: null })
    expect((await post(g.url)).status).toBe(200)
    expect((await post(g.url, 'garbage')).status).toBe(401)
    await g.stop('done')
  })
})

describe('MCP OAuth endpoints (seed: Endpoints, data plane)', () => {
  it('serves RFC 9728 protected-resource metadata pointing at the gateway', async () => {
    const res = await fetch(`${gh.url}/.well-known/oauth-protected-resource/mcp`)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({
      resource: 'http://gateway.example:3000/mcp',
      authorization_servers: ['http://gateway.example:3000/mcp'],
      scopes_supported: ['openid', 'profile'],
      bearer_methods_supported: ['header'],
    })
  })

  it('serves the same document at the root form, unauthenticated (MCP 2025-11-25 fallback)', async () => {
    const path = await (await fetch(`${gh.url}/.well-known/oauth-protected-resource/mcp`)).json()
    const res = await fetch(`${gh.url}/.well-known/oauth-protected-resource`)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual(path)
  })

  it('serves authorization-server metadata from OIDC discovery, bridged', async () => {
    const res = await fetch(`${gh.url}/.well-known/oauth-authorization-server/mcp`)
    expect(res.status).toBe(200)
    const doc = (await res.json()) as Record<string, string>
    expect(doc.issuer).toBe(idp.issuer)
    expect(doc.jwks_uri).toBe(`${idp.issuer}/v1/keys`)
    expect(doc.authorization_endpoint).toBe(
      `${idp.issuer}/v1/authorize?audience=api%3A%2F%2Fdefault`,
    )
    expect(doc.registration_endpoint).toBe(
      'http://gateway.example:3000/.well-known/oauth-authorization-server/mcp/client-registration',
    )
    expect(doc.token_endpoint).toBe(`${idp.issuer}/v1/token`)
  })

  it('answers with the gateway identifier as issuer in Gateway issuer mode', async () => {
    const g = await start({ issuerMode: 'Gateway' })
    const doc = (await (
      await fetch(`${g.url}/.well-known/oauth-authorization-server/mcp`)
    ).json()) as Record<string, string>
    expect(doc.issuer).toBe('http://gateway.example:3000/mcp')
    await g.stop('done')
  })

  it('answers 503 with a JSON error when discovery was never reachable', async () => {
    idp.discoveryDown(true)
    const g = await start()
    const res = await fetch(`${g.url}/.well-known/oauth-authorization-server/mcp`)
    expect(res.status).toBe(503)
    expect(((await res.json()) as { error_description: string }).error_description).toContain(
      'openid-configuration',
    )
    await g.stop('done')
  })

  it('answers 503 naming the problem when the discovery document is not one', async () => {
    idp.discoveryDocument({ authorization_endpoint: 'https://idp.example/authorize' })
    const g = await start()
    const res = await fetch(`${g.url}/.well-known/oauth-authorization-server/mcp`)
    expect(res.status).toBe(503)
    expect(((await res.json()) as { error_description: string }).error_description).toContain(
      'not an OpenID Connect discovery document (issuer: ',
    )
    await g.stop('done')
  })

  it('answers registration with the pre-registered client id (RFC 7591)', async () => {
    const res = await fetch(
      `${gh.url}/.well-known/oauth-authorization-server/mcp/client-registration`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          redirect_uris: ['http://127.0.0.1:5555/cb'],
          client_name: 'Inspector',
        }),
      },
    )
    expect(res.status).toBe(201)
    const body = (await res.json()) as Record<string, unknown>
    expect(body).toMatchObject({
      client_id: 'gatehouse-demo-client',
      redirect_uris: ['http://127.0.0.1:5555/cb'],
      token_endpoint_auth_method: 'none',
      client_name: 'Inspector',
      // RFC 7591 §2: the defaults when the client names none.
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    })
    expect(body.client_secret).toBeUndefined()
  })

  it('proxies registration to the org-level endpoint without clientId, and explains a 401', async () => {
    const g = await start({ clientId: null })
    const url = `${g.url}/.well-known/oauth-authorization-server/mcp/client-registration`
    const body = JSON.stringify({ redirect_uris: ['http://127.0.0.1:5555/cb'] })
    const refused = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    })
    expect(refused.status).toBe(401)
    expect(((await refused.json()) as { error_description: string }).error_description).toContain(
      'mcp.clientId',
    )
    const ok = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'SSWS test-api-token' },
      body,
    })
    expect(ok.status).toBe(201)
    // The IdP's answer, as it is (not turned into an explanation).
    expect(((await ok.json()) as { client_id: string }).client_id).toBe('registered-by-idp')
    const hit = idp.hits.filter((h) => h.path === '/oauth2/v1/clients').at(-1)
    expect(hit?.authorization).toBe('SSWS test-api-token')
    // A 403 (a token without the right to register) is explained like a 401.
    const forbidden = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'SSWS read-only-token' },
      body,
    })
    expect(forbidden.status).toBe(403)
    const explained = (await forbidden.json()) as { error: string; error_description: string }
    expect(explained.error).toBe('invalid_client_metadata')
    expect(explained.error_description).toContain('mcp.clientId')
    await g.stop('done')
  })

  it('serves no OAuth documents for a policy without mcp: its well-known paths need a token', async () => {
    const g = await start({ noMcp: true })
    for (const path of [
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-authorization-server/mcp',
    ]) {
      const res = await fetch(`${g.url}${path}`)
      expect(res.status, path).toBe(401)
    }
    await g.stop('done')
  })

  it('refuses non-JSON and non-POST registration requests', async () => {
    const url = `${gh.url}/.well-known/oauth-authorization-server/mcp/client-registration`
    expect(
      (await fetch(url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' }))
        .status,
    ).toBe(415)
    const put = await fetch(url, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    })
    expect(put.status).toBe(405)
    // RFC 9110 §15.5.6: a 405 names the methods the resource takes.
    expect(put.headers.get('allow')).toBe('POST, OPTIONS')
    expect(
      (
        await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '[1',
        })
      ).status,
    ).toBe(400)
  })

  it('names the member of bad client metadata, with the RFC 7591 error code for it', async () => {
    const url = `${gh.url}/.well-known/oauth-authorization-server/mcp/client-registration`
    const register = async (body: unknown) => {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      return { status: res.status, body: (await res.json()) as Record<string, string> }
    }
    const uris = await register({ redirect_uris: 'http://127.0.0.1:1/cb' })
    expect(uris.status).toBe(400)
    expect(uris.body.error).toBe('invalid_redirect_uri')
    expect(uris.body.error_description).toMatch(/^redirect_uris: /)
    const grants = await register({
      redirect_uris: ['http://127.0.0.1:1/cb'],
      grant_types: 'authorization_code',
    })
    expect(grants.body).toMatchObject({ error: 'invalid_client_metadata' })
    expect(grants.body.error_description).toMatch(/^grant_types: /)
    const array = await register([{ redirect_uris: [] }])
    expect(array.body).toMatchObject({ error: 'invalid_client_metadata' })
    // Unknown members are fine (read tolerantly).
    expect(
      (await register({ redirect_uris: ['http://127.0.0.1:1/cb'], x_vendor: { any: 1 } })).status,
    ).toBe(201)
  })
})

describe('inline key sets', () => {
  it('validates tokens against an inline JWKS (programmed without any fetch)', async () => {
    const { publicKey } = await generateKeyPair('ES256')
    const jwk = await exportJWK(publicKey)
    const config = authConfig({ idpPort: idp.port, backendPort: backend.port, issuer: idp.issuer })
    const provider = (config.policies?.['mcp-auth']?.traffic.jwtAuthentication?.providers ?? [])[0]
    if (!provider) throw new Error('no provider')
    provider.jwks = {
      inline: {
        keys: [...idp.publicJwks().keys, { ...jwk, kid: 'ec' }] as Array<Record<string, unknown>>,
      },
    }
    const g = await startTestGatehouse(config)
    extra.push(g)
    expect((await post(g.url, await idp.sign())).status).toBe(200)
    expect([...g.policies().values()][0]?.status().programmed).toBe(true)
  })
})
