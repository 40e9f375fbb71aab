/**
 * The broker's client registry (docs/design/broker.md): what a `client_id` sent to the gateway's
 * authorization and token endpoints stands for. Three sources:
 *
 * - `registered`: minted by the gateway's RFC 7591 registration endpoint (`./register.ts`), kept in
 *   the store's `client` namespace (shared by replicas with the Redis store);
 * - `metadata-document`: an https URL `client_id` whose Client ID Metadata Document
 *   (MCP 2025-11-25, draft-ietf-oauth-client-id-metadata-document) is fetched with SSRF guards and
 *   cached (`./client-metadata.ts`);
 * - `configured`: `mcp.clientId`, the pre-registered client of the seed, usable by clients that
 *   were configured with it instead of registering (loopback redirect URIs only, RFC 8252 §7.3).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { isLoopbackRedirect } from '../auth/oauth-endpoints/redirect-uri.js'
import type { BrokerStore, StoreValue } from '../store/types.js'

/** How a client authenticates at the token endpoint (RFC 7591 §2 `token_endpoint_auth_method`). */
export type ClientAuthMethod = 'none' | 'client_secret_basic' | 'client_secret_post'

/** A client of the gateway's authorization server. */
export interface BrokerClient {
  clientId: string
  /** Redirect URIs as registered, compared exactly (see {@link redirectUriAllowed}). */
  redirectUris: string[]
  clientName?: string
  /** The client's home page (`client_uri`), for the consent page. */
  clientUri?: string
  tokenEndpointAuthMethod: ClientAuthMethod
  /** SHA-256 of the secret (base64url) for confidential clients; the secret itself is never kept. */
  clientSecretHash?: string
  /** Scopes the client registered (space-separated), if any. */
  scope?: string
  /** Where the client comes from. */
  source: 'registered' | 'metadata-document' | 'configured'
  /**
   * A registered client: when it expires once used (ms since the epoch, registration +
   * `clientTtl`). Until its first code is redeemed it lives only `unusedClientTtl`.
   */
  expiresAt?: number
  /** A registered client: whether a code of it was ever redeemed (see {@link ClientRegistry.markUsed}). */
  used?: boolean
}

/** Resolves URL client ids through their metadata document (implemented by `./client-metadata.ts`). */
export interface ClientMetadataResolver {
  /**
   * The client the document at `url` describes.
   * @throws a `RequestError` (`GW_ERR_CLIENT_METADATA`, 400 `invalid_client`) naming the guard
   *   that refused the document, or `GW_ERR_STORE_*` when the cache cannot be used.
   */
  resolve(url: string): Promise<BrokerClient>
}

/** Options of {@link ClientRegistry}. */
export interface ClientRegistryOptions {
  store: BrokerStore
  /** `mcp.clientId`: the pre-registered client, accepted as a public client. */
  configuredClientId?: string | undefined
  /** URL client ids; absent when `clientMetadataDocuments.enabled` is false. */
  metadataDocuments?: ClientMetadataResolver | undefined
}

/** Looks up and stores the gateway's clients. */
export class ClientRegistry {
  readonly #o: ClientRegistryOptions

  constructor(options: ClientRegistryOptions) {
    this.#o = options
  }

  /**
   * Resolves a client_id: a registered one from the store, a URL client_id via its Client ID
   * Metadata Document (fetched with SSRF guards, cached), or mcp.clientId.
   * @returns `undefined` for an unknown client id.
   * @throws a `RequestError` when a metadata document is refused (the message says which guard) or
   *   the store cannot be used.
   */
  async lookup(clientId: string): Promise<BrokerClient | undefined> {
    if (clientId.length === 0 || clientId.length > 2048) return undefined
    if (clientId === this.#o.configuredClientId) {
      return {
        clientId,
        redirectUris: [],
        tokenEndpointAuthMethod: 'none',
        source: 'configured',
      }
    }
    if (/^https?:\/\//i.test(clientId)) {
      return this.#o.metadataDocuments ? this.#o.metadataDocuments.resolve(clientId) : undefined
    }
    const stored = await this.#o.store.get('client', clientId)
    return stored === undefined ? undefined : fromStored(stored)
  }

  /** Stores a registered client for `ttlMs`. Rejects with `StoreFullError` at the bound. */
  async save(client: BrokerClient, ttlMs: number): Promise<void> {
    await this.#o.store.put('client', client.clientId, toStored(client), ttlMs)
  }

