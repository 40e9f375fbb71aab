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
import type { Upstream } from '../dataplane/upstream.js'
import { jwksRefreshChannel } from '../telemetry/channels.js'
import type { TaskRegistry } from '../telemetry/tasks.js'
import { describeError, maxAgeMs, requestUpstream } from './fetch.js'

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
  | { kind: 'static'; jwks: JSONWebKeySet; origin: string }

/** Private and symmetric key members that must never be served or dumped (RFC 7518 §6). */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k']

/** Parses and checks a JWKS document. @throws Error saying what is wrong. */
export function parseJwks(value: unknown): JSONWebKeySet {
  const doc = typeof value === 'string' ? (JSON.parse(value) as unknown) : value
  if (!doc || typeof doc !== 'object' || !Array.isArray((doc as { keys?: unknown }).keys)) {
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
      throw new Error(`cannot read JWKS file ${jwks.file}: ${(err as Error).message}`)
    }
    try {
      return parseJwks(text)
    } catch (err) {
      throw new Error(`JWKS file ${jwks.file}: ${(err as Error).message}`)
    }
  }
  return parseJwks(jwks.inline)
}

/** A provider's key set with its refresh machinery. */
export class KeySet {
  readonly #source: KeySource
  readonly #log: pino.Logger
  readonly #tasks: TaskRegistry
  readonly #issuer: string
  #jwks: JSONWebKeySet | undefined
  #getKey: JWTVerifyGetKey | undefined
  #lastError: string | undefined
  #lastFetchAt: Date | undefined
  readonly #kidRefetches: number[] = []
  #inflight: Promise<boolean> | undefined
  #timer: NodeJS.Timeout | undefined
  #retryMs = RETRY_MIN_MS
  #stopped = false
  readonly #changeListeners = new Set<() => void>()

  constructor(issuer: string, source: KeySource, log: pino.Logger, tasks: TaskRegistry) {
    this.#issuer = issuer
    this.#source = source
    this.#log = log
    this.#tasks = tasks
    if (source.kind === 'static') this.#install(source.jwks)
  }

  /** The URL the keys come from (for messages and the config dump). */
  get url(): string {
    const s = this.#source
    return s.kind === 'remote' ? `${s.upstream.origin}${s.path}` : s.origin
  }

  /** Whether keys were ever loaded. */
  get available(): boolean {
    return this.#getKey !== undefined
  }

  /** Why the last fetch failed, if it did. */
  get lastError(): string | undefined {
    return this.#lastError
  }

  /** Key ids currently known. */
  get kids(): string[] {
    return (this.#jwks?.keys ?? []).map((k) => k.kid ?? '(no kid)')
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
    if (this.#source.kind !== 'remote') return
    const first = this.refresh('start')
    await Promise.race([first, new Promise((r) => setTimeout(r, FIRST_FETCH_WAIT_MS).unref())])
  }

  stop(): void {
    this.#stopped = true
    if (this.#timer) clearTimeout(this.#timer)
  }

  /**
   * Re-fetch because a token named a `kid` we do not have. Rate-limited.
   * @returns whether a new key set was installed.
   */
  async refetchForUnknownKid(): Promise<boolean> {
    if (this.#source.kind !== 'remote') return false
    const now = Date.now()
    if (this.#inflight) return this.#inflight
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
    this.#inflight ??= this.#fetch(reason).finally(() => {
      this.#inflight = undefined
    })
    return this.#inflight
  }

  #install(jwks: JSONWebKeySet): void {
    this.#jwks = jwks
    this.#getKey = createLocalJWKSet(jwks)
  }

  async #fetch(reason: string): Promise<boolean> {
    const source = this.#source
    if (source.kind !== 'remote') return false
    const done = this.#tasks.background('jwks_fetch', {
      issuer: this.#issuer,
      url: this.url,
      reason,
    })
    const wasAvailable = this.available
    let nextMs: number
    let installed = false
    try {
      const res = await requestUpstream(source.upstream, source.path)
      if (res.status !== 200) throw new Error(`HTTP ${res.status}`)
      const jwks = parseJwks(JSON.parse(res.body.toString('utf8')) as unknown)
      if (jwks.keys.length === 0) throw new Error('the key set has no usable public key')
      const before = this.kids.join(',')
      this.#install(jwks)
      installed = true
      this.#lastFetchAt = new Date()
      this.#lastError = undefined
      this.#retryMs = RETRY_MIN_MS
      const ttl = maxAgeMs(res.headers) ?? source.refreshMs
      nextMs = Math.min(Math.max(ttl, MIN_REFRESH_MS), MAX_REFRESH_MS)
      if (!wasAvailable) {
        this.#log.info(
          { issuer: this.#issuer, url: this.url, kids: this.kids },
          'JWKS keyset is available',
        )
      } else if (before !== this.kids.join(',')) {
        this.#log.info(
          { issuer: this.#issuer, url: this.url, kids: this.kids, reason },
          'JWKS keyset changed',
        )
      }
      if (!wasAvailable || before !== this.kids.join(','))
        for (const l of this.#changeListeners) l()
    } catch (err) {
      this.#lastError = describeError(err)
      nextMs = this.#retryMs
      this.#retryMs = Math.min(this.#retryMs * 2, RETRY_MAX_MS)
      if (wasAvailable) {
        this.#log.warn(
          { issuer: this.#issuer, url: this.url, cause: this.#lastError, reason },
          'JWKS refresh failed; keeping the last-known-good keys',
        )
      } else {
        this.#log.error(
          { issuer: this.#issuer, url: this.url, cause: this.#lastError, retryInMs: nextMs },
          `JWKS keyset is not available for issuer ${this.#issuer} at ${this.url}: ${this.#lastError}; requests on this policy's routes are rejected with 401 until it is`,
        )
      }
    } finally {
      done()
      // Telemetry counts refreshes (telemetry/channels.ts); free while nobody subscribes.
      if (jwksRefreshChannel.hasSubscribers) {
        jwksRefreshChannel.publish({ issuer: this.#issuer, reason, ok: installed })
      }
    }
    if (!this.#stopped) {
      if (this.#timer) clearTimeout(this.#timer)
      this.#timer = setTimeout(() => void this.refresh('interval'), nextMs)
      this.#timer.unref()
    }
    return installed
  }

  /** View for the config dump: public key ids only. */
  dump(): Record<string, unknown> {
    return {
      source: this.#source.kind === 'remote' ? 'remote' : 'static',
      url: this.url,
      available: this.available,
      kids: this.kids,
      lastFetchAt: this.#lastFetchAt?.toISOString() ?? null,
      lastError: this.#lastError ?? null,
    }
  }
}
