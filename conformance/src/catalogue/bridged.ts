/**
 * Profile `bridged-idp`: the gaps of the seed's identity provider bridged by the gateway —
 * authorization-server metadata from OIDC discovery, the `audience` parameter (no RFC 8707), and
 * Dynamic Client Registration (RFC 7591) answered or proxied. Source: seed "What the service does" 3,
 * Endpoints, Errors.
 */
import { CheckSkipped, must, type Requirement } from '../types.js'
import { prmDocument } from './util.js'

/** The gateway's authorization-server metadata (RFC 8414 path insertion for `<base>/mcp`). */
export const AS_PATH = '/.well-known/oauth-authorization-server/mcp'
const REG_PATH = `${AS_PATH}/client-registration`
const SEED_BRIDGE = 'seed: What the service does 3'

/** The authorization-server metadata the gateway serves at {@link AS_PATH}. */
export const metadata = async (ctx: Parameters<Requirement['check']>[0]) => {
  await servesAuthorizationServer(ctx)
  const res = await ctx.http(`${ctx.target.base}${AS_PATH}`)
  must(res.status === 200, '200', `${res.status}`)
  return res.json<Record<string, string>>()
}

/**
 * Skips (as ASM-010 does) when the protected-resource metadata names an authorization server
 * that is not at the target: the target does not bridge, so there is no metadata of its own to
 * judge (a resource server whose AS is elsewhere).
 */
export async function servesAuthorizationServer(
  ctx: Parameters<Requirement['check']>[0],
): Promise<void> {
  const servers = (await prmDocument(ctx)).authorization_servers
  const named = Array.isArray(servers) ? servers[0] : undefined
  if (typeof named === 'string' && !named.startsWith(ctx.target.configuredBase))
    throw new CheckSkipped(
      `the authorization server ${named} is not at the target: it serves no authorization-server metadata of its own`,
    )
}

/** Skips when the target offers no registration endpoint (404/405): nothing to judge. */
function offered(res: { status: number }, what: string): void {
  if (res.status === 404 || res.status === 405)
    throw new CheckSkipped(`the target offers no registration endpoint (${what} → ${res.status})`)
}

