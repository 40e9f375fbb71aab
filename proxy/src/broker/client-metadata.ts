/**
 * Client ID Metadata Documents (MCP 2025-11-25 "Client Registration";
 * draft-ietf-oauth-client-id-metadata-document): a client whose `client_id` is an https URL is
 * described by the JSON document at that URL. The gateway fetches it through {@link guardedGet}
 * (SSRF guards), checks it (its `client_id` equals the URL; its `redirect_uris` pass the one
 * redirect URI check; no shared secret), and caches the result in the store's `cimd` namespace
 * (bounded like every namespace) for `cacheTtl`, or less when the document's `Cache-Control`
 * says so. Concurrent lookups of one URL share one fetch, and at most {@link MAX_CONCURRENT_FETCHES}
 * fetches run at once.
 */
import { z } from 'zod'
import { maxAgeMs } from '../auth/fetch.js'
import { redirectUrisProblem } from '../auth/oauth-endpoints/redirect-uri.js'
import type { BrokerConfig } from '../config/schema.js'
import { RequestError } from '../errors.js'
import type { BrokerStore } from '../store/types.js'
import {
  type BrokerClient,
  type ClientMetadataResolver,
  clientFromStored,
  clientToStored,
} from './clients.js'
import { type FetchGuards, GuardedFetchError, guardedGet } from './guarded-fetch.js'

/** Fetches in flight at once, across all URLs; beyond it a lookup is answered 503. */
export const MAX_CONCURRENT_FETCHES = 16
/** Longest client id URL accepted. */
const MAX_URL_LENGTH = 2048

/** The document's members the gateway reads (unknown ones are ignored). */
const ClientMetadataDocumentSchema = z.looseObject({
  client_id: z.string(),
  redirect_uris: z.array(z.string()),
  client_name: z.string().max(200).optional(),
  client_uri: z.string().max(2000).optional(),
  token_endpoint_auth_method: z.string().optional(),
  scope: z.string().max(1000).optional(),
})

/** Options: `broker.clientMetadataDocuments`, plus the name resolution of {@link FetchGuards}. */
export type ClientMetadataOptions = BrokerConfig['clientMetadataDocuments'] & {
  resolve?: FetchGuards['resolve']
}

/** Resolves URL client ids (the {@link ClientMetadataResolver} of the client registry). */
export class ClientMetadataDocuments implements ClientMetadataResolver {
  readonly #o: ClientMetadataOptions
  readonly #store: BrokerStore
  readonly #inFlight = new Map<string, Promise<BrokerClient>>()

  constructor(options: ClientMetadataOptions, store: BrokerStore) {
    this.#o = options
    this.#store = store
  }

