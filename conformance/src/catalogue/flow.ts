/**
 * Profile `flow`: the whole authorization-code + PKCE flow an MCP client goes through, judged end
 * to end against the gateway — each step on what the previous one returned, as a client knows
 * nothing else: the 401's `resource_metadata` → protected-resource metadata → authorization-server
 * metadata → registration (or the pre-registered client) → sign-in at the IdP (headless) → token
 * with the `code_verifier` → `initialize` with the token. Sources: MCP 2025-11-25 Authorization
 * (Authorization Flow Steps), RFC 9728, RFC 8414, RFC 7591, RFC 7636, RFC 8707; seed:
 * Authentication 4.
 */
import { randomBytes } from 'node:crypto'
import { asMetadataCandidates, s256 } from '../client/flow.js'
import {
  type CheckContext,
  CheckFailure,
  CheckSkipped,
  type HttpResult,
  must,
  type Requirement,
} from '../types.js'
import { challengeParams, postMcp } from './util.js'

/** A loopback redirect URI (RFC 8252 §7.3): the flow reads the code off the IdP's redirect. */
const REDIRECT_URI = 'http://127.0.0.1:33418/callback'
/** The IdP's test user the rules allow (group AI-Users). */
const USER = 'alice'

/**
 * A URL the gateway announced, made reachable: the configured base (`--configured-base`, the
 * resource's host) is replaced by the address the suite reaches the gateway at.
 */
function reachable(ctx: CheckContext, url: string): string {
  const { configuredBase, base } = ctx.target
  return url.startsWith(`${configuredBase}/`) ? `${base}${url.slice(configuredBase.length)}` : url
}

function jsonOf(res: HttpResult, what: string): Record<string, unknown> {
  try {
    return res.json()
  } catch {
    throw new CheckFailure(`${what} as JSON`, res.text.slice(0, 200))
  }
}

const str = (v: unknown) => (typeof v === 'string' ? v : undefined)

/** Steps 1–3: the challenge, protected-resource metadata, authorization-server metadata. */
async function discover(ctx: CheckContext) {
  const challenge = await postMcp(ctx)
  must(challenge.status === 401, '401 for initialize without a token', `${challenge.status}`)
  const params = challengeParams(challenge.headers.get('www-authenticate'))
  // MCP 2025-11-25 (Protected Resource Metadata Discovery): the well-known URL when the
  // challenge names none.
  const prmUrl =
    params?.resource_metadata ??
    `${ctx.target.configuredBase}/.well-known/oauth-protected-resource/mcp`
  const prmRes = await ctx.http(reachable(ctx, prmUrl))
  must(prmRes.status === 200, `200 for protected-resource metadata ${prmUrl}`, `${prmRes.status}`)
  const prm = jsonOf(prmRes, 'protected-resource metadata')
  const resource = str(prm.resource)
  const as = Array.isArray(prm.authorization_servers)
    ? str(prm.authorization_servers[0])
    : undefined
  must(resource && as, 'resource and authorization_servers[0]', JSON.stringify(prm).slice(0, 200))
  let asm: Record<string, unknown> | undefined
  for (const candidate of asMetadataCandidates(as)) {
    const res = await ctx.http(reachable(ctx, candidate))
    if (res.status === 200) {
      asm = jsonOf(res, `authorization-server metadata ${candidate}`)
      break
    }
  }
  must(asm, `authorization-server metadata for ${as} (RFC 8414 or OIDC discovery)`, 'none found')
  const scopes = Array.isArray(prm.scopes_supported)
    ? prm.scopes_supported.filter((s): s is string => typeof s === 'string')
    : []
  return { resource, asm, scopes }
}

/** The client pre-registered at the IdP, when the suite knows one. */
function preRegistered(ctx: CheckContext, why: string): string {
  const pre = ctx.target.idp.publicClientId
  if (!pre) throw new CheckSkipped(`${why}, and no pre-registered client is known`)
  return pre
}

/**
 * Step 4: a client id, registered (RFC 7591), or the pre-registered one where the metadata names
 * no registration endpoint or the endpoint wants credentials the suite does not have (an IdP's
 * own, protected one: MCP 2025-11-25 lets a client use a pre-registered id instead).
 */
