/**
 * A minimal reader of Server-Sent Events (WHATWG HTML, "Server-sent events", §9.2.6 parsing):
 * enough for the admin `/debug/trace` stream, whose frames are `event: <type>` + `data: <json>`
 * and whose `: keep-alive` comments carry no event.
 */

/** One dispatched event. */
export interface SseMessage {
  /** The `event:` field, `message` when absent. */
  event: string
  /** The `data:` lines joined with `\n`. */
  data: string
}

/** Splits a byte stream into SSE messages; comments and empty dispatches are dropped. */
export async function* readSse(body: AsyncIterable<Uint8Array>): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder()
  let buffer = ''
  let event = ''
  let data: string[] = []
  const lines = function* (final: boolean) {
    for (;;) {
      const m = /\r\n|\r|\n/.exec(buffer)
      // A trailing lone \r may be the first half of \r\n: wait for the next chunk.
      if (!m || (m[0] === '\r' && m.index === buffer.length - 1 && !final)) return
      const line = buffer.slice(0, m.index)
      buffer = buffer.slice(m.index + m[0].length)
      yield line
    }
  }
  const feed = function* (final: boolean): Generator<SseMessage> {
    for (const line of lines(final)) {
      if (line === '') {
        if (data.length > 0) yield { event: event || 'message', data: data.join('\n') }
        event = ''
        data = []
        continue
      }
      if (line.startsWith(':')) continue
      const colon = line.indexOf(':')
      const field = colon === -1 ? line : line.slice(0, colon)
      let value = colon === -1 ? '' : line.slice(colon + 1)
      if (value.startsWith(' ')) value = value.slice(1)
      if (field === 'event') event = value
      else if (field === 'data') data.push(value)
    }
  }
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true })
    yield* feed(false)
  }
  buffer += decoder.decode()
  // The spec discards an incomplete event at end of stream; so do we.
  yield* feed(true)
}
