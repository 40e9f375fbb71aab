import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { DiscoveryCache } from '../../../src/auth/discovery.js'
import { OAuthEndpoints } from '../../../src/auth/oauth-endpoints/endpoints.js'
import { BackendConfigSchema, McpAuthSchema } from '../../../src/config/schema.js'
import { RequestError } from '../../../src/errors.js'
import type { LocalRequest, LocalResponse } from '../../../src/http/local-response.js'
import { createUpstream, type Upstream } from '../../../src/http/upstream.js'
import { createLogging } from '../../../src/telemetry/logging.js'
import { TaskRegistry } from '../../../src/telemetry/tasks.js'
import { capturedLogging } from '../../helpers.js'
import { startTinyIdp, type TinyIdp } from '../tiny-idp.js'

const AS = '/.well-known/oauth-authorization-server/mcp'
const PRM = '/.well-known/oauth-protected-resource/mcp'
const REGISTER = `${AS}/client-registration`

let idp: TinyIdp
let upstream: Upstream
let logs: Array<Record<string, unknown>>
beforeEach(async () => {
  idp = await startTinyIdp()
  upstream = createUpstream(
    BackendConfigSchema.parse({ static: { host: '127.0.0.1', port: idp.port } }),
  )
  logs = []
})
afterEach(async () => {
  await upstream.close()
  await idp.stop()
})

function endpoints(
  mcp: Record<string, unknown> = {},
  o: { audience?: string | undefined; org?: boolean } = {},
): OAuthEndpoints {
  const log = capturedLogging(logs, 'info').logger('proxy::auth::mcp')
  const orgUpstream = o.org === false ? undefined : upstream
  return new OAuthEndpoints({
    mcp: McpAuthSchema.parse({
      provider: 'BridgedIdp',
      resourceMetadata: { resource: 'https://gw.example/mcp' },
      ...mcp,
    }),
    issuer: idp.issuer,
    audience: 'audience' in o ? o.audience : 'api://default',
    discovery: new DiscoveryCache(idp.issuer, orgUpstream, log, new TaskRegistry()),
    orgUpstream,
  })
}

function request(
  method: string,
  path: string,
  body?: string,
  headers: Record<string, string> = { 'content-type': 'application/json' },
): LocalRequest {
  const raw = Buffer.from(body ?? '')
  return {
    method,
    path,
    headers,
    headersDistinct: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
    // As the pipeline's reader does (dataplane/request-body.ts): a RequestError 413 past the limit.
    body: async (limit = 64 * 1024) => {
      if (raw.length > limit) {
        throw new RequestError('GW_ERR_BODY_TOO_LARGE', 'too large')
      }
      return raw
    },
  }
}

async function serve(e: OAuthEndpoints, req: LocalRequest): Promise<LocalResponse> {
  const res = await e.serve(req)
  if (!res) throw new Error(`${req.method} ${req.path} was not served`)
  return res
}

const body = (r: LocalResponse) => r.body as Record<string, unknown>

