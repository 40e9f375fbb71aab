/**
 * Calls between the cluster's primary and its workers (`config.workers`, docs/design/performance.md) over
 * node:cluster's IPC channel: a worker asks the primary for shared state (rate-limit buckets,
 * MCP session bindings), the primary asks every worker for what the admin interface shows
 * (config dump, metrics) and applies what it changes (log filter, reload, trace watches).
 *
 * Messages are plain JSON objects tagged `gh`; anything else on the channel (node:cluster's own
 * messages) is left alone. A call that gets no answer within its timeout, or whose peer goes away,
 * rejects with {@link IpcCallError}; it never hangs a request.
 */

/** The other end: `process` in a worker, a `cluster.Worker` in the primary. */
export interface IpcEndpoint {
  /**
   * Sends `message`; `callback` gets the error when the channel is closed. Without a callback
   * Node emits that error as an `'error'` event instead, which no one listens to on a
   * `cluster.Worker`: a call racing a worker's death would end the primary.
   */
  send(message: unknown, callback: (error: Error | null) => void): boolean
  on(event: 'message', listener: (message: unknown) => void): unknown
  off(event: 'message', listener: (message: unknown) => void): unknown
}

/** A call that failed: the peer answered with an error, went away, or did not answer in time. */
export class IpcCallError extends Error {
  override readonly name = 'IpcCallError'
}

type Handler = (...args: never[]) => unknown

type Message =
  | { gh: 'call'; id: number; method: string; args: unknown[] }
  | { gh: 'reply'; id: number; value?: unknown; error?: string }
  | { gh: 'note'; method: string; args: unknown[] }

interface Pending {
  resolve(value: unknown): void
  reject(err: Error): void
  timer: NodeJS.Timeout
}

/** Default time a call waits for its answer. */
export const IPC_CALL_TIMEOUT_MS = 10_000

/** One side of the channel: answers the calls it has handlers for and makes its own. */
export class IpcPeer {
  readonly #endpoint: IpcEndpoint
  readonly #handlers = new Map<string, Handler>()
  readonly #pending = new Map<number, Pending>()
  readonly #onMessage = (m: unknown) => this.#receive(m)
  #nextId = 1
  #closed: string | undefined

  constructor(endpoint: IpcEndpoint) {
    this.#endpoint = endpoint
    endpoint.on('message', this.#onMessage)
  }

  /** Answers calls (and notes) of `method`; a handler's rejection is sent back as the error. */
  handle<A extends unknown[]>(method: string, handler: (...args: A) => unknown): void {
    this.#handlers.set(method, handler as Handler)
  }

  /** Calls `method` on the other side; rejects after `timeoutMs` without an answer. */
  call<T>(method: string, args: unknown[] = [], timeoutMs = IPC_CALL_TIMEOUT_MS): Promise<T> {
    if (this.#closed) return Promise.reject(new IpcCallError(this.#closed))
    const id = this.#nextId++
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id)
        reject(new IpcCallError(`${method}: no answer within ${timeoutMs} ms`))
      }, timeoutMs)
      timer.unref()
      this.#pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer })
      this.#send({ gh: 'call', id, method, args }, id)
    })
  }

  /** Sends a one-way note (no answer, no error when the peer is gone). */
  notify(method: string, args: unknown[] = []): void {
    if (!this.#closed) this.#send({ gh: 'note', method, args })
  }

  /** Fails every pending call with `reason` and stops listening. */
  close(reason: string): void {
    if (this.#closed) return
    this.#closed = reason
    this.#endpoint.off('message', this.#onMessage)
    for (const [id, p] of this.#pending) {
      clearTimeout(p.timer)
      this.#pending.delete(id)
      p.reject(new IpcCallError(reason))
    }
  }

  #send(message: Message, id?: number): void {
    // ERR_IPC_CHANNEL_CLOSED (the peer is gone) comes to the callback, or is thrown when the
    // message cannot be serialised.
    const failed = (err: Error | null) => {
      if (!err || id === undefined) return
      const p = this.#pending.get(id)
      if (!p) return
      clearTimeout(p.timer)
      this.#pending.delete(id)
      p.reject(new IpcCallError(err.message))
    }
    try {
      this.#endpoint.send(message, failed)
    } catch (err) {
      failed(err as Error)
    }
  }

  #receive(raw: unknown): void {
    if (typeof raw !== 'object' || raw === null || !('gh' in raw)) return
    const m = raw as Message
    if (m.gh === 'reply') {
      const p = this.#pending.get(m.id)
      if (!p) return
      clearTimeout(p.timer)
      this.#pending.delete(m.id)
      if (m.error !== undefined) p.reject(new IpcCallError(m.error))
      else p.resolve(m.value)
      return
    }
    const handler = this.#handlers.get(m.method)
    if (m.gh === 'note') {
      if (handler) {
        Promise.resolve()
          .then(() => handler(...(m.args as never[])))
          .catch(() => undefined)
      }
      return
    }
    if (!handler) {
      this.#send({ gh: 'reply', id: m.id, error: `no handler for ${m.method}` })
      return
    }
    Promise.resolve()
      .then(() => handler(...(m.args as never[])))
      .then(
        (value) => this.#send({ gh: 'reply', id: m.id, value: value ?? null }),
        (err: unknown) =>
          this.#send({
            gh: 'reply',
            id: m.id,
            error: err instanceof Error ? err.message : String(err),
          }),
      )
  }
}
