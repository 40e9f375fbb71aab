/**
 * The authorization rules MCP 2026-07-28 added or hardened for clients (changelog minor changes
 * 7–9, SEP-2207): a present `iss` validated before the code is redeemed (RFC 9207 §2.4, now a
 * MUST), `application_type` at registration (SEP-837), credentials bound to the issuing
 * authorization server and re-registration when it changes (SEP-2352), and `refresh_token` in the
 * registered grant types of a client that wants refresh tokens (SEP-2207). Judged only in the
 * 2026-07-28 scenarios.
 */
import { CheckSkipped, must } from '../../types.js'
import { scopesOf, withoutQuery } from '../flow.js'
import { ISS_REMOVED, MIGRATED } from '../shapers-2026.js'
import type { Recorded } from '../traffic.js'
import { formOf } from '../traffic.js'
import {
  type ClientCheckContext,
  type ClientRequirement,
  current2026,
  MCP26,
  only,
} from './types.js'

const ISS_VALIDATION = `${MCP26('authorization §Authorization Response Validation')}; RFC 9207 §2.4`
const ISS_QUOTE =
  'On receiving the authorization response, MCP clients MUST apply the validation in RFC9207 Section 2.4 before transmitting the authorization code to any token endpoint:'
const REGISTRATION = MCP26('authorization/client-registration')
const BINDING = `${REGISTRATION} §Authorization Server Binding`
const BINDING_QUOTE =
  'When the authorization server changes (detected via updated protected resource metadata), clients MUST NOT reuse client credentials from a different authorization server and MUST re-register with the new authorization server.'

/**
 * A Client ID Metadata Document URL as client_id: "portable across authorization servers, since
 * they are self-hosted HTTPS URLs resolved by the authorization server on demand".
 */
const isMetadataDocumentUrl = (id: string) => /^https:\/\/[^/]+\/.+/.test(id)

/** The authorization response a shaper changed (`note` starts its note), and its code's fate. */
function reshapedResponseNotRedeemed(ctx: ClientCheckContext, note: string, what: string): void {
  const changed = ctx.flow.authorizations.find((a) => a.entry.reshaped?.startsWith(note))
  if (!changed?.code)
    throw new CheckSkipped('not reached: the client never got to the authorization response')
  const redeemed = ctx.flow.tokenRequests.find((t) => t.form.get('code') === changed.code)
  ctx.evidence(redeemed?.entry ?? changed.entry)
  must(
    !redeemed,
    `the code of the response ${what} never redeemed`,
    `redeemed at the token endpoint (${redeemed?.entry.status})`,
  )
}

/** The MCP requests, metadata fetches and OAuth requests after the migration, and where it began. */
function migrationOf(ctx: ClientCheckContext): { at: Recorded; second: string } {
  const second = ctx.facts.secondIssuer
  const at = ctx.flow.prmFetches.find((e) => e.reshaped?.startsWith(MIGRATED))
  if (!second || !at)
    throw new CheckSkipped(
      'not reached: the client never fetched the protected-resource metadata again after the authorization server changed',
    )
  return { at, second }
}

/** Requests to the second authorization server's authorize and token endpoints. */
function atSecond(ctx: ClientCheckContext, second: string) {
  const authorize = `${second}/v1/authorize`
  const token = `${second}/v1/token`
  return ctx.flow.entries.flatMap((e) => {
    const at = withoutQuery(e.url)
    if (at === authorize) return [{ e, clientId: e.url.searchParams.get('client_id') }]
    if (at === token && e.method === 'POST') {
      const basic = /^basic\s+(\S+)$/i.exec(e.requestHeaders.authorization ?? '')
      const fromBasic = basic?.[1]
        ? decodeURIComponent(Buffer.from(basic[1], 'base64').toString('utf8').split(':')[0] ?? '')
        : undefined
      return [{ e, clientId: fromBasic ?? formOf(e).get('client_id') }]
    }
    return []
  })
}