describe('protected-resource metadata (RFC 9728)', () => {
  it('holds the configured members, a default bearer method, and may be cached for 5 minutes', async () => {
    const e = endpoints({
      resourceMetadata: {
        resource: 'https://gw.example/mcp',
        scopesSupported: ['openid'],
        resourceName: 'Tools',
        resourceDocumentation: 'https://docs.example/tools',
      },
    })
    const res = await serve(e, request('GET', PRM))
    expect(res.status).toBe(200)
    expect(res.headers).toEqual({ 'cache-control': 'public, max-age=300' })
    expect(res.body).toEqual({
      resource: 'https://gw.example/mcp',
      authorization_servers: ['https://gw.example/mcp'],
      scopes_supported: ['openid'],
      bearer_methods_supported: ['header'],
      resource_name: 'Tools',
      resource_documentation: 'https://docs.example/tools',
    })
    expect(e.resourceMetadataUrl).toBe(`https://gw.example${PRM}`)
  })

  it('leaves out what is not configured, and names the IdP as authorization server outside BridgedIdp', async () => {
    const e = endpoints({ provider: undefined })
    const res = await serve(e, request('HEAD', '/.well-known/oauth-protected-resource'))
    expect(res.body).toEqual({
      resource: 'https://gw.example/mcp',
      authorization_servers: [idp.issuer],
      bearer_methods_supported: ['header'],
    })
    // Without BridgedIdp the gateway serves no authorization-server metadata.
    expect(await e.serve(request('GET', AS))).toBeUndefined()
  })

  it('takes the resource path without its trailing slash, and a root resource as no path', async () => {
    const slash = endpoints({ resourceMetadata: { resource: 'https://gw.example/mcp/' } })
    expect(slash.resourcePath).toBe('/mcp')
    expect((await serve(slash, request('GET', PRM))).status).toBe(200)
    const root = endpoints({ resourceMetadata: { resource: 'https://gw.example/' } })
    expect(root.resourcePath).toBe('')
    expect(root.resourceMetadataUrl).toBe('https://gw.example/.well-known/oauth-protected-resource')
    expect(
      (await serve(root, request('GET', '/.well-known/oauth-authorization-server'))).status,
    ).toBe(200)
  })

  it('answers 405 naming GET to another method, and leaves other paths alone', async () => {
    const e = endpoints()
    const res = await serve(e, request('POST', PRM))
    expect(res.status).toBe(405)
    expect(res.headers).toMatchObject({ allow: 'GET, HEAD, OPTIONS' })
    expect(body(res)).toEqual({
      error: 'invalid_request',
      error_description: 'metadata is read with GET',
    })
    expect(await e.serve(request('GET', '/mcp'))).toBeUndefined()
    expect(await e.serve(request('GET', '/.well-known/openid-configuration'))).toBeUndefined()
    expect(await e.serve(request('GET', `${PRM}/other`))).toBeUndefined()
  })

  it('answers 404 to a well-known suffix under the resource path, which holds no metadata', async () => {
    const res = await serve(endpoints(), request('GET', '/mcp/.well-known/openid-configuration'))
    expect(res.status).toBe(404)
    expect(body(res)).toMatchObject({ error: 'not_found' })
  })
})