const register = (
  ctx: Parameters<Requirement['check']>[0],
  base: string,
  headers: Record<string, string> = {},
) =>
  ctx.http(`${base}${REG_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({
      client_name: 'conformance',
      redirect_uris: ['http://127.0.0.1:33418/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }),
  })

/** Profile `bridged-idp`: metadata built from OIDC discovery and registration bridging. */
export const bridged: Requirement[] = [
  {
    id: 'ASM-001',
    level: 'MUST',
    quote:
      "It serves authorization-server metadata built from the provider's OpenID Connect discovery document, because the provider does not support the RFC 8414 path-based issuer format.",
    profile: 'bridged-idp',
    source: `seed: Endpoints (GET ${AS_PATH}); ${SEED_BRIDGE}; RFC 8414 §3.3`,
    text: "Authorization-server metadata is served at the gateway, built from the provider's OIDC discovery: issuer is the provider's authorization server URL (the seed) or the authorization-server identifier the protected-resource metadata names (RFC 8414 §3.3; ASM-006, ASM-007).",
    async check(ctx) {
      const doc = await metadata(ctx)
      const named = ((await prmDocument(ctx)).authorization_servers as unknown[] | undefined)?.[0]
      const allowed = [ctx.target.idp.issuer, named].filter((v) => typeof v === 'string')
      must(
        allowed.includes(String(doc.issuer)),
        allowed.map((v) => `issuer "${v}"`).join(' or '),
        `issuer "${doc.issuer}"`,
      )
    },
  },
  {
    id: 'ASM-002',
    level: 'MUST',
    quote:
      'Fields issuer (the authorization server URL), jwks_uri (<issuer>/v1/keys), authorization_endpoint (<issuer>/v1/authorize?audience=<first_audience>), registration_endpoint ({base_url_as_configured}/.well-known/oauth-authorization-server/mcp/client-registration, i.e. back at the gateway)',
    profile: 'bridged-idp',
    source: `seed: Endpoints (GET ${AS_PATH}: jwks_uri)`,
    text: 'jwks_uri is <issuer>/v1/keys.',
    async check(ctx) {
      const doc = await metadata(ctx)
      const want = `${ctx.target.idp.issuer}/v1/keys`
      must(doc.jwks_uri === want, want, String(doc.jwks_uri))
    },
  },
  {
    id: 'ASM-003',
    level: 'MUST',
    quote:
      'It appends the first configured audience to the authorization endpoint as the query parameter audience, because the provider does not support RFC 8707 resource indicators.',
    profile: 'bridged-idp',
    source: `${SEED_BRIDGE} ("appends the first configured audience … as the query parameter audience")`,
    text: 'authorization_endpoint is <issuer>/v1/authorize with audience=<first audience> (the IdP lacks RFC 8707).',
    async check(ctx) {
      const doc = await metadata(ctx)
      const url = new URL(doc.authorization_endpoint ?? 'about:blank')
      must(
        `${url.origin}${url.pathname}` === `${ctx.target.idp.issuer}/v1/authorize`,
        `${ctx.target.idp.issuer}/v1/authorize`,
        String(doc.authorization_endpoint),
      )
      must(
        url.searchParams.get('audience') === ctx.target.idp.audience,
        `audience=${ctx.target.idp.audience}`,
        String(doc.authorization_endpoint),
      )
    },
  },
  {
    id: 'ASM-004',
    level: 'MUST',
    quote:
      'Fields issuer (the authorization server URL), jwks_uri (<issuer>/v1/keys), authorization_endpoint (<issuer>/v1/authorize?audience=<first_audience>), registration_endpoint ({base_url_as_configured}/.well-known/oauth-authorization-server/mcp/client-registration, i.e. back at the gateway)',
    profile: 'bridged-idp',
    source: `seed: Endpoints (registration_endpoint "back at the gateway"); ${SEED_BRIDGE}`,
    text: 'registration_endpoint points back at the gateway: <configured base>/.well-known/oauth-authorization-server/mcp/client-registration.',
    async check(ctx) {
      const doc = await metadata(ctx)
      const want = `${ctx.target.configuredBase}${REG_PATH}`
      must(doc.registration_endpoint === want, want, String(doc.registration_endpoint))
    },
  },
  {
    id: 'ASM-005',
    level: 'MUST',
    quote:
      "token_endpoint URL of the authorization server's token endpoint [RFC6749]. This is REQUIRED unless only the implicit grant type is supported.",
    profile: 'bridged-idp',
    source: 'RFC 8414 §2 (token_endpoint); OIDC Discovery §3',
    text: "The other discovery fields pass through (token_endpoint of the issuer; S256 PKCE is ASM-008's).",
    async check(ctx) {
      const doc = (await metadata(ctx)) as Record<string, unknown>
      must(
        doc.token_endpoint === `${ctx.target.idp.issuer}/v1/token`,
        `${ctx.target.idp.issuer}/v1/token`,
        String(doc.token_endpoint),
      )
    },
  },
  {
    id: 'DCR-001',
    level: 'MUST',
    quote:
      'When mcp.clientId is set, the proxy answers Dynamic Client Registration requests with that pre-registered client id instead of proxying them.',
    profile: 'bridged-idp',
    source: `${SEED_BRIDGE} ("answers … with that pre-registered client id"); RFC 7591 §3.2.1`,
    text: 'With mcp.clientId set, registration is answered 201 with that client_id and no client secret (a public PKCE client).',
    async check(ctx) {
      await servesAuthorizationServer(ctx)
      const res = await register(ctx, ctx.target.base)
      offered(res, `POST ${REG_PATH}`)
      must(res.status === 201, '201', `${res.status}`)
      const body = res.json()
      must(
        typeof body.client_id === 'string' && body.client_id.length > 0,
        'a client_id',
        JSON.stringify(body.client_id),
      )
      must(body.client_secret === undefined, 'no client_secret', 'a client_secret')
    },
  },
  {
    id: 'DCR-002',
    level: 'MUST',
    quote:
      'Additionally, the authorization server MUST return all registered metadata about the client, including any fields provisioned by the authorization server itself.',
    profile: 'bridged-idp',
    source: 'RFC 7591 §3.2.1 (the response contains the registered metadata)',
    text: 'The registration answer echoes redirect_uris and token_endpoint_auth_method "none".',
    async check(ctx) {
      await servesAuthorizationServer(ctx)
      const res = await register(ctx, ctx.target.base)
      offered(res, `POST ${REG_PATH}`)
      const body = res.json()
      must(
        JSON.stringify(body.redirect_uris) === '["http://127.0.0.1:33418/callback"]',
        'redirect_uris echoed',
        JSON.stringify(body.redirect_uris),
      )
      must(
        body.token_endpoint_auth_method === 'none',
        'token_endpoint_auth_method "none"',
        String(body.token_endpoint_auth_method),
      )
    },
  },
  {
    id: 'DCR-003',
    level: 'MUST',
    quote:
      'When mcp.clientId is set, the proxy answers Dynamic Client Registration requests with that pre-registered client id instead of proxying them.',
    profile: 'bridged-idp',
    source: `${SEED_BRIDGE} ("instead of proxying them")`,
    text: 'With mcp.clientId set, the registration never reaches the provider.',
    async check(ctx) {
      await servesAuthorizationServer(ctx)
      const before = (await ctx.target.idp.control.registrations()).length
      const res = await register(ctx, ctx.target.base)
      offered(res, `POST ${REG_PATH}`)
      const after = (await ctx.target.idp.control.registrations()).length
      must(after === before, 'no registration at the provider', `${after - before} registration(s)`)
      // Not vacuous: the registration was answered, by the gateway itself.
      must(
        res.status === 201 || res.status === 200,
        'the registration answered 201',
        `${res.status}`,
      )
    },
  },
  {
    id: 'DCR-004',
    level: 'MUST',
    quote:
      "The provider's registration endpoint is relative to the org URL, not the issuer, so the proxy rewrites it to https://<org_domain>/oauth2/v1/clients.",
    profile: 'bridged-idp',
    source: `${SEED_BRIDGE} ("rewrites it to https://<org_domain>/oauth2/v1/clients")`,
    text: "Without mcp.clientId, registration is proxied to the provider's org-level endpoint /oauth2/v1/clients (not issuer-relative), with the caller's Authorization.",
    async check(ctx) {
      const base = ctx.target.proxiedBase
      if (!base)
        throw new CheckSkipped('no gateway without mcp.clientId was configured (--proxied-target)')
      await ctx.target.idp.control.clearRequests()
      const res = await register(ctx, base, { authorization: 'SSWS test-api-token' })
      const seen = await ctx.target.idp.control.requests()
      const hit = seen.filter((r) => r.method === 'POST' && r.path.endsWith('/clients'))
      must(
        hit.length === 1 && hit[0]?.path === '/oauth2/v1/clients',
        'one POST /oauth2/v1/clients at the provider',
        JSON.stringify(hit.map((r) => r.path)),
      )
      must(res.status === 201, '201 (the provider accepted the API token)', `${res.status}`)
    },
  },
  {
    id: 'DCR-005',
    level: 'MUST',
    quote:
      'Registration request proxied to the provider without an API token: Fails (provider requires one); avoided by setting mcp.clientId',
    profile: 'bridged-idp',
    source:
      'seed: Errors ("Registration request proxied to the provider without an API token → Fails")',
    text: "A proxied registration without the provider's API token fails (4xx), and the answer says what to do.",
    async check(ctx) {
      const base = ctx.target.proxiedBase
      if (!base)
        throw new CheckSkipped('no gateway without mcp.clientId was configured (--proxied-target)')
      const res = await register(ctx, base)
      must(res.status === 401 || res.status === 403, '401 or 403', `${res.status}`)
    },
  },
  {
    id: 'DCR-006',
    level: 'SHOULD',
    quote: "CORS added on the gateway's answers. Body size limited; JSON only.",
    profile: 'bridged-idp',
    source: 'RFC 7591 §3 (registration requests are POSTed JSON); docs/auth.md ("JSON only")',
    text: 'A registration request that is not JSON is refused with 4xx.',
    async check(ctx) {
      await servesAuthorizationServer(ctx)
      const res = await ctx.http(`${ctx.target.base}${REG_PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: 'hello',
      })
      offered(res, `POST ${REG_PATH}`)
      must(res.status >= 400 && res.status < 500, '4xx', `${res.status}`)
    },
  },
]
