/**
 * A bounded budget of concurrent requests to one backend, with a bounded wait: a request that
 * finds the budget spent waits its turn in FIFO order, at most until its deadline, and leaves the
 * queue at once when its client goes away. undici's own pool queue cannot do this: a queued
 * request ignores its abort signal until it reaches a connection, and has no deadline.
 */

/**
 * What {@link Admission.acquire} listens to for the client leaving: an `AbortSignal`, or the data
 * plane's lighter one per exchange.
 */
export interface AbortSource {
  readonly aborted: boolean
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void
  removeEventListener(type: 'abort', listener: () => void): void
}

/** Why {@link Admission.acquire} gave up. */
export type AdmissionFailure = { kind: 'timeout'; waitedMs: number } | { kind: 'aborted' }

interface Waiter {
  grant: (release: () => void) => void
  fail: (failure: AdmissionFailure) => void
}

/** The budget of one backend. */
export class Admission {
  readonly #limit: number
  #active = 0
  readonly #queue = new Set<Waiter>()

  /** @param limit - concurrent requests allowed (at least 1). */
  constructor(limit: number) {
    this.#limit = Math.max(1, limit)
  }

  /** Requests in flight. */
  get active(): number {
    return this.#active
  }

  /** Requests waiting for a turn. */
  get waiting(): number {
    return this.#queue.size
  }

  /**
   * Takes a slot, waiting up to `timeoutMs`.
   * @returns a `release` function (idempotent), or why no slot was had: the wait timed out, or
   * `signal` aborted (the client left).
   */
  acquire(
    timeoutMs: number,
    signal: AbortSource,
  ): Promise<{ ok: true; release: () => void } | { ok: false; failure: AdmissionFailure }> {
    if (signal.aborted) return Promise.resolve({ ok: false, failure: { kind: 'aborted' } })
    if (this.#active < this.#limit && this.#queue.size === 0) {
      this.#active++
      return Promise.resolve({ ok: true, release: this.#releaser() })
    }
    const started = performance.now()
    return new Promise((resolve) => {
      const leave = () => {
        clearTimeout(timer)
        signal.removeEventListener('abort', onAbort)
        this.#queue.delete(waiter)
      }
      const waiter: Waiter = {
        grant: (release) => {
          leave()
          resolve({ ok: true, release })
        },
        fail: (failure) => {
          leave()
          resolve({ ok: false, failure })
        },
      }
      const onAbort = () => waiter.fail({ kind: 'aborted' })
      const timer = setTimeout(
        () => waiter.fail({ kind: 'timeout', waitedMs: performance.now() - started }),
        timeoutMs,
      )
      signal.addEventListener('abort', onAbort, { once: true })
      this.#queue.add(waiter)
    })
  }

  #releaser(): () => void {
    let released = false
    return () => {
      if (released) return
      released = true
      const next = this.#queue.values().next()
      // The slot passes straight to the next waiter: `active` is unchanged.
      if (next.done) this.#active--
      else next.value.grant(this.#releaser())
    }
  }
}
