/**
 * The key set of one JWT provider: inline, from a file, or fetched from the provider's JWKS
 * backend (seed: "fetched by the control plane via the JWKS backend over TLS, at the path
 * `/oauth2/<auth_server_id>/v1/keys`").
 *
 * - Refreshed on an interval (`cacheDuration`, or the IdP's `Cache-Control: max-age` within
 *   1 minute to 24 hours).
 * - A token whose `kid` is unknown triggers a re-fetch, at most {@link KID_REFETCH_BURST} per
 *   {@link KID_REFETCH_WINDOW_MS}, so a rotation at the IdP is picked up without a restart and a flood of garbage `kid`s cannot
 *   turn the gateway into a load generator against the IdP.
 * - A failed refresh keeps the last-known-good keys.
 * - Never fetched (wrong domain or path): {@link KeySet.available} is false and the policy fails
 *   closed; fetching is retried with backoff until it succeeds.
 */
import { readFileSync } from 'node:fs'
import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose'
import type { pino } from 'pino'
import type { Upstream } from '../http/upstream.js'
import { jwksRefreshChannel } from '../telemetry/channels.js'
import type { TaskRegistry } from '../telemetry/tasks.js'
import type { DiscoveryCache } from './discovery.js'
import { type FetchedResponse, maxAgeMs, requestUpstream } from './fetch.js'
import type { OriginPools } from './origin-pools.js'
import { type Fetched, RefreshingDocument } from './refreshing-document.js'

/**
 * Re-fetches caused by unknown `kid`s: at most {@link KID_REFETCH_BURST} within
 * {@link KID_REFETCH_WINDOW_MS} (a sliding window).
 */
export const KID_REFETCH_BURST = 3
/** The window {@link KID_REFETCH_BURST} applies to. */
export const KID_REFETCH_WINDOW_MS = 10_000
const MIN_REFRESH_MS = 60_000
const MAX_REFRESH_MS = 24 * 60 * 60_000
const RETRY_MIN_MS = 1000
const RETRY_MAX_MS = 30_000
/** How long {@link KeySet.start} waits for the first fetch before start-up goes on. */
const FIRST_FETCH_WAIT_MS = 5000

/** Where the keys come from. */
export type KeySource =
  | { kind: 'remote'; upstream: Upstream; path: string; refreshMs: number }
  /** The `jwks_uri` of the provider's discovery document, on whatever host it names. */
  | { kind: 'discovery'; discovery: DiscoveryCache; pools: OriginPools; refreshMs: number }
  | { kind: 'static'; jwks: JSONWebKeySet; origin: string }

/** Private and symmetric key members that must never be served or dumped (RFC 7518 §6). */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k']

/** Parses and checks a JWKS document. @throws Error saying what is wrong. */
export function parseJwks(value: unknown): JSONWebKeySet {
  const doc = typeof value === 'string' ? (JSON.parse(value) as unknown) : value
  // A primitive has no "keys" array either, so only null and undefined need their own check.
  if (!doc || !Array.isArray((doc as { keys?: unknown }).keys)) {
    throw new Error('expected a JWKS document: an object with a "keys" array')
  }
  const keys = (doc as { keys: Array<Record<string, unknown>> }).keys.filter((k) => {
    // Symmetric keys are never accepted: HMAC with a key the IdP publishes would let anyone sign.
    return k && typeof k === 'object' && k.kty !== 'oct'
  })
  return {
    keys: keys.map((k) => {
      const pub = { ...k }
      for (const m of PRIVATE_MEMBERS) delete pub[m]
      return pub as JSONWebKeySet['keys'][number]
    }),
  }
}