  async resolve(url: string): Promise<BrokerClient> {
    const problem = clientIdUrlProblem(url, this.#o.allowHttp)
    if (problem) throw refused(`client_id ${JSON.stringify(url.slice(0, 200))} ${problem}`)
    const cached = this.#o.cacheTtl.ms > 0 ? await this.#store.get('cimd', url) : undefined
    const client = cached === undefined ? undefined : clientFromStored(cached)
    if (client) return client
    const running = this.#inFlight.get(url)
    if (running) return running
    if (this.#inFlight.size >= MAX_CONCURRENT_FETCHES) {
      throw new RequestError(
        'GW_ERR_CLIENT_METADATA_BUSY',
        `the gateway is already fetching ${MAX_CONCURRENT_FETCHES} client metadata documents; try again shortly`,
        { headers: { 'retry-after': '2' } },
      )
    }
    const fetching = this.#fetch(url).finally(() => this.#inFlight.delete(url))
    this.#inFlight.set(url, fetching)
    return fetching
  }

  async #fetch(url: string): Promise<BrokerClient> {
    let res: Awaited<ReturnType<typeof guardedGet>>
    try {
      res = await guardedGet(url, {
        allowHttp: this.#o.allowHttp,
        allowPrivateAddresses: this.#o.allowPrivateAddresses,
        maxBytes: this.#o.maxBytes,
        timeoutMs: this.#o.timeout.ms,
        maxRedirects: this.#o.maxRedirects,
        ...(this.#o.resolve ? { resolve: this.#o.resolve } : {}),
      })
    } catch (err) {
      if (err instanceof GuardedFetchError) {
        throw refused(`its client metadata document was not fetched: ${err.message}`, err)
      }
      throw err
    }
    const client = parseDocument(url, res.body)
    // draft §4.4: SHOULD respect HTTP cache headers, within the gateway's own upper bound.
    const control = String(res.headers['cache-control'] ?? '')
    const ttl = /\b(no-store|no-cache)\b/i.test(control)
      ? 0
      : Math.min(this.#o.cacheTtl.ms, maxAgeMs(res.headers) ?? Number.POSITIVE_INFINITY)
    // A full cache is no reason to refuse the client: it is served without being cached.
    if (ttl > 0) await this.#store.put('cimd', url, clientToStored(client), ttl).catch(() => {})
    return client
  }
}

/** Why `url` cannot be a client id URL (draft-ietf-oauth-client-id-metadata-document §3). */
export function clientIdUrlProblem(url: string, allowHttp: boolean): string | undefined {
  if (url.length > MAX_URL_LENGTH) return `is longer than ${MAX_URL_LENGTH} characters`
  let u: URL
  try {
    u = new URL(url)
  } catch {
    return 'is not a URL'
  }
  if (u.protocol !== 'https:' && !(allowHttp && u.protocol === 'http:')) {
    return 'is not an https URL (client metadata documents are fetched over https only)'
  }
  if (u.username || u.password) return 'contains userinfo'
  if (url.includes('#')) return 'contains a fragment'
  if (u.pathname === '/' || u.pathname === '') return 'has no path (the draft requires one)'
  if (/\/\.\.?(\/|$)/.test(new URL(url).pathname) || /\/\.\.?(\/|$|\?)/.test(url)) {
    return 'contains a dot segment'
  }
  if (u.href !== url) return `is not in normalised form (${u.href})`
  return undefined
}

/** The client a fetched document describes, or a refusal naming the member that is wrong. */
export function parseDocument(url: string, body: Buffer): BrokerClient {
  let json: unknown
  try {
    json = JSON.parse(body.toString('utf8'))
  } catch {
    throw refused(`the client metadata document at ${url} is not JSON`)
  }
  const parsed = ClientMetadataDocumentSchema.safeParse(json)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const member = issue?.path.map(String).join('.') || '(document)'
    throw refused(`the client metadata document at ${url} is invalid: ${member}: ${issue?.message}`)
  }
  const doc = parsed.data
  if (doc.client_id !== url) {
    throw refused(
      `the client metadata document at ${url} names client_id ${JSON.stringify(doc.client_id.slice(0, 200))}; it must be the document's own URL`,
    )
  }
  const problem = redirectUrisProblem(doc.redirect_uris)
  if (problem) throw refused(`the client metadata document at ${url} is refused: ${problem}`)
  const method = doc.token_endpoint_auth_method ?? 'none'
  if (method !== 'none') {
    // A document is public: a shared secret in it would be no secret (draft §4.1).
    throw refused(
      `the client metadata document at ${url} asks for token_endpoint_auth_method ${JSON.stringify(method)}; only "none" (a public client with PKCE) is supported`,
    )
  }
  if ('client_secret' in doc) {
    throw refused(`the client metadata document at ${url} contains a client_secret; remove it`)
  }
  return {
    clientId: url,
    redirectUris: doc.redirect_uris,
    tokenEndpointAuthMethod: 'none',
    source: 'metadata-document',
    ...(doc.client_name !== undefined ? { clientName: doc.client_name } : {}),
    ...(doc.client_uri !== undefined ? { clientUri: doc.client_uri } : {}),
    ...(doc.scope !== undefined ? { scope: doc.scope } : {}),
  }
}

function refused(message: string, cause?: unknown): RequestError {
  return new RequestError('GW_ERR_CLIENT_METADATA', message, { cause })
}