describe('authorization-server metadata (RFC 8414), bridged', () => {
  it('is the IdP document with audience on the authorization endpoint and registration at the gateway', async () => {
    const res = await serve(endpoints(), request('GET', AS))
    expect(res.status).toBe(200)
    expect(res.headers).toEqual({ 'cache-control': 'public, max-age=300' })
    expect(res.body).toEqual({
      issuer: idp.issuer,
      authorization_endpoint: `${idp.issuer}/v1/authorize?audience=api%3A%2F%2Fdefault`,
      token_endpoint: `${idp.issuer}/v1/token`,
      jwks_uri: `${idp.issuer}/v1/keys`,
      registration_endpoint: `https://gw.example${REGISTER}`,
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
    })
  })

  it('appends no audience when the provider has none, names the gateway as issuer in Gateway mode, and fills a missing jwks_uri', async () => {
    idp.discoveryDocument({
      issuer: idp.issuer,
      authorization_endpoint: `${idp.issuer}/v1/authorize?prompt=login`,
      token_endpoint: `${idp.issuer}/v1/token`,
      response_types_supported: ['code'],
    })
    const res = await serve(
      endpoints({ issuerMode: 'Gateway' }, { audience: undefined }),
      request('GET', AS),
    )
    expect(body(res)).toMatchObject({
      issuer: 'https://gw.example/mcp',
      authorization_endpoint: `${idp.issuer}/v1/authorize?prompt=login`,
      jwks_uri: `${idp.issuer}/v1/keys`,
    })
  })

  it('serves the last-known-good document marked stale once its lifetime ended and the IdP fails', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    try {
      const e = endpoints()
      expect((await serve(e, request('GET', AS))).headers).not.toHaveProperty('warning')
      idp.discoveryDown(true)
      // Within the lifetime (5 minutes by default) the IdP is not asked again.
      vi.setSystemTime(Date.now() + 4 * 60_000)
      expect((await serve(e, request('GET', AS))).headers).not.toHaveProperty('warning')
      vi.setSystemTime(Date.now() + 2 * 60_000)
      const stale = await serve(e, request('GET', AS))
      expect(stale.status).toBe(200)
      expect(stale.headers).toEqual({
        'cache-control': 'public, max-age=300',
        warning: '110 - "stale"',
      })
      expect(body(stale).issuer).toBe(idp.issuer)
      expect(logs.find((l) => l.level === 'warn')).toMatchObject({
        code: 'GW_ERR_DISCOVERY_UNAVAILABLE',
        serving: 'last-known-good',
      })
    } finally {
      vi.useRealTimers()
    }
  })

  it('answers 503 with Retry-After and the cause when the IdP never gave a document', async () => {
    idp.discoveryDown(true)
    const res = await serve(endpoints(), request('GET', AS))
    expect(res.status).toBe(503)
    expect(res.headers).toMatchObject({ 'retry-after': '5' })
    expect(body(res)).toEqual({
      error: 'temporarily_unavailable',
      error_description: `the identity provider's discovery document at ${idp.orgUrl}/oauth2/default/.well-known/openid-configuration is not available (HTTP 500); try again later`,
    })
    expect(logs.find((l) => l.level === 'warn')).toMatchObject({
      code: 'GW_ERR_DISCOVERY_UNAVAILABLE',
      cause: 'HTTP 500',
      serving: 'nothing',
    })
  })

  it('fetches discovery from the issuer URL itself when the provider has no JWKS backend', async () => {
    const res = await serve(endpoints({}, { org: false }), request('GET', AS))
    expect(res.status).toBe(200)
    expect(body(res).token_endpoint).toBe(`${idp.issuer}/v1/token`)
    expect(idp.hits.map((h) => h.path)).toEqual([
      '/oauth2/default/.well-known/openid-configuration',
    ])
    idp.discoveryDown(true)
    const down = await serve(endpoints({}, { org: false }), request('GET', AS))
    expect(body(down).error_description).toBe(
      `the identity provider's discovery document at ${idp.issuer}/.well-known/openid-configuration is not available (HTTP 500); try again later`,
    )
  })

  it('says which member makes a discovery document not one', async () => {
    idp.discoveryDocument({ authorization_endpoint: 'https://idp.example/authorize' })
    const res = await serve(endpoints(), request('GET', AS))
    expect(res.status).toBe(503)
    expect(String(body(res).error_description)).toContain(
      '(not an OpenID Connect discovery document (issuer: ',
    )
  })

  it('refuses a discovery document of another issuer (OpenID Connect Discovery §4.3)', async () => {
    idp.discoveryDocument({
      issuer: 'https://evil.example',
      authorization_endpoint: 'https://evil.example/authorize',
      token_endpoint: 'https://evil.example/token',
    })
    const res = await serve(endpoints(), request('GET', AS))
    expect(res.status).toBe(503)
    expect(String(body(res).error_description)).toContain(
      `the document names issuer https://evil.example, expected ${idp.issuer}`,
    )
  })
})

