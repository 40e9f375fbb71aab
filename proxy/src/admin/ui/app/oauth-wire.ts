/**
 * What the OAuth flow debugger sends and reads on the wire, without DOM: the relay's request and
 * answer shapes, the `WWW-Authenticate` and well-known URL rules of the MCP authorization spec,
 * PKCE values (RFC 7636), the JSON-RPC messages of an MCP answer, and the record of a step
 * (its exchanges and checks).
 */

/** A request the debugger asks the relay (../relay.ts) to send. */
export interface RelayAsk {
  method: 'GET' | 'POST' | 'DELETE'
  url: string
  headers?: Record<string, string>
  body?: string
}

/** The exchange the relay answers with (`RelayAnswer` of ../relay.ts, as it is on the wire). */
export interface RelayAnswer {
  status: number
  statusText: string
  headers: Array<[string, string]>
  body: string
  truncated: boolean
  durationMs: number
}

/** The MCP protocol revision the debugger's `initialize` asks for. */
export const MCP_VERSION = '2025-11-25'

/** Parameters of a `WWW-Authenticate: Bearer` challenge (RFC 6750 §3), names lower-cased. */
export function parseBearerChallenge(
  header: string | undefined,
): Record<string, string> | undefined {
  if (!header) return undefined
  const m = /(?:^|,\s*)Bearer\b\s*(.*)$/i.exec(header)
  if (!m) return undefined
  const params: Record<string, string> = {}
  for (const p of (m[1] ?? '').matchAll(
    /([A-Za-z_][A-Za-z0-9_-]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))/g,
  )) {
    params[(p[1] as string).toLowerCase()] = (p[2] ?? p[3] ?? '').replace(/\\(.)/g, '$1')
  }
  return params
}

/**
 * The metadata URLs to try for an issuer, in the order MCP 2026-07-28 Authorization Server
 * Discovery lists (RFC 8414 §3.1 path insertion first, then OpenID Connect Discovery).
 */
export function asMetadataUrls(issuer: string): string[] {
  const u = new URL(issuer)
  const path = u.pathname.replace(/\/$/, '')
  if (path === '') {
    return [
      `${u.origin}/.well-known/oauth-authorization-server`,
      `${u.origin}/.well-known/openid-configuration`,
    ]
  }
  return [
    `${u.origin}/.well-known/oauth-authorization-server${path}`,
    `${u.origin}/.well-known/openid-configuration${path}`,
    `${u.origin}${path}/.well-known/openid-configuration`,
  ]
}

/** The RFC 9728 §3.1 well-known URLs of a resource: path form, then root. */
export function resourceMetadataUrls(resource: string): string[] {
  const u = new URL(resource)
  const path = u.pathname.replace(/\/$/, '')
  return [
    ...(path ? [`${u.origin}/.well-known/oauth-protected-resource${path}`] : []),
    `${u.origin}/.well-known/oauth-protected-resource`,
  ]
}

/** Base64url without padding (RFC 7636 Appendix A). */
export function base64url(bytes: Uint8Array): string {
  let s = ''
  for (const b of bytes) s += String.fromCharCode(b)
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

/** A random value of `n` bytes, base64url. */
export function random(n: number): string {
  return base64url(crypto.getRandomValues(new Uint8Array(n)))
}

/** The S256 challenge of a verifier (RFC 7636 §4.2). */
export async function s256(verifier: string): Promise<string> {
  return base64url(
    new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))),
  )
}

/** A header of an answer, case-insensitively. */
export function header(res: RelayAnswer | undefined, name: string): string | undefined {
  return res?.headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1]
}

/** Parses a JSON body (`undefined` when it is not JSON). */
export function json(res: RelayAnswer | undefined): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(res?.body ?? '')
    return v && typeof v === 'object' && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : undefined
  } catch {
    return undefined
  }
}

/** The JSON-RPC message of an MCP answer: a JSON body, or the first `data:` of an event stream. */
export function mcpMessage(res: RelayAnswer | undefined): Record<string, unknown> | undefined {
  const direct = json(res)
  if (direct) return direct
  for (const line of (res?.body ?? '').split('\n')) {
    if (!line.startsWith('data:')) continue
    try {
      return JSON.parse(line.slice(5)) as Record<string, unknown>
    } catch {
      // another line
    }
  }
  return undefined
}

/** An MCP `initialize` request, with the token when there is one. */
export function initializeRequest(mcpUrl: string, token?: string): RelayAsk {
  return {
    method: 'POST',
    url: mcpUrl,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: MCP_VERSION,
        capabilities: {},
        clientInfo: { name: 'gatehouse-oauth-debugger', version: '1' },
      },
    }),
  }
}

/** One thing the spec expects at a step, judged. */
export interface Check {
  text: string
  /** The clause, with its revision. */
  cite: string
  level: 'MUST' | 'SHOULD' | 'MAY'
  /** `undefined`: did not apply (the reason is in `text`). */
  ok: boolean | undefined
  /** What was seen. */
  seen?: string
}

/** One request and what came back. */
export interface Exchange {
  request: RelayAsk
  response?: RelayAnswer
  error?: string
}

/** One step of the flow. */
export interface Step {
  id: 'challenge' | 'resource' | 'as' | 'registration' | 'authorize' | 'token' | 'mcp'
  title: string
  /** What the spec expects here, in a sentence. */
  expect: string
  exchanges: Exchange[]
  checks: Check[]
  /** `holds`: every applicable MUST held; `fails`: one did not; `refused`: an expected refusal. */
  verdict: 'holds' | 'fails' | 'refused' | 'skipped' | 'waiting'
  note?: string
}

/** What the flow needs from outside. */
export interface FlowIo {
  send(ask: RelayAsk): Promise<RelayAnswer>
  /** Opens the authorization URL for the person and resolves with the redirect's query. */
  signIn(url: string, state: string): Promise<URLSearchParams>
  /** Hears a step change (to redraw). */
  changed(step: Step): void
}

/** What a step written as a function (./oauth-mcp-step.ts) uses of the flow (./oauth-flow.ts). */
export interface StepRunner {
  step(id: Step['id'], title: string, expect: string): Step
  send(step: Step, request: RelayAsk): Promise<RelayAnswer | undefined>
  done(step: Step, verdict?: Step['verdict'], note?: string): void
}

/** The verdict of a step from its checks: a failed MUST fails it. */
export function verdictOf(checks: readonly Check[]): Step['verdict'] {
  return checks.some((c) => c.ok === false && c.level === 'MUST') ? 'fails' : 'holds'
}

/** The MCP revision the checks cite. */
export const REV = 'MCP 2026-07-28'
