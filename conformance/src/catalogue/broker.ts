/**
 * Profile `broker` (docs/design/broker.md): the gateway in broker mode is the authorization server
 * its MCP clients see — its own metadata, issuer and endpoints, its own registration — and the
 * IdP's client behind it. BRK-001 to BRK-019: metadata, registration and Client ID Metadata
 * Documents; BRK-020 on: the authorization flow.
 */
import { createHash, randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type CheckContext, CheckSkipped, must, type Requirement } from '../types.js'

const ISSUE_22 = 'docs/design/broker.md (broker-mode AS metadata)'

/** The redirect URI the checks register and send. */
const REDIRECT = 'http://localhost:33418/callback'

/** A requirement of this profile, with the sentence it checks quoted from its source. */
type BrokerRequirement = Requirement & { quote: string }

/** The broker-mode gateway, or a skip when the target offers none. */
function broker(ctx: CheckContext): { base: string; configuredBase: string } {
  const { brokerBase, brokerConfiguredBase } = ctx.target
  if (!brokerBase) throw new CheckSkipped('no broker-mode route was configured')
  return { base: brokerBase, configuredBase: brokerConfiguredBase ?? brokerBase }
}

/** The authorization server the broker's protected-resource metadata names, and its metadata. */
export async function brokerMetadata(
  ctx: CheckContext,
): Promise<{ named: string; path: string; doc: Record<string, unknown> }> {
  const { base } = broker(ctx)
  const prm = await ctx.http(`${base}/.well-known/oauth-protected-resource/mcp`)
  must(prm.status === 200, 'protected-resource metadata (200)', `${prm.status}`)
  const named = (prm.json().authorization_servers as unknown[] | undefined)?.[0]
  must(typeof named === 'string', 'authorization_servers[0], a URL', JSON.stringify(named))
  // RFC 8414 §3.1: the well-known string goes between the host and the issuer's path.
  const u = new URL(named)
  const path = `/.well-known/oauth-authorization-server${u.pathname.replace(/\/$/, '')}`
  const res = await ctx.http(`${base}${path}`)
  must(res.status === 200, `authorization-server metadata at ${path} (200)`, `${res.status}`)
  return { named, path, doc: res.json() }
}