/** Reads a JWKS file or inline value (config time). @throws Error naming the problem. */
export function loadStaticJwks(jwks: {
  inline?: unknown
  file?: string | undefined
}): JSONWebKeySet {
  if (jwks.file !== undefined) {
    let text: string
    try {
      text = readFileSync(jwks.file, 'utf8')
    } catch (err) {
      throw new Error(`cannot read JWKS file ${jwks.file}: ${(err as Error).message}`, {
        cause: err,
      })
    }
    try {
      return parseJwks(text)
    } catch (err) {
      throw new Error(`JWKS file ${jwks.file}: ${(err as Error).message}`, { cause: err })
    }
  }
  return parseJwks(jwks.inline)
}

/** Tells telemetry (telemetry/channels.ts) of a refresh; free while nobody subscribes. */
function publishRefresh(issuer: string, reason: string, ok: boolean): void {
  if (jwksRefreshChannel.hasSubscribers) jwksRefreshChannel.publish({ issuer, reason, ok })
}

/** A provider's key set with its refresh machinery. */
export class KeySet {
  readonly #source: KeySource
  readonly #issuer: string
  readonly #document: RefreshingDocument<JSONWebKeySet>
  #getKey: JWTVerifyGetKey | undefined
  readonly #kidRefetches: number[] = []
  readonly #changeListeners = new Set<() => void>()
  /** The `jwks_uri` last read from discovery (a `discovery` source). */
  #jwksUri: string | undefined
  /** Policies holding this key set: 1, its builder's, plus one per {@link share}. */
  #holders = 1