describe('client registration (RFC 7591), pre-registered client', () => {
  const metadata = {
    redirect_uris: ['http://127.0.0.1:33418/callback'],
    client_name: 'Inspector',
    client_uri: 'https://inspector.example',
    logo_uri: 'https://inspector.example/logo.png',
    scope: 'openid',
    contacts: ['ops@inspector.example'],
    software_id: 'inspector',
    software_version: '1.2.3',
    jwks_uri: 'https://inspector.example/jwks',
  }

  it('answers 201 with the client id, the RFC 7591 §2 defaults and the descriptive members sent', async () => {
    const before = Math.floor(Date.now() / 1000)
    const res = await serve(
      endpoints({ clientId: 'demo-client' }),
      request('POST', REGISTER, JSON.stringify(metadata)),
    )
    expect(res.status).toBe(201)
    expect(res.headers).toEqual({ 'cache-control': 'no-store' })
    const { client_id_issued_at, ...rest } = body(res)
    expect(Number(client_id_issued_at)).toBeGreaterThanOrEqual(before)
    expect(Number(client_id_issued_at)).toBeLessThanOrEqual(Math.floor(Date.now() / 1000))
    expect(rest).toEqual({
      client_id: 'demo-client',
      redirect_uris: metadata.redirect_uris,
      client_name: 'Inspector',
      client_uri: 'https://inspector.example',
      logo_uri: 'https://inspector.example/logo.png',
      scope: 'openid',
      contacts: ['ops@inspector.example'],
      software_id: 'inspector',
      software_version: '1.2.3',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    })
  })

  it('echoes grant and response types the client asked for, and takes a charset in the media type', async () => {
    const res = await serve(
      endpoints({ clientId: 'demo-client' }),
      request(
        'POST',
        REGISTER,
        JSON.stringify({
          grant_types: ['authorization_code'],
          response_types: ['code'],
          redirect_uris: ['http://127.0.0.1:6274/cb'],
        }),
        { 'content-type': 'Application/JSON; charset=utf-8' },
      ),
    )
    expect(res.status).toBe(201)
    expect(body(res)).toMatchObject({
      grant_types: ['authorization_code'],
      response_types: ['code'],
      redirect_uris: ['http://127.0.0.1:6274/cb'],
    })
  })

  // docs/design/hardening.md: clientId mode used to accept every one of these.
  it.each([
    ['javascript:', ['javascript:alert(document.cookie)'], /scheme "javascript:"/],
    ['data:', ['data:text/html,<script>alert(1)</script>'], /scheme "data:"/],
    ['file:', ['file:///etc/passwd'], /scheme "file:"/],
    ['a relative URI', ['/callback'], /not an absolute URI/],
    ['a fragment', ['https://app.example/cb#x'], /fragment/],
    ['userinfo', ['https://evil.example@app.example/cb'], /userinfo/],
    ['an empty list', [], /is empty/],
    ['no list at all', undefined, /expected an array/],
    ['http to a public host', ['http://app.example/cb'], /not loopback/],
  ])(
    'refuses %s in redirect_uris with invalid_redirect_uri (docs/design/hardening.md)',
    async (_, uris, reason) => {
      const res = await serve(
        endpoints({ clientId: 'demo-client' }),
        request(
          'POST',
          REGISTER,
          JSON.stringify(uris === undefined ? {} : { redirect_uris: uris }),
        ),
      )
      expect(res.status).toBe(400)
      expect(body(res).error).toBe('invalid_redirect_uri')
      expect(String(body(res).error_description)).toMatch(reason)
    },
  )

  const refusals: Array<[string, LocalRequest, number, string, string]> = [
    [
      'a GET',
      request('GET', REGISTER),
      405,
      'invalid_request',
      'client registration takes POST (RFC 7591 §3.1)',
    ],
    [
      'a body over 16 KiB',
      request('POST', REGISTER, `{"client_name":"${'x'.repeat(16 * 1024)}"}`),
      413,
      'invalid_client_metadata',
      'the registration request is larger than 16384 bytes',
    ],
    [
      'no media type',
      request('POST', REGISTER, '{}', {}),
      415,
      'invalid_client_metadata',
      'send the client metadata as application/json (RFC 7591 §3.1)',
    ],
    [
      'a form body',
      request('POST', REGISTER, 'a=b', { 'content-type': 'application/x-www-form-urlencoded' }),
      415,
      'invalid_client_metadata',
      'send the client metadata as application/json (RFC 7591 §3.1)',
    ],
    [
      'a media type that only ends in application/json',
      request('POST', REGISTER, '{}', { 'content-type': 'text/application/json' }),
      415,
      'invalid_client_metadata',
      'send the client metadata as application/json (RFC 7591 §3.1)',
    ],
    [
      'a body that is not JSON',
      request('POST', REGISTER, '{nope'),
      400,
      'invalid_client_metadata',
      'the body is not JSON',
    ],
  ]
  for (const [what, req, status, error, description] of refusals) {
    it(`refuses ${what}: ${status} ${error}`, async () => {
      const res = await serve(endpoints({ clientId: 'demo-client' }), req)
      expect(res.status).toBe(status)
      expect(body(res)).toEqual({ error, error_description: description })
      expect(res.headers).toMatchObject({ 'cache-control': 'no-store' })
      if (status === 405) expect(res.headers).toMatchObject({ allow: 'POST, OPTIONS' })
    })
  }

  it.each([
    ['the client went away', new Error('aborted')],
    [
      'it came too slowly (the listener answers that 408 itself)',
      new RequestError('GW_ERR_REQUEST_TIMEOUT', 'too slow'),
    ],
  ])('answers 400, not 413, when the body could not be read: %s', async (_case, failure) => {
    const gone: LocalRequest = {
      ...request('POST', REGISTER, '{}'),
      body: () => Promise.reject(failure),
    }
    const res = await serve(endpoints({ clientId: 'demo-client' }), gone)
    expect(res.status).toBe(400)
    expect(body(res)).toEqual({
      error: 'invalid_request',
      error_description: 'the registration request body was not received',
    })
  })

  it('takes a body of exactly 16 KiB', async () => {
    const uris = '"redirect_uris":["http://127.0.0.1/cb"]'
    const filler = 'x'.repeat(16 * 1024 - `{${uris},"client_name":""}`.length)
    const res = await serve(
      endpoints({ clientId: 'demo-client' }),
      request('POST', REGISTER, `{${uris},"client_name":"${filler}"}`),
    )
    expect(res.status).toBe(201)
  })

  it('names a nested member by its path, and the document itself when it is not an object', async () => {
    const e = endpoints({ clientId: 'demo-client' })
    const nested = await serve(e, request('POST', REGISTER, '{"redirect_uris":["ok",7]}'))
    expect(body(nested).error).toBe('invalid_redirect_uri')
    expect(String(body(nested).error_description)).toMatch(/^redirect_uris\.1: /)
    const whole = await serve(e, request('POST', REGISTER, '"just a string"'))
    expect(body(whole).error).toBe('invalid_client_metadata')
    expect(String(body(whole).error_description)).toMatch(/^\(document\): .* \(RFC 7591 §2\)$/)
  })

  it('names the bad member, with invalid_redirect_uri for redirect URIs (RFC 7591 §3.2.2)', async () => {
    const e = endpoints({ clientId: 'demo-client' })
    const bad = await serve(e, request('POST', REGISTER, '{"redirect_uris":"not-a-list"}'))
    expect(bad.status).toBe(400)
    expect(body(bad).error).toBe('invalid_redirect_uri')
    expect(String(body(bad).error_description)).toMatch(/^redirect_uris: .* \(RFC 7591 §2\)$/)
    const other = await serve(e, request('POST', REGISTER, '{"client_name":42}'))
    expect(body(other).error).toBe('invalid_client_metadata')
    expect(String(body(other).error_description)).toMatch(/^client_name: .* \(RFC 7591 §2\)$/)
  })
})

