/**
 * The OAuth flow as the recorders saw it: authorization requests and the redirects they got,
 * token requests and what they were issued, registrations, MCP requests, metadata fetches — read
 * out of the recorded traffic for the client checks.
 */
import { createHash } from 'node:crypto'
import type { StackFacts } from './scenario-stack.js'
import { bearerOf, challengeOf, formOf, jsonOf, locationOf, type Recorded } from './traffic.js'

/** An authorization request and the redirect back to the client it got (if any). */
export interface Authorization {
  entry: Recorded
  params: URLSearchParams
  /** The redirect back to the client (a `Location` off the IdP's origin). */
  back?: URL
  code?: string
}

/** A token-endpoint request. */
export interface TokenRequest {
  entry: Recorded
  form: URLSearchParams
  grantType: string | null
  /** The client id: HTTP Basic user (RFC 6749 §2.3.1, form-urlencoded) or the form's. */
  clientId?: string
  /** The client secret sent, Basic or form. */
  clientSecret?: string
  /**
   * How the client authenticated (RFC 7591 §2 names): an `Authorization: Basic` header, a
   * `client_secret` in the form, both (RFC 6749 §2.3: "MUST NOT use more than one"), or neither.
   */
  authMethod: 'client_secret_basic' | 'client_secret_post' | 'both' | 'none'
  accessToken?: string
  refreshToken?: string
}

/** A registration request (RFC 7591) and the client id it got. */
export interface RegistrationRequest {
  entry: Recorded
  metadata?: Record<string, unknown>
  clientId?: string
  /** The registration answer's `token_endpoint_auth_method` (RFC 7591 §3.2.1), if given. */
  authMethod?: string
  /** The `client_secret` issued, if one was (kept in memory; evidence is redacted). */
  clientSecret?: string
}

const decode = (s: string) => {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '))
  } catch {
    return s
  }
}

/** Reads the flow out of a run's traffic. */
export class Flow {
  constructor(
    readonly entries: readonly Recorded[],
    readonly facts: StackFacts,
  ) {}

  /** Requests to the IdP's authorization endpoint. */
  get authorizations(): Authorization[] {
    const at = this.facts.authorizeUrl
    return this.entries
      .filter((e) => withoutQuery(e.url) === at)
      .map((entry) => {
        const location = locationOf(entry)
        const back = location && location.origin !== entry.url.origin ? location : undefined
        const code = back?.searchParams.get('code') ?? undefined
        return {
          entry,
          params: entry.url.searchParams,
          ...(back ? { back } : {}),
          ...(code ? { code } : {}),
        }
      })
  }

  /** Requests to the IdP's token endpoint. */
  get tokenRequests(): TokenRequest[] {
    const at = this.facts.tokenUrl
    return this.entries
      .filter((e) => withoutQuery(e.url) === at && e.method === 'POST')
      .map((entry) => {
        const form = formOf(entry)
        const basic = /^basic\s+(\S+)$/i.exec(entry.requestHeaders.authorization ?? '')
        let clientId = form.get('client_id') ?? undefined
        let clientSecret = form.get('client_secret') ?? undefined
        if (basic?.[1]) {
          const pair = Buffer.from(basic[1], 'base64').toString('utf8')
          const colon = pair.indexOf(':')
          clientId = decode(colon < 0 ? pair : pair.slice(0, colon))
          clientSecret = colon < 0 ? undefined : decode(pair.slice(colon + 1))
        }
        const body = entry.status === 200 ? jsonOf(entry.responseBody) : undefined
        const str = (v: unknown) => (typeof v === 'string' ? v : undefined)
        const accessToken = str(body?.access_token)
        const refreshToken = str(body?.refresh_token)
        const posted = form.has('client_secret')
        const authMethod = basic
          ? posted
            ? 'both'
            : 'client_secret_basic'
          : posted
            ? 'client_secret_post'
            : 'none'
        return {
          entry,
          form,
          authMethod,
          grantType: form.get('grant_type'),
          ...(clientId !== undefined ? { clientId } : {}),
          ...(clientSecret !== undefined ? { clientSecret } : {}),
          ...(accessToken ? { accessToken } : {}),
          ...(refreshToken ? { refreshToken } : {}),
        }
      })
  }

