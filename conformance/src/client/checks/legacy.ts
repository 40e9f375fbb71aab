/**
 * Backwards compatibility with 2025-03-26 servers (the official suite's
 * `auth/2025-03-26-oauth-metadata-backcompat` and `auth/2025-03-26-oauth-endpoint-fallback`):
 * without protected-resource metadata, the MCP server's origin is the authorization server, its
 * RFC 8414 metadata is at the origin, and without metadata the default endpoints apply. These
 * are the 2025-03-26 specification's MUSTs, judged only in the scenarios that serve that shape;
 * a client that supports no 2025-03-26 server lists them in its baseline.
 */
import { must } from '../../types.js'
import type { Flow } from '../flow.js'
import { withoutQuery } from '../flow.js'
import type { StackFacts } from '../scenario-stack.js'
import type { Recorded } from '../traffic.js'
import { type ClientRequirement, only } from './types.js'

const LEGACY = 'MCP authorization 2025-03-26'

/** The RFC 8414 metadata URL at the MCP server's origin (the 2025-03-26 authorization base URL). */
const metadataUrl = (facts: StackFacts) =>
  `${facts.gatewayOrigin}/.well-known/oauth-authorization-server`

/**
 * The first request of the client that is no MCP request, no metadata fetch (any well-known URL:
 * a client may try more discovery URLs than 2025-03-26 names before falling back) and none of the
 * authorization server's endpoints: where a client that guessed its endpoints went.
 */
function stray(flow: Flow, facts: StackFacts): Recorded | undefined {
  const known = new Set([facts.authorizeUrl, facts.tokenUrl, facts.registrationUrl])
  return flow.entries.find(
    (e) =>
      !known.has(withoutQuery(e.url)) &&
      e.url.pathname !== '/mcp' &&
      !e.url.pathname.includes('/.well-known/'),
  )
}

/** The client registered (if it did), authorized and redeemed its code at the scenario's endpoints. */
function usesEndpoints(flow: Flow, facts: StackFacts, evidence: (e?: Recorded) => void): void {
  const elsewhere = stray(flow, facts)
  const where = elsewhere ? `${elsewhere.method} ${withoutQuery(elsewhere.url)}` : 'none'
  evidence(elsewhere ?? flow.entries.at(-1))
  must(flow.authorizations.length > 0, `an authorization request at ${facts.authorizeUrl}`, where)
  must(flow.tokenRequests.length > 0, `a token request at ${facts.tokenUrl}`, where)
  must(
    elsewhere === undefined,
    `only ${facts.registrationUrl}, ${facts.authorizeUrl}, ${facts.tokenUrl}`,
    where,
  )
}

/** The 2025-03-26 discovery requirements. */
export const legacy: ClientRequirement[] = [
  {
    id: 'CLI-LEGACY-001',
    level: 'MUST',
    source: `${LEGACY} §Server Metadata Discovery (Authorization Base URL); RFC 8414 §3`,
    quote:
      'The authorization base URL MUST be determined from the MCP server URL by discarding any existing path component.',
    text: "Against a 2025-03-26 server (no protected-resource metadata), the client fetches the authorization server's metadata at the MCP server's origin, <origin>/.well-known/oauth-authorization-server, and registers, authorizes and redeems its code at the endpoints it names.",
    appliesTo: only('legacy-metadata'),
    check({ flow, facts, evidence }) {
      const url = metadataUrl(facts)
      const fetched = flow.asMetadataFetches.find((e) => withoutQuery(e.url) === url)
      evidence(fetched ?? flow.entries.at(-1))
      must(
        fetched !== undefined,
        `a GET of ${url}`,
        flow.asMetadataFetches.map((e) => withoutQuery(e.url)).join(', ') ||
          'no authorization-server metadata fetched',
      )
      usesEndpoints(flow, facts, evidence)
    },
  },
  {
    id: 'CLI-LEGACY-002',
    level: 'MUST',
    source: `${LEGACY} §Fallbacks for Servers without Metadata Discovery`,
    quote:
      'For servers that do not implement OAuth 2.0 Authorization Server Metadata, clients MUST use the following default endpoint paths relative to the authorization base URL:',
    text: 'Against a 2025-03-26 server without metadata, the client uses the default endpoints at the MCP server’s origin: /register (when it registers), /authorize, /token.',
    appliesTo: only('legacy-defaults'),
    check({ flow, facts, evidence }) {
      usesEndpoints(flow, facts, evidence)
    },
  },
  {
    id: 'CLI-LEGACY-003',
    level: 'MUST',
    source: `${LEGACY} §Fallbacks for Servers without Metadata Discovery`,
    quote:
      'Clients MUST first attempt to discover endpoints via the metadata document before falling back to default paths.',
    text: 'Before using the default endpoints, the client asks for the metadata at <origin>/.well-known/oauth-authorization-server.',
    appliesTo: only('legacy-defaults'),
    check({ flow, facts, evidence }) {
      const url = metadataUrl(facts)
      const fetched = flow.asMetadataFetches.find((e) => withoutQuery(e.url) === url)
      const first = [...flow.registrations, ...flow.authorizations].sort(
        (a, b) => a.entry.seq - b.entry.seq,
      )[0]
      evidence(first?.entry ?? fetched)
      must(first !== undefined, 'a registration or authorization request', 'none')
      must(
        fetched !== undefined && fetched.seq < first.entry.seq,
        `a GET of ${url} before ${first.entry.method} ${withoutQuery(first.entry.url)}`,
        `${first.entry.method} ${withoutQuery(first.entry.url)} without trying it`,
      )
    },
  },
]