/** The 2026-07-28 authorization requirements. */
export const authorization2026: ClientRequirement[] = [
  {
    id: 'CLI-ISS-003',
    level: 'MUST',
    source: ISS_VALIDATION,
    quote: ISS_QUOTE,
    text: 'When the authorization server advertises authorization_response_iss_parameter_supported, the client does not redeem the code of an authorization response that carries no iss ("Reject the response").',
    appliesTo: only('iss-missing'),
    check: (ctx) => reshapedResponseNotRedeemed(ctx, ISS_REMOVED, 'without iss'),
  },
  {
    id: 'CLI-ISS-004',
    level: 'MUST',
    source: ISS_VALIDATION,
    quote: ISS_QUOTE,
    text: "A present iss is compared with the recorded issuer, whether the metadata advertises iss support or not: the code of a response whose iss is not the authorization server's issuer is never redeemed.",
    appliesTo: only('iss-wrong-issuer', 'iss-unadvertised'),
    check: (ctx) => reshapedResponseNotRedeemed(ctx, 'iss replaced', 'whose iss is another issuer'),
  },
  {
    id: 'CLI-REG-005',
    level: 'MUST',
    source: `${REGISTRATION} §Application Type and Redirect URI Constraints; OpenID Connect Dynamic Client Registration §2`,
    quote:
      'MCP clients MUST specify an appropriate application_type during Dynamic Client Registration.',
    needs: 'registration',
    text: 'Every Dynamic Client Registration request names application_type ("native" or "web").',
    appliesTo: current2026((s) => s.registration === 'dcr'),
    check({ flow, evidence }) {
      const regs = flow.registrations
      if (regs.length === 0) throw new CheckSkipped('the client did not register dynamically')
      for (const r of regs) {
        evidence(r.entry)
        const type = r.metadata?.application_type
        must(
          type === 'native' || type === 'web',
          'application_type "native" or "web"',
          type === undefined ? 'no application_type' : `application_type ${JSON.stringify(type)}`,
        )
      }
    },
  },
  {
    id: 'CLI-REG-006',
    level: 'SHOULD',
    source: `${REGISTRATION} §Application Type and Redirect URI Constraints`,
    quote:
      'Native applications (desktop applications, mobile apps, CLI tools, and locally-hosted web applications accessed via localhost) SHOULD use application_type: "native"',
    needs: 'registration',
    text: 'A client whose redirect URIs are all on loopback (a native application) registers with application_type "native".',
    appliesTo: current2026((s) => s.registration === 'dcr'),
    check({ flow, evidence }) {
      const loopback = flow.registrations.filter((r) => {
        const uris = r.metadata?.redirect_uris
        return (
          Array.isArray(uris) &&
          uris.length > 0 &&
          uris.every(
            (u) =>
              typeof u === 'string' &&
              URL.canParse(u) &&
              ['localhost', '127.0.0.1', '[::1]'].includes(new URL(u).hostname),
          )
        )
      })
      if (loopback.length === 0)
        throw new CheckSkipped('the client registered no loopback-only redirect URIs')
      for (const r of loopback) {
        evidence(r.entry)
        must(
          r.metadata?.application_type === 'native',
          'application_type "native" (loopback redirect URIs)',
          `application_type ${JSON.stringify(r.metadata?.application_type ?? null)}`,
        )
      }
    },
  },
  {
    id: 'CLI-BIND-001',
    level: 'MUST',
    source: BINDING,
    quote: BINDING_QUOTE,
    needs: 'token',
    text: "After the protected-resource metadata names another authorization server, the client never presents the old authorization server's client_id to the new one (authorization or token request).",
    appliesTo: only('as-migration'),
    check(ctx) {
      const { at, second } = migrationOf(ctx)
      // The client ids of the first authorization server: issued before the migration, or used there.
      const old = new Set([
        ...ctx.flow.registrations.flatMap((r) =>
          r.clientId && r.entry.seq < at.seq ? [r.clientId] : [],
        ),
        ...ctx.flow.authorizations.flatMap((a) => a.params.get('client_id') ?? []),
      ])
      for (const { e, clientId } of atSecond(ctx, second)) {
        ctx.evidence(e)
        must(
          clientId === null || isMetadataDocumentUrl(clientId) || !old.has(clientId),
          `a client_id issued for ${second} (or a metadata document URL)`,
          `client_id ${clientId}, issued for the previous authorization server`,
        )
      }
    },
  },
  {
    id: 'CLI-BIND-002',
    level: 'MUST',
    source: BINDING,
    quote: BINDING_QUOTE,
    needs: 'token',
    text: 'After the protected-resource metadata names another authorization server, the client registers again (at the registration_endpoint of the new metadata) before it authorizes there — unless its client_id is a metadata document URL, which is portable.',
    appliesTo: only('as-migration'),
    check(ctx) {
      const { at, second } = migrationOf(ctx)
      const first = atSecond(ctx, second)[0]
      ctx.evidence(first?.e ?? at)
      must(
        first !== undefined,
        `an authorization request at ${second}`,
        'none: the client never went to the new authorization server',
      )
      if (first.clientId && isMetadataDocumentUrl(first.clientId)) return
      const registered = ctx.flow.registrations.find(
        (r) => r.entry.seq > at.seq && r.entry.seq < first.e.seq,
      )
      must(
        registered !== undefined,
        `a registration after the metadata named ${second}, before authorizing there`,
        `${first.e.method} ${withoutQuery(first.e.url)} with client_id ${first.clientId} and no new registration`,
      )
    },
  },
  {
    id: 'CLI-REFRESH-002',
    level: 'SHOULD',
    source: `${MCP26('authorization §Refresh Tokens')}; OAuth 2.1 §4.3`,
    quote: 'SHOULD include refresh_token in their grant_types client metadata',
    needs: 'registration',
    text: 'A client that wants refresh tokens (it asks for offline_access or uses a refresh_token grant) registers with refresh_token among its grant_types.',
    appliesTo: only('offline-access-oidc'),
    check({ flow, evidence }) {
      const wants =
        flow.authorizations.some((a) =>
          scopesOf(a.params.get('scope')).includes('offline_access'),
        ) || flow.tokenRequests.some((t) => t.grantType === 'refresh_token')
      if (!wants) throw new CheckSkipped('the client did not ask for a refresh token')
      const regs = flow.registrations
      if (regs.length === 0) throw new CheckSkipped('the client did not register dynamically')
      for (const r of regs) {
        evidence(r.entry)
        const grants = r.metadata?.grant_types
        must(
          Array.isArray(grants) && grants.includes('refresh_token'),
          'grant_types including refresh_token',
          `grant_types ${JSON.stringify(grants ?? null)}`,
        )
      }
    },
  },
]