describe('client registration (RFC 7591), proxied to the IdP', () => {
  it('posts the metadata to the org-level endpoint with the caller’s Authorization, and passes the answer on', async () => {
    const res = await serve(
      endpoints({}, {}),
      request('POST', REGISTER, '{"client_name":"x"}', {
        'content-type': 'application/json',
        authorization: 'SSWS test-api-token',
      }),
    )
    expect(res.status).toBe(201)
    expect(res.headers).toEqual({ 'cache-control': 'no-store' })
    expect(body(res)).toEqual({ client_id: 'registered-by-idp', client_name: 'x' })
    const hit = idp.hits.find((h) => h.path === '/oauth2/v1/clients')
    expect(hit).toMatchObject({
      method: 'POST',
      authorization: 'SSWS test-api-token',
      contentType: 'application/json',
      body: '{"client_name":"x"}',
    })
  })

  it('explains a 401 of the IdP and keeps its answer; passes other errors on as they are', async () => {
    const res = await serve(endpoints(), request('POST', REGISTER, '{}'))
    // The IdP's status is relayed; the code (for logs, never sent) is the table's.
    expect([res.status, res.code]).toEqual([401, 'GW_ERR_REGISTRATION_REFUSED_BY_IDP'])
    expect(body(res)).toEqual({
      error: 'invalid_client_metadata',
      error_description:
        'the identity provider refused the registration (HTTP 401): its registration endpoint needs an API token that MCP clients do not have. Set mcp.clientId to a pre-registered client id so that the gateway answers registrations itself.',
      provider_response: { errorCode: 'E0000011', errorSummary: 'Invalid token provided' },
    })
    expect(idp.hits.find((h) => h.path === '/oauth2/v1/clients')?.authorization).toBeUndefined()
  })

  it('explains a 403 of the IdP (a token without the right to create clients) the same way', async () => {
    const res = await serve(
      endpoints(),
      request('POST', REGISTER, '{}', {
        'content-type': 'application/json',
        authorization: 'SSWS read-only-token',
      }),
    )
    expect(res.status).toBe(403)
    expect(res.headers).toEqual({ 'cache-control': 'no-store' })
    expect(String(body(res).error_description)).toMatch(
      /^the identity provider refused the registration \(HTTP 403\)/,
    )
  })

  it('passes on an answer of the IdP that is not JSON as a server_error with its first 500 characters', async () => {
    const { createServer } = await import('node:http')
    const page = `<html>${'x'.repeat(600)}</html>`
    const server = createServer((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' })
      res.end(page)
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    const port = (server.address() as { port: number }).port
    const html = createUpstream(BackendConfigSchema.parse({ static: { host: '127.0.0.1', port } }))
    try {
      const e = new OAuthEndpoints({
        mcp: McpAuthSchema.parse({
          provider: 'BridgedIdp',
          resourceMetadata: { resource: 'https://gw.example/mcp' },
        }),
        issuer: idp.issuer,
        audience: undefined,
        discovery: new DiscoveryCache(
          idp.issuer,
          upstream,
          createLogging({}).logger('proxy::auth::mcp'),
          new TaskRegistry(),
        ),
        orgUpstream: html,
      })
      const res = await serve(e, request('POST', REGISTER, '{}'))
      expect(res.status).toBe(502)
      expect(body(res)).toEqual({ error: 'server_error', error_description: page.slice(0, 500) })
    } finally {
      await html.close()
      server.closeAllConnections()
      await new Promise((r) => server.close(r))
    }
  })

  it('answers 502 naming the cause when the IdP cannot be reached', async () => {
    const e = endpoints()
    await idp.stop()
    const res = await serve(e, request('POST', REGISTER, '{}'))
    expect(res.status).toBe(502)
    expect(body(res).error).toBe('temporarily_unavailable')
    expect(String(body(res).error_description)).toMatch(
      /^the identity provider's registration endpoint is not reachable: ECONNREFUSED/,
    )
    idp = await startTinyIdp() // for afterEach
  })

  it('answers 501 when there is no org backend to proxy to', async () => {
    const res = await serve(endpoints({}, { org: false }), request('POST', REGISTER, '{}'))
    expect(res.status).toBe(501)
    expect(body(res)).toEqual({
      error: 'unsupported_operation',
      error_description:
        'registration cannot be proxied: the provider has no remote JWKS backend (the org domain); set mcp.clientId',
    })
  })
})