async function clientIdOf(ctx: CheckContext, asm: Record<string, unknown>): Promise<string> {
  const endpoint = str(asm.registration_endpoint)
  if (!endpoint) return preRegistered(ctx, 'no registration_endpoint')
  const res = await ctx.http(reachable(ctx, endpoint), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'gatehouse conformance flow',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }),
  })
  if (res.status === 401 || res.status === 403) {
    return preRegistered(ctx, `the registration endpoint wants credentials (${res.status})`)
  }
  must(res.status === 201 || res.status === 200, '201 for the registration', `${res.status}`)
  const id = str(jsonOf(res, 'the registration answer').client_id)
  must(id, 'a client_id in the registration answer', res.text.slice(0, 200))
  return id
}

/** Profile `flow`: the authorization-code + PKCE flow, end to end. */
export const flow: Requirement[] = [
  {
    id: 'FLOW-001',
    level: 'MUST',
    quote:
      'The OAuth flow for MCP clients: the client discovers the authorization server through the gateway, uses the pre-registered client id, and sends the user to the provider to log in and consent; public client with PKCE.',
    profile: 'flow',
    source:
      'MCP 2025-11-25 Authorization §Authorization Flow Steps; RFC 9728 §5.1; RFC 8414 §3; RFC 7591 §3; RFC 7636 §4; RFC 8707 §2; seed: Authentication 4',
    text: 'A client that knows only the MCP URL gets through: 401 → resource_metadata → authorization-server metadata → registration → sign-in with PKCE (S256) → token with the code_verifier → initialize with that token answered 200.',
    async check(ctx) {
      const { resource, asm, scopes } = await discover(ctx)
      const authorize = str(asm.authorization_endpoint)
      const tokenEndpoint = str(asm.token_endpoint)
      must(
        authorize && tokenEndpoint,
        'authorization_endpoint and token_endpoint in the metadata',
        JSON.stringify(asm).slice(0, 200),
      )
      // MCP 2025-11-25: a client MUST refuse to proceed without S256 advertised.
      must(
        JSON.stringify(asm.code_challenge_methods_supported ?? []).includes('S256'),
        'code_challenge_methods_supported with S256',
        JSON.stringify(asm.code_challenge_methods_supported),
      )
      const idp = new URL(ctx.target.idp.orgUrl).origin
      if (new URL(authorize).origin !== idp) {
        throw new CheckSkipped(
          `the authorization endpoint ${new URL(authorize).origin} is not the suite's IdP (${idp}): no way to sign in headlessly`,
        )
      }
      const clientId = await clientIdOf(ctx, asm)
      const verifier = randomBytes(32).toString('base64url')
      const state = randomBytes(16).toString('base64url')
      const url = new URL(authorize)
      for (const [k, v] of Object.entries({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: REDIRECT_URI,
        code_challenge: s256(verifier),
        code_challenge_method: 'S256',
        state,
        resource,
        ...(scopes.length > 0 ? { scope: scopes.join(' ') } : {}),
      }))
        url.searchParams.set(k, v)
      let back: URL
      try {
        // Loaded when a flow check runs: the package's root brings oidc-provider and X.509 with it,
        // which listing or judging the catalogue never needs.
        const { authorizeHeadless } = await import('@gatehouse/mock-idp')
        back = await authorizeHeadless(url, { loginHint: USER })
      } catch (err) {
        throw new CheckFailure(
          `the IdP to sign ${USER} in and redirect back with a code (client_id ${clientId})`,
          (err as Error).message,
        )
      }
      const code = back.searchParams.get('code')
      must(
        code && back.searchParams.get('state') === state,
        'a code and the state sent',
        `${back.origin}${back.pathname}?error=${back.searchParams.get('error')} ${back.searchParams.get('error_description') ?? ''}`,
      )
      const tokenRes = await ctx.http(tokenEndpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: REDIRECT_URI,
          client_id: clientId,
          code_verifier: verifier,
          resource,
        }).toString(),
      })
      must(tokenRes.status === 200, '200 from the token endpoint', `${tokenRes.status}`)
      const accessToken = str(jsonOf(tokenRes, 'the token answer').access_token)
      must(accessToken, 'an access_token', 'none')
      const res = await postMcp(ctx, { token: accessToken })
      must(res.status === 200, 'initialize with the issued token answered 200', `${res.status}`)
    },
  },
]