  constructor(issuer: string, source: KeySource, log: pino.Logger, tasks: TaskRegistry) {
    this.#issuer = issuer
    this.#source = source
    const initial = source.kind === 'static' ? source.jwks : undefined
    if (initial) this.#getKey = createLocalJWKSet(initial)
    this.#document = new RefreshingDocument<JSONWebKeySet>(
      {
        task: 'jwks_fetch',
        taskDetails: { issuer, url: this.url },
        tasks,
        fetch: () => this.#fetch(),
        defaultTtlMs: source.kind === 'static' ? MAX_REFRESH_MS : source.refreshMs,
        minTtlMs: MIN_REFRESH_MS,
        maxTtlMs: MAX_REFRESH_MS,
        retryMinMs: RETRY_MIN_MS,
        retryMaxMs: RETRY_MAX_MS,
        refreshLoop: true,
        onUpdate: (jwks, previous, reason) => {
          this.#installed(jwks, previous, reason, log)
          publishRefresh(issuer, reason, true)
        },
        onFailure: (cause, retryInMs, reason) => {
          publishRefresh(issuer, reason, false)
          if (this.available) {
            log.warn(
              { issuer, url: this.url, cause, reason },
              'JWKS refresh failed; keeping the last-known-good keys',
            )
          } else {
            log.error(
              { code: 'GW_ERR_JWKS_UNAVAILABLE', issuer, url: this.url, cause, retryInMs },
              `JWKS keyset is not available for issuer ${issuer} at ${this.url}: ${cause}; requests on this policy's routes are rejected with 401 until it is`,
            )
          }
        },
      },
      initial,
    )
  }

  /** The URL the keys come from (for messages and the config dump). */
  get url(): string {
    const s = this.#source
    if (s.kind === 'remote') return `${s.upstream.origin}${s.path}`
    if (s.kind === 'discovery') return this.#jwksUri ?? `the jwks_uri of ${s.discovery.url}`
    return s.origin
  }

  /** Whether keys were ever loaded. */
  get available(): boolean {
    return this.#getKey !== undefined
  }

  /** Why the last fetch failed, if it did. */
  get lastError(): string | undefined {
    return this.#document.lastError
  }

  /** Key ids currently known. */
  get kids(): string[] {
    return kidsOf(this.#document.value)
  }

  /** Called whenever the keys or their availability change. */
  onChange(listener: () => void): void {
    this.#changeListeners.add(listener)
  }

  /** The key resolver for `jwtVerify`, or undefined while no keys were ever loaded. */
  get getKey(): JWTVerifyGetKey | undefined {
    return this.#getKey
  }

  /** First fetch (bounded wait), then the refresh loop. */
  async start(): Promise<void> {
    if (this.#source.kind === 'static') return
    const first = this.refresh('start')
    await Promise.race([first, new Promise((r) => setTimeout(r, FIRST_FETCH_WAIT_MS).unref())])
  }

  /**
   * One more holder (a policy sharing this key set, `./shared-verification.ts`): the refresh
   * loop then stops only when every holder called {@link stop}.
   */
  share(): void {
    this.#holders++
  }

  /** Stops the refresh loop once no holder is left (the one that built it, and each {@link share}). */
  stop(): void {
    if (--this.#holders > 0) return
    this.#document.stop()
  }

  /**
   * Re-fetch because a token named a `kid` we do not have: at most {@link KID_REFETCH_BURST}
   * within {@link KID_REFETCH_WINDOW_MS}; a refetch already in flight is shared, not counted.
   * @returns whether a new key set was installed.
   */
  async refetchForUnknownKid(): Promise<boolean> {
    if (this.#source.kind === 'static') return false
    const inflight = this.#document.inflight
    if (inflight) return inflight
    const now = Date.now()
    while (
      this.#kidRefetches.length > 0 &&
      now - (this.#kidRefetches[0] ?? 0) > KID_REFETCH_WINDOW_MS
    ) {
      this.#kidRefetches.shift()
    }
    if (this.#kidRefetches.length >= KID_REFETCH_BURST) return false
    this.#kidRefetches.push(now)
    return this.refresh('unknown kid')
  }

  /** Fetches the key set now (concurrent calls share one fetch). */
  refresh(reason: string): Promise<boolean> {
    if (this.#source.kind === 'static') return Promise.resolve(false)
    return this.#document.refresh(reason)
  }

  async #fetch(): Promise<Fetched<JSONWebKeySet>> {
    const source = this.#source
    if (source.kind === 'static') throw new Error('a static key set is not fetched')
    let res: FetchedResponse
    if (source.kind === 'discovery') {
      const found = await source.discovery.get()
      if (!found.ok) throw new Error(`discovery at ${found.url}: ${found.cause}`)
      const uri = found.document.jwks_uri
      if (!uri) throw new Error(`the discovery document at ${source.discovery.url} has no jwks_uri`)
      this.#jwksUri = uri
      res = await source.pools.request(uri)
    } else {
      res = await requestUpstream(source.upstream, source.path)
    }
    if (res.status !== 200) throw new Error(`HTTP ${res.status}`)
    const jwks = parseJwks(JSON.parse(res.body.toString('utf8')) as unknown)
    if (jwks.keys.length === 0) throw new Error('the key set has no usable public key')
    return { value: jwks, maxAgeMs: maxAgeMs(res.headers) }
  }

  #installed(
    jwks: JSONWebKeySet,
    previous: JSONWebKeySet | undefined,
    reason: string,
    log: pino.Logger,
  ): void {
    const wasAvailable = this.available
    this.#getKey = createLocalJWKSet(jwks)
    const before = kidsOf(previous).join(',')
    const changed = before !== this.kids.join(',')
    if (!wasAvailable) {
      log.info({ issuer: this.#issuer, url: this.url, kids: this.kids }, 'JWKS keyset is available')
    } else if (changed) {
      log.info(
        { issuer: this.#issuer, url: this.url, kids: this.kids, reason },
        'JWKS keyset changed',
      )
    }
    if (!wasAvailable || changed) for (const l of this.#changeListeners) l()
  }

  /** View for the config dump: public key ids only. */
  dump(): Record<string, unknown> {
    return {
      source: this.#source.kind,
      url: this.url,
      available: this.available,
      kids: this.kids,
      lastFetchAt: this.#document.lastFetchAt?.toISOString() ?? null,
      lastError: this.lastError ?? null,
    }
  }
}

function kidsOf(jwks: JSONWebKeySet | undefined): string[] {
  return (jwks?.keys ?? []).map((k) => k.kid ?? '(no kid)')
}
