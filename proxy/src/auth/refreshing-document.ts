/**
 * A document fetched from the identity provider and kept fresh: the key set (JWKS) and the OpenID
 * Connect discovery document share this cache. It owns the parts both need and that are easy to
 * get subtly wrong when written twice:
 *
 * - the lifetime: the IdP's `Cache-Control: max-age` (RFC 9111 §5.2.2.1) or a default, clamped to
 *   a range so an IdP cannot make the gateway poll it every second or cache for a month;
 * - one fetch in flight: concurrent callers share it;
 * - last-known-good: a failed refresh keeps the previous document;
 * - backoff after a failure, doubling from `retryMinMs` to `retryMaxMs`, reset by a success;
 * - optionally a refresh loop (keys are refreshed before they are needed; discovery on demand).
 */
import type { TaskRegistry } from '../telemetry/tasks.js'
import { describeError } from './fetch.js'

/** What one successful fetch produced. */
export interface Fetched<T> {
  value: T
  /** The IdP's `max-age`, in milliseconds, when it sent one. */
  maxAgeMs: number | undefined
}

/** Options of a {@link RefreshingDocument}. */
export interface RefreshingDocumentOptions<T> {
  /** Task name shown in `/debug/tasks` while a fetch runs (`jwks_fetch`). */
  task: string
  /** Details shown with the task (issuer, URL). */
  taskDetails: Record<string, unknown>
  tasks: TaskRegistry
  /** Fetches and validates the document. Throws with a readable message when it cannot. */
  fetch(): Promise<Fetched<T>>
  /** Lifetime when the IdP sends no `max-age`. */
  defaultTtlMs: number
  /** Lower bound of the lifetime (also applied to `defaultTtlMs`). */
  minTtlMs: number
  /** Upper bound of the lifetime. */
  maxTtlMs: number
  /** Wait after the first failure; doubles on each further failure. */
  retryMinMs: number
  /** Upper bound of the wait after failures. */
  retryMaxMs: number
  /** Refresh on a timer when the lifetime ends (and retry on failure). Default false: on demand. */
  refreshLoop?: boolean
  /** Called after a fetch installed a document, with the one it replaced. */
  onUpdate?(value: T, previous: T | undefined, reason: string): void
  /** Called after a fetch failed, with the readable cause and the wait before the next try. */
  onFailure?(cause: string, retryInMs: number, reason: string): void
}

/** A cached document with its refresh machinery. */
export class RefreshingDocument<T> {
  readonly #o: RefreshingDocumentOptions<T>
  #value: T | undefined
  #expiresAt = 0
  #retryAt = 0
  #retryMs: number
  #lastError: string | undefined
  #lastFetchAt: Date | undefined
  #inflight: Promise<boolean> | undefined
  #timer: NodeJS.Timeout | undefined
  #stopped = false

  constructor(options: RefreshingDocumentOptions<T>, initial?: T) {
    this.#o = options
    this.#retryMs = options.retryMinMs
    this.#value = initial
    if (initial !== undefined) this.#expiresAt = Number.POSITIVE_INFINITY
  }

  /** The last document fetched (possibly stale), or undefined when none ever was. */
  get value(): T | undefined {
    return this.#value
  }

  /** Whether the document's lifetime has ended (a stale document is still served). */
  get stale(): boolean {
    return Date.now() >= this.#expiresAt
  }

  /** Why the last fetch failed; undefined after a success. */
  get lastError(): string | undefined {
    return this.#lastError
  }

  /** When a document was last installed. */
  get lastFetchAt(): Date | undefined {
    return this.#lastFetchAt
  }

  /** The fetch in flight, if one is. */
  get inflight(): Promise<boolean> | undefined {
    return this.#inflight
  }

  /** Fetches now, sharing a fetch already in flight. Resolves with whether a document was installed. */
  refresh(reason: string): Promise<boolean> {
    this.#inflight ??= this.#fetch(reason).finally(() => {
      this.#inflight = undefined
    })
    return this.#inflight
  }

  /**
   * The document, fetched first when it is missing or stale — unless the last failure is too
   * recent (then the cached answer, or undefined, comes back at once).
   */
  async current(): Promise<T | undefined> {
    const now = Date.now()
    if (now >= this.#expiresAt && now >= this.#retryAt) await this.refresh('on demand')
    return this.#value
  }

  /** Stops the refresh loop. */
  stop(): void {
    this.#stopped = true
    if (this.#timer) clearTimeout(this.#timer)
  }

  async #fetch(reason: string): Promise<boolean> {
    const o = this.#o
    const done = o.tasks.background(o.task, { ...o.taskDetails, reason })
    let nextMs: number
    let installed = false
    try {
      const { value, maxAgeMs } = await o.fetch()
      const previous = this.#value
      this.#value = value
      this.#lastFetchAt = new Date()
      this.#lastError = undefined
      this.#retryMs = o.retryMinMs
      this.#retryAt = 0
      nextMs = Math.min(Math.max(maxAgeMs ?? o.defaultTtlMs, o.minTtlMs), o.maxTtlMs)
      this.#expiresAt = Date.now() + nextMs
      installed = true
      o.onUpdate?.(value, previous, reason)
    } catch (err) {
      this.#lastError = describeError(err)
      nextMs = this.#retryMs
      this.#retryAt = Date.now() + nextMs
      this.#retryMs = Math.min(this.#retryMs * 2, o.retryMaxMs)
      o.onFailure?.(this.#lastError, nextMs, reason)
    } finally {
      done()
    }
    if (o.refreshLoop && !this.#stopped) {
      if (this.#timer) clearTimeout(this.#timer)
      this.#timer = setTimeout(() => void this.refresh('interval'), nextMs)
      this.#timer.unref()
    }
    return installed
  }
}
