/**
 * Discovery and registration: how the client found the protected-resource metadata, the
 * authorization server's metadata and its client id.
 */
import { CheckSkipped, must } from '../../types.js'
import { asMetadataCandidates, withoutQuery } from '../flow.js'
import { issuerOf } from '../refusal.js'
import { CIMD_CLIENT_METADATA_URL } from '../scenarios.js'
import type { Recorded } from '../traffic.js'
import { type ClientRequirement, current, MCP, only } from './types.js'

const PRM_DISCOVERY = `${MCP('Protected Resource Metadata Discovery Requirements')}; RFC 9728 §5.1`

/** The discovery and registration requirements. */
export const discovery: ClientRequirement[] = [
  {
    id: 'CLI-PRM-001',
    level: 'MUST',
    source: PRM_DISCOVERY,
    quote:
      'MCP clients MUST support both discovery mechanisms and use the resource metadata URL from the parsed WWW-Authenticate headers when present; otherwise, they MUST fall back to constructing and requesting the well-known URIs in the order listed above.',
    text: 'The client fetches the protected-resource metadata at the URL the challenge names in resource_metadata.',
    appliesTo: current((s) => s.name !== 'no-resource-metadata'),
    check({ flow, evidence }) {
      const first = flow.challenges.find((c) => c.params.resource_metadata)
      if (!first) throw new CheckSkipped('the client never received a challenge')
      const named = first.params.resource_metadata ?? ''
      const after = flow.prmFetches.find((e) => e.seq > first.entry.seq)
      const before = flow.prmFetches.find((e) => e.seq < first.entry.seq && e.url.href === named)
      evidence(after ?? first.entry)
      must(
        after !== undefined || before !== undefined,
        `a fetch of ${named}`,
        'no protected-resource metadata fetched after the challenge',
      )
      if (after) must(after.url.href === named, named, `${after.method} ${after.url.href} first`)
    },
  },
  {
    id: 'CLI-PRM-002',
    level: 'MUST',
    source: PRM_DISCOVERY,
    quote:
      'MCP clients MUST support both discovery mechanisms and use the resource metadata URL from the parsed WWW-Authenticate headers when present; otherwise, they MUST fall back to constructing and requesting the well-known URIs in the order listed above.',
    text: 'Without resource_metadata in the challenge, the client tries the well-known URIs in order: the path form (/.well-known/oauth-protected-resource/mcp) first, the root form only after it failed.',
    appliesTo: only('no-resource-metadata'),
    check({ flow, facts, evidence }) {
      const fetches = flow.prmFetches
      must(fetches.length > 0, `a fetch of ${facts.prmPathUrl}`, 'no metadata fetched')
      const first = fetches[0]
      evidence(first)
      must(first?.url.href === facts.prmPathUrl, facts.prmPathUrl, `${first?.url.href} first`)
      for (const [i, e] of fetches.entries()) {
        const ok =
          e.url.href === facts.prmPathUrl ||
          (e.url.href === facts.prmRootUrl &&
            fetches[i - 1]?.url.href === facts.prmPathUrl &&
            (fetches[i - 1]?.status ?? 0) >= 300)
        evidence(e)
        must(
          ok,
          `${facts.prmRootUrl} only right after the path form failed`,
          `${e.url.href} after ${fetches[i - 1]?.url.href ?? 'nothing'}`,
        )
      }
    },
  },
  {
    id: 'CLI-PRM-003',
    level: 'MUST',
    source: `${MCP('Overview')}; MCP 2026-07-28 authorization §Overview; RFC 9728 §5.1`,
    quote:
      'MCP clients MUST use OAuth 2.0 Protected Resource Metadata for authorization server discovery.',
    text: "The client takes its authorization server from the protected-resource metadata at the URL the 401 named, and never treats the MCP server as its authorization server: no request to the MCP server's origin but the MCP endpoint and that metadata.",
    appliesTo: only('prm-named-url-only'),
    check({ flow, facts, evidence }) {
      const mcpPath = new URL(facts.resource).pathname
      const prm = new Set(flow.prmFetches)
      const guessed = flow.entries.find(
        (e) => e.url.origin === facts.gatewayOrigin && e.url.pathname !== mcpPath && !prm.has(e),
      )
      evidence(guessed)
      must(
        guessed === undefined,
        `no authorization-server request at the MCP server's origin ${facts.gatewayOrigin} (its metadata names ${facts.authServer})`,
        `${guessed?.method} ${guessed ? withoutQuery(guessed.url) : ''} → ${guessed?.status}`,
      )
      const named = flow.challenges.find((c) => c.params.resource_metadata)?.params
        .resource_metadata
      if (named === undefined) throw new CheckSkipped('the client never received a challenge')
      const fetched = flow.prmFetches.find((e) => e.url.href === named)
      evidence(fetched ?? flow.prmFetches[0])
      must(fetched !== undefined, `a fetch of ${named}`, 'none')
    },
  },
  {
    id: 'CLI-ASM-001',
    level: 'MUST',
    source: `${MCP('Authorization Server Metadata Discovery')}; RFC 8414 §3.1, §5`,
    quote:
      'For issuer URLs with path components (e.g., https://auth.example.com/tenant1), clients MUST try endpoints in the following priority order:',
    text: "The client fetches the authorization server's metadata at the URLs the spec lists, in its order (RFC 8414 path insertion, OIDC path insertion, OIDC path appending), moving on only when one fails.",
    appliesTo: current(),
    check({ flow, facts, progress, evidence }) {
      const candidates = asMetadataCandidates(facts.authServer)
      // After an authorization-server migration (as-migration), the second one's URLs too.
      const sets = [
        candidates,
        ...(facts.secondIssuer ? [asMetadataCandidates(facts.secondIssuer)] : []),
      ]
      const fetches = flow.asMetadataFetches
      // Refusing the protected-resource metadata (RFC 9728 §3.3) comes before this stage.
      if (fetches.length === 0 && progress.conformantRefusal)
        throw new CheckSkipped(`not reached: ${progress.cause}`)
      must(
        fetches.length > 0,
        `a fetch of ${candidates[0]}`,
        'no authorization-server metadata fetched',
      )
      const ok = (x: Recorded) => x.status >= 200 && x.status < 300
      for (const [i, e] of fetches.entries()) {
        evidence(e)
        const set = sets.find((c) => c.includes(withoutQuery(e.url))) ?? candidates
        const at = set.indexOf(withoutQuery(e.url))
        must(at >= 0, `one of ${set.join(', ')}`, e.url.href)
        if (at === 0) continue
        // Reading again a document the client already found (the Inspector CLI fetches it twice)
        // is no new attempt out of the order.
        const again = fetches.slice(0, i).some((x) => withoutQuery(x.url) === set[at] && ok(x))
        if (again) continue
        const prev = fetches[i - 1]
        must(
          prev !== undefined && withoutQuery(prev.url) === set[at - 1] && !ok(prev),
          `${e.url.href} only right after ${set[at - 1]} failed`,
          prev ? `after ${prev.url.href} (${prev.status})` : 'as the first metadata fetch',
        )
      }
    },
  },
  {
    id: 'CLI-RES-002',
    level: 'MUST',
    source: 'RFC 9728 §3.3; MCP authorization 2025-11-25 §Authorization Server Location',
    quote:
      'If these values are not identical, the data contained in the response MUST NOT be used.',
    text: "The client does not use protected-resource metadata whose resource is not the MCP server's: no registration, authorization or token request on its strength.",
    appliesTo: only('resource-mismatch'),
    check({ flow, facts, evidence }) {
      const served = flow.prmFetches.find((e) => e.status >= 200 && e.status < 300)
      if (!served)
        throw new CheckSkipped('not reached: the client fetched no protected-resource metadata')
      const used = [
        ...flow.registrations.map((r) => r.entry),
        ...flow.authorizations.map((a) => a.entry),
        ...flow.tokenRequests.map((t) => t.entry),
      ].sort((a, b) => a.seq - b.seq)[0]
      evidence(used ?? served)
      must(
        used === undefined,
        `the metadata naming another resource than ${facts.resource} refused: no request on its strength`,
        `${used?.method} ${used ? withoutQuery(used.url) : ''}`,
      )
    },
  },
  {
    id: 'CLI-ISS-002',
    level: 'MUST',
    source:
      'RFC 8414 §3.3; OpenID Connect Discovery §4.3; MCP authorization 2026-07-28 §Authorization Server Metadata Discovery',
    quote:
      'If these values are not identical, the data contained in the response MUST NOT be used.',
    text: 'The client does not use authorization-server metadata whose issuer is not the identifier it built the metadata URL from: no registration, authorization or token request to the endpoints it names.',
    appliesTo: (s) => s.gateway.bridged && s.gateway.issuerMode === 'Provider',
    check({ flow, facts, evidence }) {
      const served = flow.asMetadataFetches.find((e) => e.status >= 200 && e.status < 300)
      if (!served)
        throw new CheckSkipped('not reached: the client fetched no authorization-server metadata')
      const issuer = issuerOf(served)
      evidence(served)
      must(
        issuer !== facts.authServer,
        `metadata whose issuer is not ${facts.authServer} (this scenario serves one)`,
        `issuer ${issuer}: the scenario is broken`,
      )
      const used = [
        ...flow.registrations.map((r) => r.entry),
        ...flow.authorizations.map((a) => a.entry),
        ...flow.tokenRequests.map((t) => t.entry),
      ].sort((a, b) => a.seq - b.seq)[0]
      evidence(used ?? served)
      must(
        used === undefined,
        `the metadata of issuer ${issuer} refused (fetched from ${withoutQuery(served.url)}, derived from ${facts.authServer}): no request to its endpoints`,
        `${used?.method} ${used ? withoutQuery(used.url) : ''}`,
      )
    },
  },
  {
    id: 'CLI-REG-001',
    level: 'MUST',
    source: `${MCP('Overview')}; RFC 8414 §2 (registration_endpoint); RFC 7591 §3`,
    quote:
      'MCP clients MUST use OAuth 2.0 Protected Resource Metadata for authorization server discovery.',
    needs: 'registration',
    text: 'The client registers at the registration_endpoint of the metadata it got (not at a URL it guessed) and uses the client_id it was issued.',
    appliesTo: current((s) => s.registration === 'dcr'),
    check({ flow, facts, evidence }) {
      const regs = flow.registrations
      const elsewhere = regs.find((r) => withoutQuery(r.entry.url) !== facts.registrationUrl)
      evidence(elsewhere?.entry)
      must(
        !elsewhere,
        `registration at ${facts.registrationUrl}`,
        `a registration at ${elsewhere?.entry.url.href}`,
      )
      // No registration: the evidence is the authorization request with the client id it made up.
      if (regs.length === 0) evidence(flow.authorizations[0]?.entry)
      must(regs.length > 0, `a registration at ${facts.registrationUrl}`, 'no registration request')
      const issued = new Set(regs.flatMap((r) => (r.clientId ? [r.clientId] : [])))
      must(
        issued.size > 0,
        'a client_id issued',
        `registration answered ${regs.at(-1)?.entry.status}`,
      )
      for (const a of flow.authorizations) {
        evidence(a.entry)
        const id = a.params.get('client_id')
        must(
          id !== null && issued.has(id),
          `client_id ${[...issued].join(' or ')}`,
          `client_id ${id}`,
        )
      }
    },
  },
  {
    id: 'CLI-REG-002',
    level: 'MUST',
    source: 'RFC 6749 §3.2.1; MCP authorization 2025-11-25 §Preregistration',
    quote:
      'Confidential clients or other clients issued client credentials MUST authenticate with the authorization server as described in Section 2.3 when making requests to the token endpoint.',
    needs: 'authorization',
    text: 'With pre-registered credentials (MCP_CONFORMANCE_CONTEXT), the client uses that client_id and authenticates at the token endpoint with its secret.',
    appliesTo: (s) => s.registration === 'pre-registered',
    check({ flow, facts, evidence }) {
      const { client_id, client_secret } = (facts.context ?? {}) as Record<string, string>
      for (const a of flow.authorizations) {
        evidence(a.entry)
        must(
          a.params.get('client_id') === client_id,
          `client_id ${client_id}`,
          `client_id ${a.params.get('client_id')}`,
        )
      }
      for (const t of flow.tokenRequests) {
        evidence(t.entry)
        must(
          t.clientId === client_id && t.clientSecret === client_secret,
          `client authentication as ${client_id} with its secret (Basic or form)`,
          t.clientSecret === undefined
            ? `no secret (client ${t.clientId})`
            : `client ${t.clientId} with another secret`,
        )
      }
    },
  },
  {
    id: 'CLI-REG-004',
    level: 'SHOULD',
    source: MCP('Preregistration'),
    quote:
      'MCP clients SHOULD support an option for static client credentials such as those supplied by a preregistration flow.',
    needs: 'registration',
    text: 'Given pre-registered credentials (MCP_CONFORMANCE_CONTEXT), the client uses them instead of registering.',
    appliesTo: (s) => s.registration === 'pre-registered',
    check({ flow, evidence }) {
      const reg = flow.registrations[0]
      evidence(reg?.entry)
      must(!reg, 'no registration request', `a registration at ${reg?.entry.url.href}`)
    },
  },
  {
    id: 'CLI-REG-003',
    level: 'SHOULD',
    // 2026-07-28 keeps the sentence (authorization/client-registration §Client ID Metadata
    // Documents) and deprecates DCR; the cimd-preferred scenario judges it at that revision.
    source: `${MCP('Client ID Metadata Documents')}; MCP 2026-07-28 authorization/client-registration §Client ID Metadata Documents; draft-ietf-oauth-client-id-metadata-document`,
    quote:
      'MCP clients and authorization servers SHOULD support OAuth Client ID Metadata Documents as specified in OAuth Client ID Metadata Document.',
    needs: 'authorization',
    text: 'When the authorization server advertises client_id_metadata_document_supported, the client uses an https URL (its metadata document) as client_id instead of registering.',
    appliesTo: (s) => s.registration === 'cimd',
    check({ flow, evidence }) {
      const a = flow.authorizations[0]
      must(a !== undefined, 'an authorization request', 'none')
      evidence(a.entry)
      const id = a.params.get('client_id') ?? ''
      must(
        /^https:\/\/[^/]+\/.+/.test(id),
        `an https URL with a path as client_id (e.g. ${CIMD_CLIENT_METADATA_URL})`,
        `client_id ${id}`,
      )
      const reg = flow.registrations[0]
      evidence(reg?.entry)
      must(!reg, 'no registration request', `a registration at ${reg?.entry.url.href}`)
    },
  },
]
