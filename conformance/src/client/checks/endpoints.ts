/**
 * The authorization server's endpoints: the client sends its authorization and token requests to
 * the URLs its authorization-server metadata names, not to URLs it builds from the issuer. Judged
 * where the IdP's endpoints are not under its issuer (a shaped IdP: Auth0's `/authorize` and
 * `/oauth/token`, Google's token endpoint on another host). Under the Okta layout they are
 * `<issuer>/v1/…`, where a client that builds them itself sends the same requests as one that
 * reads them.
 */
import { CheckSkipped, must } from '../../types.js'
import { withoutQuery } from '../flow.js'
import type { StackFacts } from '../scenario-stack.js'
import type { ClientScenario } from '../scenarios.js'
import { formOf, type Recorded } from '../traffic.js'
import { type ClientRequirement, current, MCP } from './types.js'

const SOURCE = `${MCP('Overview')}; MCP 2026-07-28 authorization §Overview; RFC 8414 §2`
const QUOTE =
  'MCP clients MUST support both discovery mechanisms to obtain the information required to interact with the authorization server.'

/** The scenarios whose IdP's endpoints are not under its issuer (mock-idp/src/shapes.ts). */
const shaped = current((s: ClientScenario) => (s.idp.shape ?? 'okta') !== 'okta')

/** An authorization request (RFC 6749 §4.1.1), wherever it was sent. */
const isAuthorization = (e: Recorded) =>
  e.method === 'GET' &&
  e.url.searchParams.has('response_type') &&
  e.url.searchParams.has('client_id')

/** A token request (RFC 6749 §4.1.3, §6), wherever it was sent. */
const isTokenRequest = (e: Recorded) => e.method === 'POST' && formOf(e).has('grant_type')

/**
 * The requirement that every request `isRequest` picks out went to the URL `endpointOf` reads from
 * the stack's facts (the metadata's endpoint); skipped with the run's cause when none was sent.
 */
function sentToMetadataEndpoint(
  id: string,
  text: string,
  request: { name: string; method: string; is: (e: Recorded) => boolean },
  endpoint: { name: string; of: (facts: StackFacts) => string },
): ClientRequirement {
  return {
    id,
    level: 'MUST',
    source: SOURCE,
    quote: QUOTE,
    text,
    appliesTo: shaped,
    check({ flow, facts, progress, evidence }) {
      const sent = flow.entries.filter(request.is)
      if (sent.length === 0)
        throw new CheckSkipped(
          `not reached: ${progress.cause ?? `the client sent no ${request.name}`}`,
        )
      const url = endpoint.of(facts)
      const astray = sent.find((e) => withoutQuery(e.url) !== url)
      evidence(astray)
      must(
        astray === undefined,
        `${request.name}s at ${url}, the metadata's ${endpoint.name}`,
        `${request.method} ${astray ? withoutQuery(astray.url) : ''} → ${astray?.status}`,
      )
    },
  }
}

/** The endpoint requirements. */
export const endpoints: ClientRequirement[] = [
  sentToMetadataEndpoint(
    'CLI-ASM-002',
    'The client sends its authorization requests to the authorization_endpoint its authorization-server metadata names (which may be on another path or host than the issuer), not to a URL it builds from the issuer.',
    { name: 'authorization request', method: 'GET', is: isAuthorization },
    { name: 'authorization_endpoint', of: (facts) => facts.authorizeUrl },
  ),
  sentToMetadataEndpoint(
    'CLI-ASM-003',
    'The client sends its token requests to the token_endpoint its authorization-server metadata names (which may be on another host than the issuer), not to a URL it builds from the issuer.',
    { name: 'token request', method: 'POST', is: isTokenRequest },
    { name: 'token_endpoint', of: (facts) => facts.tokenUrl },
  ),
]
