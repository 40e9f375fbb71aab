/**
 * Using the token: where it is sent, how the client reacts to 403 insufficient_scope and to an
 * expired or refused token, and whether it got through at all.
 */
import { CheckSkipped, must } from '../../types.js'
import { exitCause } from '../exit-cause.js'
import { scopesOf, withoutQuery } from '../flow.js'
import { bearerOf } from '../traffic.js'
import { always, type ClientCheckContext, type ClientRequirement, MCP, only } from './types.js'

const TOKEN_USAGE = `${MCP('Access Token Usage')}; OAuth 2.1 §5.1; RFC 6750 §2`
const STEP_UP = `${MCP('Scope Challenge Handling')}; RFC 6750 §3.1`

const THROUGH_MUST =
  'MCP clients MUST be able to parse WWW-Authenticate headers and respond appropriately to HTTP 401 Unauthorized responses from the MCP server.'

/**
 * CLI-FLOW-001/003: the client got through. A refusal the spec demands (refusal.ts) is not a
 * failure to get through: the check is skipped as not reached, with that cause.
 */
function getsThrough({ flow, run, progress, evidence }: ClientCheckContext): void {
  const through = flow.mcpSuccesses.at(-1)
  if (!through && progress.conformantRefusal)
    throw new CheckSkipped(`not reached: ${progress.cause}`)
  evidence(through ?? flow.mcp.at(-1) ?? flow.entries.at(-1))
  must(
    through !== undefined,
    'an MCP request with a token answered 2xx',
    `none (statuses ${flow.mcp.map((e) => e.status).join(', ') || 'none'}); ${progress.cause ?? `stderr: ${exitCause(run.stderr)}`}`,
  )
  must(
    !run.timedOut,
    'the client to end within the time limit',
    `killed after ${run.durationMs} ms`,
  )
  must(
    run.exitCode === 0,
    'exit code 0',
    `exit ${run.exitCode ?? run.signal}; stderr: ${exitCause(run.stderr)}`,
  )
}