/** `POST <issuer>/oauth/register` of the broker with the given redirect URIs. */
async function register(ctx: CheckContext, redirectUris: unknown[]) {
  const { doc } = await brokerMetadata(ctx)
  const endpoint = doc.registration_endpoint
  if (typeof endpoint !== 'string') throw new CheckSkipped('the broker offers no registration')
  const { base } = broker(ctx)
  const url = new URL(endpoint)
  return ctx.http(`${base}${url.pathname}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'conformance',
      redirect_uris: redirectUris,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }),
  })
}

/** A registration the broker must refuse (RFC 7591 §3.2.2: 400 invalid_redirect_uri). */
async function refused(ctx: CheckContext, uri: string): Promise<void> {
  const res = await register(ctx, [uri])
  must(
    res.status === 400,
    `registration with redirect URI ${uri} refused with 400 (RFC 7591 §3.2.2 invalid_redirect_uri)`,
    `${res.status} ${res.text.slice(0, 200)}`,
  )
}

/** A registration the broker must accept: the refusals above are not refusals of everything. */
async function accepted(ctx: CheckContext, uri: string): Promise<void> {
  const res = await register(ctx, [uri])
  must(res.status === 201, `registration with redirect URI ${uri} accepted (201)`, `${res.status}`)
}

/** Profile `broker`: metadata and registration of the gateway's own authorization server. */
export const brokerProfile: BrokerRequirement[] = [
  {
    id: 'BRK-001',
    level: 'MUST',
    profile: 'broker',
    source: 'RFC 8414 §3.3; MCP 2025-11-25 "Authorization Server Metadata Discovery"',
    quote: `The "issuer" value returned MUST be identical to the authorization server's issuer identifier value into which the well-known URI string was inserted to create the URL used to retrieve the metadata.`,
    text: "The broker's metadata, fetched where path insertion puts it for the authorization server its protected-resource metadata names, has exactly that identifier as issuer.",
    async check(ctx) {
      const { named, doc } = await brokerMetadata(ctx)
      must(doc.issuer === named, `issuer "${named}"`, `issuer ${JSON.stringify(doc.issuer)}`)
    },
  },
  {
    id: 'BRK-002',
    level: 'MUST',
    profile: 'broker',
    source: ISSUE_22,
    quote:
      'It advertises the gateway\'s own authorization_endpoint, token_endpoint, registration_endpoint, code_challenge_methods_supported: ["S256"], client_id_metadata_document_supported: true and authorization_response_iss_parameter_supported: true.',
    text: 'The broker names itself: issuer <configured base>/mcp, the authorization, token and registration endpoints under it, S256 only (never plain), Client ID Metadata Documents and the RFC 9207 iss parameter advertised.',
    async check(ctx) {
      const { configuredBase } = broker(ctx)
      const { doc } = await brokerMetadata(ctx)
      const issuer = `${configuredBase}/mcp`
      must(doc.issuer === issuer, `issuer "${issuer}"`, JSON.stringify(doc.issuer))
      for (const member of ['authorization_endpoint', 'token_endpoint', 'registration_endpoint']) {
        const value = doc[member]
        must(
          typeof value === 'string' && value.startsWith(`${issuer}/`),
          `${member} under ${issuer}/ (the gateway's own)`,
          JSON.stringify(value),
        )
      }
      must(
        JSON.stringify(doc.code_challenge_methods_supported) === '["S256"]',
        'code_challenge_methods_supported ["S256"]',
        JSON.stringify(doc.code_challenge_methods_supported),
      )
      must(
        doc.client_id_metadata_document_supported === true,
        'client_id_metadata_document_supported: true',
        JSON.stringify(doc.client_id_metadata_document_supported),
      )
      must(
        doc.authorization_response_iss_parameter_supported === true,
        'authorization_response_iss_parameter_supported: true',
        JSON.stringify(doc.authorization_response_iss_parameter_supported),
      )
    },
  },
  {
    id: 'BRK-003',
    level: 'MUST',
    profile: 'broker',
    source: 'MCP 2025-11-25 Authorization, "Communication Security"',
    quote: 'All redirect URIs MUST be either localhost or use HTTPS.',
    text: 'The broker refuses to register an http redirect URI on a host that is not localhost, and registers an https one and an http://localhost one.',
    async check(ctx) {
      await refused(ctx, 'http://app.conformance.example/callback')
      await accepted(ctx, 'https://app.conformance.example/callback')
      await accepted(ctx, 'http://localhost:33418/callback')
    },
  },
  {
    id: 'BRK-004',
    level: 'MUST',
    profile: 'broker',
    source: 'RFC 6749 §3.1.2 "Redirection Endpoint"',
    quote: 'The endpoint URI MUST NOT include a fragment component.',
    text: 'The broker refuses to register a redirect URI with a fragment.',
    async check(ctx) {
      await refused(ctx, 'https://app.conformance.example/callback#fragment')
      await accepted(ctx, 'https://app.conformance.example/callback')
    },
  },
  {
    id: 'BRK-005',
    level: 'MUST',
    profile: 'broker',
    source: 'RFC 6749 §3.1.2 "Redirection Endpoint"',
    quote:
      'The redirection endpoint URI MUST be an absolute URI as defined by [RFC3986] Section 4.3.',
    text: 'The broker refuses to register a relative redirect URI.',
    async check(ctx) {
      await refused(ctx, '/callback')
      await refused(ctx, '//app.conformance.example/callback')
      await accepted(ctx, 'https://app.conformance.example/callback')
    },
  },
  {
    id: 'BRK-006',
    level: 'SHOULD',
    profile: 'broker',
    source: 'RFC 7591 §3.2.1 (client_id)',
    quote: 'It SHOULD NOT be currently valid for any other registered client',
    text: 'Each registration gets a client id of its own — not one static id for every client (the confused deputy of MCP security best practices).',
    async check(ctx) {
      const a = await register(ctx, ['http://localhost:33418/callback'])
      const b = await register(ctx, ['http://localhost:33418/callback'])
      must(
        a.status === 201 && b.status === 201,
        'two registrations (201)',
        `${a.status}, ${b.status}`,
      )
      const ids = [a.json().client_id, b.json().client_id]
      must(
        typeof ids[0] === 'string' && ids[0] !== ids[1],
        'two different client ids',
        JSON.stringify(ids),
      )
    },
  },
  {
    id: 'BRK-007',
    level: 'MUST',
    profile: 'broker',
    source:
      'draft-ietf-oauth-client-id-metadata-document-01 §6.5 (SSRF); MCP 2025-11-25 "Client ID Metadata Document Security"',
    quote:
      'Authorization servers MUST validate that the Client ID Metadata Document URL does not resolve to special-use IP addresses as defined in [RFC6890], except when the authorization server itself is also running on a loopback address and the resolved address matches the same loopback interface.',
    text: 'An authorization request whose client_id is a metadata-document URL at 0.0.0.0 (special-use "this host", not a loopback address) is refused without the document being fetched, and without a redirect to the client.',
    async check(ctx) {
      const { base } = broker(ctx)
      const { doc } = await brokerMetadata(ctx)
      if (doc.client_id_metadata_document_supported !== true) {
        throw new CheckSkipped(
          'the broker does not advertise client_id_metadata_document_supported',
        )
      }
      let hits = 0
      // The harness's document host on loopback; 0.0.0.0 reaches it on Linux, a loopback-only
      // exception of the quoted sentence does not cover it.
      const host = createServer((_req, res) => {
        hits++
        res.setHeader('content-type', 'application/json')
        res.end(
          JSON.stringify({
            client_id: `${clientId}`,
            redirect_uris: [REDIRECT],
            client_name: 'ssrf',
          }),
        )
      })
      host.listen(0, '127.0.0.1')
      await once(host, 'listening')
      const clientId = `http://0.0.0.0:${(host.address() as AddressInfo).port}/client.json`
      try {
        const verifier = randomBytes(32).toString('base64url')
        const url = new URL(`${base}${new URL(String(doc.authorization_endpoint)).pathname}`)
        const params = {
          response_type: 'code',
          client_id: clientId,
          redirect_uri: REDIRECT,
          state: 'brk-007',
          code_challenge: createHash('sha256').update(verifier).digest('base64url'),
          code_challenge_method: 'S256',
          resource: `${broker(ctx).configuredBase}/mcp`,
        }
        for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v)
        const res = await ctx.http(url.toString(), { redirect: 'manual' })
        if (res.status === 404 || res.status === 501) {
          throw new CheckSkipped(`the broker's authorization endpoint answers ${res.status}`)
        }
        const location = res.headers.get('location') ?? ''
        must(
          hits === 0,
          'the metadata document at 0.0.0.0 not fetched',
          `the gateway fetched it ${hits} time(s)`,
        )
        must(
          !location.startsWith(REDIRECT),
          'no redirect to the client for a client that cannot be verified',
          `redirect to ${location}`,
        )
      } finally {
        host.closeAllConnections()
        host.close()
      }
    },
  },
]
