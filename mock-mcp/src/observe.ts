/**
 * What the backend saw and did, for the observation endpoints: the requests that reached it
 * (`/__requests`, the authorization value never kept) and the tools' steps in order
 * (`/__timeline`), and the `progress` calls held until `POST /__release`.
 */
import type { IncomingMessage } from 'node:http'

/** A request the backend received, as `/__requests` reports it. */
export interface RecordedRequest {
  at: string
  method: string
  path: string
  sessionId: string | null
  /** Whether an `Authorization` header reached the backend (its value is never kept). */
  hasAuthorization: boolean
  headers: Record<string, string>
}

/** One step of what the backend did, as `/__timeline` reports it. */
export interface TimelineEntry {
  seq: number
  at: string
  event: 'tool_started' | 'progress_sent' | 'held' | 'released' | 'tool_finished'
  tool: string
  step?: number
}

const MAX_RECORDED = 500
/** A held `progress` call continues by itself after this long, so nothing waits forever. */
const MAX_HOLD_MS = 30_000

/** The backend's observations, each list bounded to the last 500 entries. */
export class Observations {
  readonly requests: RecordedRequest[] = []
  readonly timeline: TimelineEntry[] = []
  /** Resolvers of `progress` calls held until `POST /__release`. */
  readonly held = new Set<() => void>()
  #seq = 0

  /** Appends a step to the timeline. */
  note(entry: Omit<TimelineEntry, 'seq' | 'at'>): void {
    this.timeline.push({ seq: this.#seq++, at: new Date().toISOString(), ...entry })
    if (this.timeline.length > MAX_RECORDED) this.timeline.shift()
  }

  /** Records a request; `authorization` and `cookie` are reduced to `hasAuthorization`/dropped. */
  record(req: IncomingMessage, path: string): void {
    const headers: Record<string, string> = {}
    for (const [k, v] of Object.entries(req.headers)) {
      if (k === 'authorization' || k === 'cookie' || v === undefined) continue
      headers[k] = Array.isArray(v) ? v.join(', ') : v
    }
    const sid = req.headers['mcp-session-id']
    this.requests.push({
      at: new Date().toISOString(),
      method: req.method ?? 'GET',
      path,
      sessionId: typeof sid === 'string' ? sid : null,
      hasAuthorization: req.headers.authorization !== undefined,
      headers,
    })
    if (this.requests.length > MAX_RECORDED) this.requests.shift()
  }

  /** Waits until `POST /__release` (or {@link MAX_HOLD_MS}, so nothing waits forever). */
  hold(): Promise<void> {
    return new Promise<void>((resolve) => {
      const release = (): void => {
        clearTimeout(timer)
        this.held.delete(release)
        resolve()
      }
      const timer = setTimeout(release, MAX_HOLD_MS)
      this.held.add(release)
    })
  }

  /** Lets every held `progress` call continue. @returns how many were held */
  releaseAll(): number {
    const count = this.held.size
    for (const release of [...this.held]) release()
    return count
  }
}
