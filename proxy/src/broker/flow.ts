/**
 * What every broker endpoint shares (docs/design/broker.md): the issuer, the store, the client registry, the
 * signer, the cookies, the IdP client and the lifetimes; and the records the flow keeps in the
 * store between its steps. The endpoints (`authorize.ts`, `consent.ts`, `callback.ts`,
 * `token.ts`) read this compiled context, never raw configuration.
 */
import type { pino } from 'pino'
import type { LocalResponse } from '../http/local-response.js'
import type { BrokerStore, StoreValue } from '../store/types.js'
import type { BrokerClient } from './clients.js'
import type { BrokerCookies } from './cookies.js'
import type { IdpClient } from './idp-client.js'
import type { Signer } from './signing.js'
import type { SourceLimit } from './source-limit.js'

/** Resolves client ids (registered, metadata documents, `mcp.clientId`): `ClientRegistry`. */
export interface ClientResolver {
  lookup(clientId: string): Promise<BrokerClient | undefined>
  verifySecret(client: BrokerClient, secret: string): boolean
  /** Records a registered client's first use, so it outlives the short life of unused ones. */
  markUsed(client: BrokerClient): Promise<void>
}

/** Lifetimes, in milliseconds (`mcp.broker.authorization`). */
export interface BrokerLifetimes {
  /** A consent page (a request before consent, store namespace `request`). */
  requestMs: number
  pendingMs: number
  codeMs: number
  consentMs: number
  refreshMs: number
}

/** The compiled context of one broker. */
export interface FlowContext {
  /** The broker's issuer: the identifier derived from the resource (RFC 8414 §3). */
  issuer: string
  /** `mcp.resourceMetadata.resource`: what `resource` parameters must name (RFC 8707). */
  resource: string
  store: BrokerStore
  clients: ClientResolver
  signer: Signer
  cookies: BrokerCookies
  idp: IdpClient
  ttl: BrokerLifetimes
  /** Consent pages per client address per `requestTtl` (`authorization.perSourceRequestLimit`). */
  requestLimit: SourceLimit
  log: pino.Logger
}

/**
 * An authorization request that passed `/authorize`'s checks, waiting for consent (`req:<id>`)
 * or for the IdP's return (`idp:<digest of the IdP-leg state>`, with the gateway's verifier).
 */
export interface PendingAuthorization {
  clientId: string
  redirectUri: string
  /** The client's `state`, returned unchanged; absent when it sent none. */
  state?: string | undefined
  codeChallenge: string
  scope: string
  resource: string
  /** Digest of the browser-binding nonce of the browser that asked. */
  browser: string
  /** The gateway's PKCE verifier towards the IdP (IdP leg only). */
  verifier?: string
}

/** A gateway authorization code, kept under the digest of the code until redeemed. */
export interface CodeRecord {
  clientId: string
  redirectUri: string
  codeChallenge: string
  scope: string
  resource: string
  /** The grant a refresh token of this code belongs to (revoked when the code is replayed). */
  grantId: string
  accessToken: string
  tokenType: string
  /** When the access token expires (seconds since the epoch), if the IdP said. */
  expiresAt: number | null
  tokenScope: string | null
  /** The IdP's refresh token: it stays on the gateway, the client gets a handle to it. */
  idpRefreshToken: string | null
}

/** A refresh grant, under its id; the client holds `<grantId>.<secret>`. */
export interface GrantRecord {
  clientId: string
  /** Digest of the current secret (rotated at each use). */
  secret: string
  idpRefreshToken: string
  scope: string
  resource: string
}

/** A stored record as a store value (records are plain JSON). */
export function asValue(record: object): StoreValue {
  return record as unknown as StoreValue
}

/** Reads a stored record back (the store keeps what the broker put, nothing else writes it). */
export function asRecord<T>(value: StoreValue | undefined): T | undefined {
  return value && typeof value === 'object' && !Array.isArray(value)
    ? (value as unknown as T)
    : undefined
}

/**
 * Sends the browser back to a *verified* redirect URI with the authorization response's
 * parameters, the client's `state` and `iss` = the broker (RFC 6749 §4.1.2, §4.1.2.1; RFC 9207
 * §2). Never call it with an unverified URI.
 */
export function redirectToClient(
  ctx: Pick<FlowContext, 'issuer'>,
  redirectUri: string,
  params: Record<string, string>,
  state: string | undefined,
  setCookie?: string,
): LocalResponse {
  const url = new URL(redirectUri)
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v)
  if (state !== undefined) url.searchParams.set('state', state)
  url.searchParams.set('iss', ctx.issuer)
  return {
    status: 303,
    headers: {
      location: url.toString(),
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      ...(setCookie ? { 'set-cookie': setCookie } : {}),
    },
  }
}

/** An RFC 6749 §4.1.2.1 error response to a verified redirect URI. */
export function errorToClient(
  ctx: Pick<FlowContext, 'issuer'>,
  redirectUri: string,
  state: string | undefined,
  error: string,
  description: string,
  setCookie?: string,
): LocalResponse {
  return redirectToClient(
    ctx,
    redirectUri,
    { error, error_description: description },
    state,
    setCookie,
  )
}
