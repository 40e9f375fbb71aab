/**
 * How far a client run got and, when it stopped early, why — read from the recorded traffic. One
 * root cause (a client that refused something and ended) is reported once: the checks of the
 * stages it never reached are skipped as "not reached: <cause>" instead of each failing with
 * "none was sent" (docs/peers.md). A refusal the spec demands — metadata whose issuer is not the one
 * the client derived (RFC 8414 §3.3), an authorization response whose `iss` is not the issuer's
 * (RFC 9207 §2.4) or whose `state` is not the one sent — is marked conformant: then even
 * CLI-FLOW-001 is not reached rather than failed.
 */
import type { ClientRun } from './execute.js'
import { exitCause } from './exit-cause.js'
import { type Flow, withoutQuery } from './flow.js'
import type { StackFacts } from './scenario-stack.js'
import { ISS_REMOVED } from './shapers-2026.js'
import type { Recorded } from './traffic.js'

/** The stages of a flow, in order. */
export type Stage = 'registration' | 'authorization' | 'token'

/** How far a run got. */
export interface Progress {
  reached: ReadonlySet<Stage>
  /** Why it stopped where it did, when it stopped before a token: one sentence. */
  cause?: string
  /**
   * The client refused something the spec says it must (or should) refuse — or something no
   * clause obliges it to accept (an interop finding, {@link crossOriginTokenEndpoint}).
   */
  conformantRefusal: boolean
}

/** A string member of a JSON answer, or undefined. */
function memberOf(e: Recorded, name: string): string | undefined {
  try {
    const value = (JSON.parse(e.responseBody) as Record<string, unknown>)[name]
    return typeof value === 'string' ? value : undefined
  } catch {
    return undefined
  }
}

/** The `issuer` of a metadata answer, or undefined. */
export const issuerOf = (e: Recorded) => memberOf(e, 'issuer')
/** The `resource` of a protected-resource metadata answer, or undefined. */
const resourceOf = (e: Recorded) => memberOf(e, 'resource')

/** The refusal the spec demands that the run shows, if any. */
function specRefusal(flow: Flow, facts: StackFacts): string | undefined {
  const after = (e: Recorded) => (x: { entry: Recorded }) => x.entry.seq > e.seq
  for (const m of flow.asMetadataFetches) {
    const issuer = issuerOf(m)
    if (m.status < 200 || m.status >= 300 || issuer === undefined || issuer === facts.authServer)
      continue
    const used = [...flow.registrations, ...flow.authorizations].some(after(m))
    if (!used)
      return `the client refused the authorization-server metadata at ${withoutQuery(m.url)}: its issuer ${issuer} is not ${facts.authServer}, the identifier it was derived from (RFC 8414 §3.3: "MUST NOT be used")`
  }
  for (const p of flow.prmFetches) {
    const resource = resourceOf(p)
    if (p.status < 200 || p.status >= 300 || resource === undefined || resource === facts.resource)
      continue
    const used = [...flow.registrations, ...flow.authorizations].some(after(p))
    if (!used)
      return `the client refused the protected-resource metadata at ${withoutQuery(p.url)}: its resource ${resource} is not ${facts.resource} (RFC 9728 §3.3: "MUST NOT be used")`
  }
  for (const a of flow.authorizations) {
    const location = a.entry.responseHeaders.location
    if (!a.code || !location) continue
    const redeemed = flow.tokenRequests.some((t) => t.form.get('code') === a.code)
    if (redeemed) continue
    const back = new URL(location, a.entry.url)
    const iss = back.searchParams.get('iss')
    if (iss !== null && iss !== facts.asIssuer)
      return `the client refused the authorization response whose iss ${iss} is not the issuer ${facts.asIssuer} (RFC 9207 §2.4)`
    if (iss === null && a.entry.reshaped === ISS_REMOVED)
      return 'the client refused the authorization response without iss from an authorization server that advertises it (RFC 9207 §2.4; MCP 2026-07-28 authorization §Authorization Response Validation: "Reject the response")'
    if (a.entry.reshaped?.includes('state replaced'))
      return 'the client refused the authorization response whose state is not the one it sent (RFC 6749 §10.12)'
  }
  return undefined
}

/**
 * A client that got an authorization code and then sent nothing, where the token endpoint is on
 * another origin than the authorization-server metadata it used (the seed's bridged shape: the
 * gateway serves the metadata, the token endpoint is the IdP's). A client may refuse that on
 * principle; no clause obliges it to follow the token endpoint to another origin (RFC 8414 §2
 * only names the endpoint), so its not getting through is an interop finding, not a breach.
 */
function crossOriginTokenEndpoint(flow: Flow, facts: StackFacts): string | undefined {
  if (flow.tokenRequests.length > 0) return undefined
  const tokenOrigin = new URL(facts.tokenUrl).origin
  const used = flow.asMetadataFetches.filter(
    (m) => m.status >= 200 && m.status < 300 && issuerOf(m) !== undefined,
  )
  const meta = used.at(-1)
  if (!meta || meta.url.origin === tokenOrigin) return undefined
  const last = flow.authorizations.filter((a) => a.code).at(-1)
  if (!last || flow.entries.some((e) => e.seq > last.entry.seq)) return undefined
  return `the client sent no request after its authorization response: it did not redeem the code at the token endpoint ${facts.tokenUrl}, on another origin than the authorization-server metadata it used (${withoutQuery(meta.url)}). An interop finding, not a breach: no clause obliges a client to follow a token endpoint to another origin`
}

/** The stages a run reached, and the cause when it stopped before a token. */
export function progressOf(flow: Flow, facts: StackFacts, run: ClientRun): Progress {
  const reached = new Set<Stage>()
  if (flow.registrations.length > 0 || flow.authorizations.length > 0) reached.add('registration')
  if (flow.authorizations.length > 0) reached.add('authorization')
  if (flow.accessTokens.size > 0) reached.add('token')
  if (reached.has('token')) return { reached, conformantRefusal: false }
  const refusal = specRefusal(flow, facts)
  if (refusal)
    return { reached, cause: `${refusal}: a conformant refusal`, conformantRefusal: true }
  const interop = crossOriginTokenEndpoint(flow, facts)
  if (interop) return { reached, cause: interop, conformantRefusal: true }
  const last = flow.entries.at(-1)
  const ended = run.timedOut
    ? `was killed at the time limit (${run.durationMs} ms)`
    : `ended (exit ${run.exitCode ?? run.signal}; ${exitCause(run.stderr, 160)})`
  const where = last
    ? `after ${last.method} ${withoutQuery(last.url)} → ${last.status}`
    : 'without a request'
  const stage = reached.has('authorization')
    ? 'with no access token'
    : reached.has('registration')
      ? 'before any authorization request'
      : 'before registering or authorizing'
  return { reached, cause: `the client ${ended} ${stage}, ${where}`, conformantRefusal: false }
}