  /** Every access token the IdP issued to the client. */
  get accessTokens(): Set<string> {
    return new Set(this.tokenRequests.flatMap((t) => (t.accessToken ? [t.accessToken] : [])))
  }

  /** POSTs to any registration endpoint: the advertised one or the IdP's own. */
  get registrations(): RegistrationRequest[] {
    const urls = new Set([this.facts.registrationUrl, this.facts.idpRegistrationUrl])
    return this.entries
      .filter((e) => e.method === 'POST' && urls.has(`${e.url.origin}${e.url.pathname}`))
      .map((entry) => {
        const metadata = jsonOf(entry.requestBody)
        const answer =
          entry.status === 201 || entry.status === 200 ? jsonOf(entry.responseBody) : undefined
        const id = answer?.client_id
        const method = answer?.token_endpoint_auth_method
        return {
          entry,
          ...(typeof answer?.client_secret === 'string'
            ? { clientSecret: answer.client_secret }
            : {}),
          ...(typeof method === 'string' ? { authMethod: method } : {}),
          ...(metadata ? { metadata } : {}),
          ...(entry.status === 201 || entry.status === 200
            ? typeof id === 'string'
              ? { clientId: id }
              : {}
            : {}),
        }
      })
  }

  /** Requests to the MCP endpoint. */
  get mcp(): Recorded[] {
    return this.entries.filter((e) => e.side === 'gateway' && e.url.pathname === '/mcp')
  }

  /** Token-bearing MCP POSTs the gateway let through (2xx). */
  get mcpSuccesses(): Recorded[] {
    return this.mcp.filter(
      (e) => e.method === 'POST' && bearerOf(e) && e.status >= 200 && e.status < 300,
    )
  }

  /** Challenges (401/403 with a Bearer challenge) the gateway answered. */
  get challenges(): Array<{ entry: Recorded; params: Record<string, string> }> {
    return this.mcp.flatMap((entry) => {
      const params = challengeOf(entry)
      return params && (entry.status === 401 || entry.status === 403) ? [{ entry, params }] : []
    })
  }

  /**
   * Fetches of protected-resource metadata: any URL under the PRM well-known prefix, and any URL
   * a challenge named in `resource_metadata` (RFC 9728 §5.1: the resource may name any URL).
   */
  get prmFetches(): Recorded[] {
    const named = new Set(this.challenges.flatMap((c) => c.params.resource_metadata ?? []))
    return this.entries.filter(
      (e) =>
        e.url.pathname.startsWith('/.well-known/oauth-protected-resource') ||
        (e.method === 'GET' && named.has(e.url.href)),
    )
  }

  /** Fetches of authorization-server metadata (RFC 8414 or OIDC discovery URLs, either side). */
  get asMetadataFetches(): Recorded[] {
    return this.entries.filter(
      (e) =>
        e.method === 'GET' &&
        (e.url.pathname.includes('/.well-known/oauth-authorization-server') ||
          e.url.pathname.includes('/.well-known/openid-configuration')) &&
        !e.url.pathname.endsWith('/client-registration'),
    )
  }
}

/**
 * The authorization-server metadata URLs for an issuer, in the order MCP 2025-11-25
 * (Authorization Server Metadata Discovery) says to try them: RFC 8414 path insertion, OIDC path
 * insertion, OIDC path appending — or, for an issuer without a path, RFC 8414 then OIDC.
 */
export function asMetadataCandidates(issuer: string): string[] {
  const u = new URL(issuer)
  const p = u.pathname.replace(/\/$/, '')
  if (!p) {
    return [
      `${u.origin}/.well-known/oauth-authorization-server`,
      `${u.origin}/.well-known/openid-configuration`,
    ]
  }
  return [
    `${u.origin}/.well-known/oauth-authorization-server${p}`,
    `${u.origin}/.well-known/openid-configuration${p}`,
    `${u.origin}${p}/.well-known/openid-configuration`,
  ]
}

/** RFC 7636 §4.2: `BASE64URL(SHA256(code_verifier))`. */
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url')
}

/** A URL without its query (what is compared against an endpoint). */
export const withoutQuery = (u: URL) => `${u.origin}${u.pathname}`

/** The scopes of a space-separated `scope` value. */
export const scopesOf = (v: string | null | undefined) => (v ?? '').split(' ').filter(Boolean)