  /**
   * Records a registered client's first use (its first authorization code redeemed): from then
   * on it is kept until its `expiresAt` (registration + `clientTtl`) instead of the short life
   * of an unused registration. No-op for other clients and clients already marked.
   */
  async markUsed(client: BrokerClient, now = Date.now()): Promise<void> {
    if (client.source !== 'registered' || client.used !== false || client.expiresAt === undefined) {
      return
    }
    const ttl = client.expiresAt - now
    if (ttl <= 0) return
    await this.#o.store.put('client', client.clientId, toStored({ ...client, used: true }), ttl)
  }

  /** Whether `secret` is the client's secret (constant time). A public client has none. */
  verifySecret(client: BrokerClient, secret: string): boolean {
    if (!client.clientSecretHash) return false
    const expected = Buffer.from(client.clientSecretHash, 'base64url')
    const actual = createHash('sha256').update(secret, 'utf8').digest()
    return expected.length === actual.length && timingSafeEqual(expected, actual)
  }
}

/**
 * Whether `redirectUri` may receive this client's authorization response: an exact string match
 * with a registered URI (MCP 2025-11-25 / OAuth 2.1 §4.1.3: no prefix or pattern matching). The
 * configured `mcp.clientId` has no registered list; it accepts loopback redirect URIs on any port
 * (RFC 8252 §7.3), as native clients that use it pick a free port.
 */
export function redirectUriAllowed(client: BrokerClient, redirectUri: string): boolean {
  if (client.source === 'configured') return isLoopbackRedirect(redirectUri)
  return client.redirectUris.includes(redirectUri)
}

/** A new client id: 128 random bits, URL-safe, not a URL (so never mistaken for a CIMD one). */
export function newClientId(): string {
  return `gh_${randomBytes(16).toString('base64url')}`
}

/** A new client secret and the hash the registry keeps of it. */
export function newClientSecret(): { secret: string; hash: string } {
  const secret = randomBytes(32).toString('base64url')
  return { secret, hash: createHash('sha256').update(secret, 'utf8').digest('base64url') }
}

function toStored(c: BrokerClient): StoreValue {
  return {
    clientId: c.clientId,
    redirectUris: c.redirectUris,
    tokenEndpointAuthMethod: c.tokenEndpointAuthMethod,
    source: c.source,
    ...(c.clientName !== undefined ? { clientName: c.clientName } : {}),
    ...(c.clientUri !== undefined ? { clientUri: c.clientUri } : {}),
    ...(c.clientSecretHash !== undefined ? { clientSecretHash: c.clientSecretHash } : {}),
    ...(c.scope !== undefined ? { scope: c.scope } : {}),
    ...(c.expiresAt !== undefined ? { expiresAt: c.expiresAt } : {}),
    ...(c.used !== undefined ? { used: c.used } : {}),
  }
}

/** A stored client, checked member by member (the store is shared; never trust its shape). */
function fromStored(v: StoreValue): BrokerClient | undefined {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined
  const { clientId, redirectUris, tokenEndpointAuthMethod, source } = v
  if (typeof clientId !== 'string' || !Array.isArray(redirectUris)) return undefined
  if (!redirectUris.every((u): u is string => typeof u === 'string')) return undefined
  if (
    tokenEndpointAuthMethod !== 'none' &&
    tokenEndpointAuthMethod !== 'client_secret_basic' &&
    tokenEndpointAuthMethod !== 'client_secret_post'
  ) {
    return undefined
  }
  if (source !== 'registered' && source !== 'metadata-document') return undefined
  const str = (x: StoreValue | undefined) => (typeof x === 'string' ? x : undefined)
  const client: BrokerClient = { clientId, redirectUris, tokenEndpointAuthMethod, source }
  const name = str(v.clientName)
  const uri = str(v.clientUri)
  const hash = str(v.clientSecretHash)
  const scope = str(v.scope)
  if (name !== undefined) client.clientName = name
  if (uri !== undefined) client.clientUri = uri
  if (hash !== undefined) client.clientSecretHash = hash
  if (scope !== undefined) client.scope = scope
  if (typeof v.expiresAt === 'number') client.expiresAt = v.expiresAt
  if (typeof v.used === 'boolean') client.used = v.used
  return client
}

export { fromStored as clientFromStored, toStored as clientToStored }
