/**
 * A session's resumable event store (MCP 2025-11-25 Transports, "Resumability and Redelivery"):
 * every SSE event the SDK's transport sends gets an id, and a client that reconnects with
 * `Last-Event-ID` on a GET gets the events of the same stream after that id replayed.
 * In memory, bounded: the oldest events are dropped beyond {@link MAX_EVENTS}.
 */
import type { EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'

/** Events kept per session. */
export const MAX_EVENTS = 1000

/** One session's events, ids `1`, `2`, … in the order they were stored. */
export class MemoryEventStore implements EventStore {
  readonly #events: Array<{ id: string; streamId: string; message: JSONRPCMessage }> = []
  #next = 1

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const id = String(this.#next++)
    this.#events.push({ id, streamId, message })
    if (this.#events.length > MAX_EVENTS) this.#events.shift()
    return id
  }

  /**
   * Sends the events of `lastEventId`'s stream stored after it.
   * @returns that stream's id
   * @throws Error for an id this store does not hold (never issued, or dropped): the SDK then
   *   answers 500, and the client starts a fresh stream
   */
  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const at = this.#events.findIndex((e) => e.id === lastEventId)
    const last = this.#events[at]
    if (!last) throw new Error(`unknown event id ${JSON.stringify(lastEventId)}`)
    for (const e of this.#events.slice(at + 1)) {
      if (e.streamId === last.streamId) await send(e.id, e.message)
    }
    return last.streamId
  }
}
