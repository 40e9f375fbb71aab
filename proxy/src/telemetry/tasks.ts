/**
 * The live async work of the proxy, as a tree for `/debug/tasks`:
 * listeners → connections → in-flight requests → their current stage, plus background tasks
 * (JWKS and discovery refreshes). Bookkeeping is a few map operations per request.
 */

/** Stages a request goes through. */
export type RequestStage =
  | 'routing'
  | 'cors'
  | 'mcp_oauth'
  | 'auth'
  | 'jwks_fetch'
  | 'authorization'
  | 'mcp_policy'
  | 'upstream_wait'
  | 'streaming'
  | 'responding'

/** A request in flight. */
export interface RequestTask {
  /** Moves the request to a stage (the stage's age restarts). */
  stage(stage: RequestStage): void
  /** Removes the request from the tree. Idempotent. */
  end(): void
}

interface RequestEntry {
  id: number
  method: string
  path: string
  startedAt: number
  stage: RequestStage
  stageAt: number
}

interface ConnectionEntry {
  id: number
  remote: string
  openedAt: number
  requests: Map<number, RequestEntry>
}

interface ListenerEntry {
  name: string
  address: string
  connections: Map<number, ConnectionEntry>
}

/** A node of the rendered tree. */
export interface TaskNode {
  kind: 'listener' | 'connection' | 'request' | 'background'
  name: string
  ageMs: number
  detail?: Record<string, unknown>
  children?: TaskNode[]
}

/** The registry of live work. */
export class TaskRegistry {
  readonly #listeners = new Map<string, ListenerEntry>()
  readonly #background = new Map<
    number,
    { name: string; startedAt: number; detail: Record<string, unknown> }
  >()
  #ids = 1

  /** Registers a listener; returns its remover. */
  addListener(name: string, address: string): () => void {
    this.#listeners.set(name, { name, address, connections: new Map() })
    return () => this.#listeners.delete(name)
  }

  /** Registers a connection on a listener; returns its id and remover. */
  openConnection(listener: string, remote: string): { id: number; close: () => void } {
    const l = this.#listeners.get(listener)
    const id = this.#ids++
    l?.connections.set(id, { id, remote, openedAt: Date.now(), requests: new Map() })
    return { id, close: () => l?.connections.delete(id) }
  }

  /** Registers a request on a connection. */
  beginRequest(listener: string, connectionId: number, method: string, path: string): RequestTask {
    const conn = this.#listeners.get(listener)?.connections.get(connectionId)
    const now = Date.now()
    const entry: RequestEntry = {
      id: this.#ids++,
      method,
      path,
      startedAt: now,
      stage: 'routing',
      stageAt: now,
    }
    conn?.requests.set(entry.id, entry)
    return {
      stage(stage) {
        entry.stage = stage
        entry.stageAt = Date.now()
      },
      end() {
        conn?.requests.delete(entry.id)
      },
    }
  }

  /** Registers background work (a key-set refresh, a discovery fetch); returns its remover. */
  background(name: string, detail: Record<string, unknown> = {}): () => void {
    const id = this.#ids++
    this.#background.set(id, { name, startedAt: Date.now(), detail })
    return () => this.#background.delete(id)
  }

  /**
   * A counter that moves whenever work begins: a connection, a request or a background task
   * (telemetry/memory-trim.ts reads it to tell an idle gateway).
   */
  activity(): number {
    return this.#ids
  }

  /** Number of requests in flight across all listeners. */
  inFlight(): number {
    let n = 0
    for (const l of this.#listeners.values())
      for (const c of l.connections.values()) n += c.requests.size
    return n
  }

  /** Renders the tree. */
  tree(): TaskNode[] {
    const now = Date.now()
    const nodes: TaskNode[] = []
    for (const l of this.#listeners.values()) {
      nodes.push({
        kind: 'listener',
        name: l.name,
        ageMs: 0,
        detail: { address: l.address, connections: l.connections.size },
        children: [...l.connections.values()].map((c) => ({
          kind: 'connection',
          name: `conn-${c.id}`,
          ageMs: now - c.openedAt,
          detail: { remote: c.remote },
          children: [...c.requests.values()].map((r) => ({
            kind: 'request',
            name: `${r.method} ${r.path}`,
            ageMs: now - r.startedAt,
            detail: { id: r.id, stage: r.stage, stageAgeMs: now - r.stageAt },
          })),
        })),
      })
    }
    for (const b of this.#background.values()) {
      nodes.push({ kind: 'background', name: b.name, ageMs: now - b.startedAt, detail: b.detail })
    }
    return nodes
  }
}