/** The session requirements. */
export const session: ClientRequirement[] = [
  {
    id: 'CLI-TOKEN-001',
    level: 'MUST',
    source: TOKEN_USAGE,
    quote: 'Access tokens MUST NOT be included in the URI query string',
    needs: 'token',
    text: 'The access token travels only in the Authorization header: never in a URL query string, never in a request body.',
    appliesTo: always,
    check({ flow, facts, evidence }) {
      const tokens = flow.accessTokens
      if (tokens.size === 0) throw new CheckSkipped('no access token was issued to the client')
      for (const e of flow.entries) {
        // RFC 7009: a revocation request carries the token in its body, as it should.
        if (withoutQuery(e.url) === facts.revocationUrl) continue
        const where = [...tokens].find((t) => e.url.search.includes(t))
          ? 'the URL query'
          : [...tokens].find((t) => e.requestBody.includes(t))
            ? 'the request body'
            : undefined
        evidence(e)
        must(!where, 'the token only in Authorization: Bearer', `the token in ${where}`)
      }
    },
  },
  {
    id: 'CLI-TOKEN-002',
    level: 'MUST',
    source: `RFC 6750 §5.3 (Safeguard bearer tokens); ${MCP('Token Audience Binding and Validation')}`,
    quote:
      'Client implementations MUST ensure that bearer tokens are not leaked to unintended parties, as they will be able to use them to gain access to protected resources.',
    needs: 'token',
    text: 'The access token is sent only to the MCP server it was issued for (its intended party), never to another origin (the IdP included).',
    appliesTo: always,
    check({ flow, facts, evidence }) {
      const tokens = flow.accessTokens
      if (tokens.size === 0) throw new CheckSkipped('no access token was issued to the client')
      for (const e of flow.entries) {
        const token = bearerOf(e)
        if (!token || !tokens.has(token)) continue
        evidence(e)
        must(
          e.url.origin === facts.gatewayOrigin,
          `the token sent only to ${facts.gatewayOrigin}`,
          `sent to ${e.url.origin} (${e.method} ${e.url.pathname})`,
        )
      }
    },
  },
  {
    id: 'CLI-STEP-001',
    level: 'SHOULD',
    source: STEP_UP,
    quote:
      'Clients SHOULD respond to these errors by requesting a new access token with an increased set of scopes via a step-up authorization flow or handle the errors in other, appropriate ways.',
    text: 'After a 403 insufficient_scope naming scope="…", the next authorization request asks for every scope the challenge names.',
    appliesTo: only('scope-step-up', 'runtime-step-up', 'scope-retry-limit'),
    check({ flow, evidence }) {
      const challenge = flow.challenges.find(
        (c) => c.entry.status === 403 && c.params.error === 'insufficient_scope',
      )
      if (!challenge)
        throw new CheckSkipped('the client never received the 403 insufficient_scope challenge')
      const wanted = scopesOf(challenge.params.scope)
      const next = flow.authorizations.find((a) => a.entry.seq > challenge.entry.seq)
      evidence(next?.entry ?? challenge.entry)
      must(
        next !== undefined,
        `a new authorization request for ${wanted.join(' ')}`,
        'none after the 403',
      )
      const asked = scopesOf(next.params.get('scope'))
      must(
        wanted.every((s) => asked.includes(s)),
        `scope including ${wanted.join(' ')}`,
        `scope=${asked.join(' ') || '(none)'}`,
      )
    },
  },
  {
    id: 'CLI-STEP-002',
    level: 'SHOULD',
    source: STEP_UP,
    quote:
      'Clients SHOULD implement retry limits and SHOULD track scope upgrade attempts to avoid repeated failures for the same resource and operation combination.',
    text: 'When step-up never succeeds, the client gives up after at most 3 authorization requests and ends by itself.',
    appliesTo: only('scope-retry-limit'),
    check({ flow, run, progress, evidence }) {
      // Retry limits are about step-up: a run that never got the 403 insufficient_scope
      // challenge never reached what this judges (it stopped earlier, for its own reason).
      const challenge = flow.challenges.find(
        (c) => c.entry.status === 403 && c.params.error === 'insufficient_scope',
      )
      if (!challenge)
        throw new CheckSkipped(
          `not reached: ${progress.cause ?? 'the client never received the 403 insufficient_scope challenge'}`,
        )
      const all = flow.authorizations
      evidence(all.at(-1)?.entry)
      must(all.length > 0, 'an authorization request', 'none')
      must(all.length <= 3, 'at most 3 authorization requests', `${all.length}`)
      must(
        !run.timedOut,
        'the client to stop by itself',
        `still running at the time limit (${run.durationMs} ms)`,
      )
    },
  },
  {
    id: 'CLI-REFRESH-001',
    // MAY: MCP 2025-11-25 says nothing of refresh tokens; 2026-07-28 makes asking for them a MAY.
    level: 'MAY',
    source: 'MCP authorization 2026-07-28 §Refresh Tokens; OAuth 2.1 §4.3; RFC 6749 §6',
    quote:
      'MAY add offline_access to the scope parameter of the authorization and token requests when the Authorization Server metadata contains it in scopes_supported',
    text: 'When the gateway refuses its access token (401 invalid_token) and the client holds a refresh token (it asked for offline_access, which the metadata lists), it uses the refresh token before signing the user in again.',
    appliesTo: only('token-refresh', 'key-rotation', 'offline-access-oidc'),
    check({ flow, evidence }) {
      const refused = flow.challenges.find(
        (c) => c.entry.status === 401 && c.params.error === 'invalid_token' && bearerOf(c.entry),
      )
      if (!refused) throw new CheckSkipped('the gateway never refused a token of the client')
      const issued = flow.tokenRequests.find(
        (t) => t.refreshToken && t.entry.seq < refused.entry.seq,
      )
      const first = flow.authorizations[0]
      evidence(issued?.entry ?? first?.entry)
      must(
        issued !== undefined,
        'a refresh token issued before the token was refused (scope offline_access)',
        `no refresh token (scope=${first?.params.get('scope') ?? 'none'})`,
      )
      const reauth = flow.authorizations.find((a) => a.entry.seq > refused.entry.seq)
      const refresh = flow.tokenRequests.find(
        (t) => t.entry.seq > refused.entry.seq && t.grantType === 'refresh_token',
      )
      evidence(reauth?.entry ?? refused.entry)
      must(refresh !== undefined, 'a refresh_token grant after the 401', 'none')
      must(
        !reauth || reauth.entry.seq > refresh.entry.seq,
        'the refresh before any new authorization request',
        'a new authorization request first',
      )
    },
  },
  {
    id: 'CLI-FLOW-001',
    level: 'MUST',
    source: `${MCP('Protected Resource Metadata Discovery Requirements')}; ${MCP('Authorization Flow Steps')}; MCP conformance client mode (exit code)`,
    quote: THROUGH_MUST,
    text: 'The client gets through: an MCP request with its token is answered 2xx, and it exits 0 within the time limit.',
    appliesTo: (s) => s.outcome === 'complete' && !s.throughBy,
    check: getsThrough,
  },
  {
    id: 'CLI-FLOW-003',
    level: 'SHOULD',
    source: STEP_UP,
    quote:
      'Clients SHOULD respond to these errors by requesting a new access token with an increased set of scopes via a step-up authorization flow or handle the errors in other, appropriate ways.',
    text: 'Where getting through needs step-up authorization, the client gets through: an MCP request with its token is answered 2xx, and it exits 0 within the time limit.',
    appliesTo: (s) => s.outcome === 'complete' && s.throughBy === 'SHOULD',
    check: getsThrough,
  },
  {
    id: 'CLI-FLOW-004',
    level: 'MUST',
    source: `${MCP('Protected Resource Metadata Discovery Requirements')}; ${MCP('Authorization Flow Steps')}`,
    quote: THROUGH_MUST,
    text: 'Where getting through also needs a behaviour the spec only allows (refreshing a token that expires at once: MAY), the client still does what it must: it gets an access token and sends it to the MCP server.',
    appliesTo: (s) => s.outcome === 'complete' && s.throughBy === 'MAY',
    check({ flow, run, progress, evidence }) {
      // Not "answered 2xx": in token-refresh the first token expires before the gateway sees it,
      // so only a client that refreshes (the MAY) gets a 2xx.
      const tokens = flow.accessTokens
      const sent = flow.mcp.find((e) => tokens.has(bearerOf(e) ?? ''))
      if (!sent && progress.conformantRefusal)
        throw new CheckSkipped(`not reached: ${progress.cause}`)
      evidence(sent ?? flow.mcp.at(-1) ?? flow.entries.at(-1))
      must(
        sent !== undefined,
        'an access token issued to the client and sent to the MCP server',
        `${tokens.size === 0 ? 'no access token' : 'an access token never sent'}; ${progress.cause ?? `stderr: ${exitCause(run.stderr)}`}`,
      )
    },
  },
  {
    id: 'CLI-FLOW-002',
    level: 'SHOULD',
    source: `${STEP_UP} (retry limits); MCP conformance client mode (time limit)`,
    quote:
      'Clients SHOULD implement retry limits and SHOULD track scope upgrade attempts to avoid repeated failures for the same resource and operation combination.',
    text: 'Where it must not get through, the client ends by itself within the time limit instead of hanging or looping.',
    appliesTo: (s) => s.outcome !== 'complete',
    check({ flow, run, evidence }) {
      evidence(flow.entries.at(-1))
      must(!run.timedOut, 'the client to end by itself', `killed after ${run.durationMs} ms`)
    },
  },
]
