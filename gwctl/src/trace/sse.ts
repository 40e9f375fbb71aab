/**
 * Reads Server-Sent Events (WHATWG HTML, "Server-sent events", §9.2.6) from a byte stream with
 * `eventsource-parser`: enough for the admin `/debug/trace` stream, whose frames are
 * `event: <type>` + `data: <json>` and whose `: keep-alive` comments carry no event.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser'

/** One dispatched event. */
export interface SseMessage {
  /** The `event:` field, `message` when absent (as a browser's EventSource reports it). */
  event: string
  /** The `data:` lines joined with `\n`. */
  data: string
}

/**
 * Splits a byte stream into SSE messages. Comments and events without data are not dispatched,
 * an unknown field is ignored, and an event left incomplete at the end of the stream is dropped
 * (all as the spec says).
 */
export async function* readSse(body: AsyncIterable<Uint8Array>): AsyncGenerator<SseMessage> {
  const ready: SseMessage[] = []
  const parser = createParser({
    onEvent: (m: EventSourceMessage) => {
      if (m.data !== '') ready.push({ event: m.event || 'message', data: m.data })
    },
    // The spec ignores a field it does not know; so do we (the default would throw).
    onError: () => undefined,
  })
  const decoder = new TextDecoder()
  for await (const chunk of body) {
    parser.feed(decoder.decode(chunk, { stream: true }))
    while (ready.length > 0) yield ready.shift() as SseMessage
  }
  parser.feed(decoder.decode())
}
