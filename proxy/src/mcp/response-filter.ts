/**
 * Stream transforms that hide denied items from list results in a backend's answer to
 * `POST /mcp`, in both shapes Streamable HTTP allows (MCP 2025-06-18 Transports §Sending Messages
 * to the Server): a `text/event-stream` is filtered event by event — every event leaves as soon as
 * it is complete, and once each targeted list response went by the rest is passed on unread — and
 * an `application/json` body, which is one message (or one batch), is read whole (bounded) and
 * filtered. Events and bodies that hold no targeted list response leave byte for byte.
 *
 * Fail closed: a body the gateway cannot read (compressed, or a message above the bound) is cut
 * off rather than passed on unfiltered.
 */
import { Readable, Transform, type TransformCallback } from 'node:stream'
import { StringDecoder } from 'node:string_decoder'
import type { TargetKind } from './json-rpc.js'
import { filterListMessage, hidAny, type ItemVisible, type ListTargets } from './list-filter.js'

/** Largest single message (SSE event or JSON body) the filter holds while looking for a list. */
export const MAX_FILTERED_MESSAGE_BYTES = 8 * 1024 * 1024

/** Options of {@link filterResponseBody}. */
export interface ResponseFilterOptions {
  /** Which responses are list responses to filter. */
  targets: ListTargets
  visible: ItemVisible
  /** Told how many items of a kind one response lost (metrics, trace). */
  onHidden?: (kind: TargetKind, count: number) => void
  /** Default {@link MAX_FILTERED_MESSAGE_BYTES}. */
  maxMessageBytes?: number
}

type Headers = Record<string, string | string[] | undefined>

function report(
  outcome: ReturnType<typeof filterListMessage>,
  onHidden: ResponseFilterOptions['onHidden'],
) {
  if (!onHidden) return
  for (const [kind, n] of Object.entries(outcome.hidden)) onHidden(kind as TargetKind, n)
}

function tooLarge(max: number): Error {
  return Object.assign(
    new Error(`a response message above ${max} bytes cannot be filtered by the MCP policy`),
    { code: 'GW_MCP_FILTER_LIMIT' },
  )
}

/** Filters an SSE stream event by event (WHATWG HTML §9.2 event stream interpretation). */
class SseListFilter extends Transform {
  readonly #decoder = new StringDecoder('utf8')
  readonly #options: ResponseFilterOptions
  readonly #max: number
  /** Text not yet sent: the start of an event that is not complete yet. */
  #text = ''
  /** Where line scanning resumes in `#text`. */
  #scan = 0
  /** Targeted responses still expected (Infinity: any response may be a list). */
  #remaining: number
  #passthrough = false

  constructor(options: ResponseFilterOptions) {
    super()
    this.#options = options
    this.#max = options.maxMessageBytes ?? MAX_FILTERED_MESSAGE_BYTES
    this.#remaining = options.targets === 'any' ? Number.POSITIVE_INFINITY : options.targets.size
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    const text = this.#decoder.write(chunk)
    if (this.#passthrough) {
      if (text) this.push(text)
      done()
      return
    }
    this.#text += text
    this.#drain(false)
    if (!this.#passthrough && this.#text.length > this.#max) {
      done(tooLarge(this.#max))
      return
    }
    done()
  }

  override _flush(done: TransformCallback): void {
    const rest = this.#decoder.end()
    if (this.#passthrough) {
      if (rest) this.push(rest)
    } else {
      this.#text += rest
      this.#drain(true)
      // An unterminated last event: judged like a complete one, since some clients dispatch it.
      if (this.#text) this.push(this.#event(this.#text))
    }
    done()
  }

  /** Sends every complete event in `#text`. */
  #drain(ended: boolean): void {
    const s = this.#text
    let eventStart = 0
    let lineStart = this.#scan
    let i = this.#scan
    // The next CR is remembered: most streams use LF only, and rescanning for a CR that is not
    // there would make each line cost the whole rest of the text.
    let nextCr = s.indexOf('\r', i)
    for (;;) {
      if (nextCr !== -1 && nextCr < i) nextCr = s.indexOf('\r', i)
      const lf = s.indexOf('\n', i)
      if (nextCr === -1 && lf === -1) break
      const cr = nextCr !== -1 && (lf === -1 || nextCr < lf) ? nextCr : -1
      const at = cr === -1 ? lf : cr
      let end = at + 1
      if (cr !== -1) {
        // A CR at the end of what arrived may be the first half of CRLF: wait for more.
        if (at + 1 === s.length && !ended) break
        if (s.charCodeAt(at + 1) === 10) end = at + 2
      }
      if (at === lineStart) {
        const event = s.slice(eventStart, end)
        this.push(this.#event(event))
        eventStart = end
        if (this.#remaining <= 0) {
          this.#passthrough = true
          const rest = s.slice(eventStart)
          if (rest) this.push(rest)
          this.#text = ''
          this.#scan = 0
          return
        }
      }
      lineStart = end
      i = end
    }
    this.#text = s.slice(eventStart)
    this.#scan = lineStart - eventStart
  }

  /** One event, filtered when it carries a targeted list response, else unchanged. */
  #event(event: string): string {
    if (!event.includes('"result"')) return event
    const fields: string[] = []
    const data: string[] = []
    for (const line of event.split(/\r\n|\r|\n/)) {
      if (line === '') continue
      if (line.startsWith('data:')) {
        const v = line.slice(5)
        data.push(v.startsWith(' ') ? v.slice(1) : v)
      } else {
        fields.push(line)
      }
    }
    if (data.length === 0) return event
    let message: unknown
    try {
      message = JSON.parse(data.join('\n'))
    } catch {
      return event
    }
    const outcome = filterListMessage(message, this.#options.targets, this.#options.visible)
    if (!outcome.matched) return event
    this.#remaining--
    if (!hidAny(outcome)) return event
    report(outcome, this.#options.onHidden)
    return `${fields.map((f) => `${f}\n`).join('')}data: ${JSON.stringify(message)}\n\n`
  }
}

/** Filters an `application/json` body: one message or a batch, read whole (bounded). */
class JsonListFilter extends Transform {
  readonly #options: ResponseFilterOptions
  readonly #max: number
  readonly #chunks: Buffer[] = []
  #size = 0

  constructor(options: ResponseFilterOptions) {
    super()
    this.#options = options
    this.#max = options.maxMessageBytes ?? MAX_FILTERED_MESSAGE_BYTES
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.#size += chunk.length
    if (this.#size > this.#max) {
      done(tooLarge(this.#max))
      return
    }
    this.#chunks.push(chunk)
    done()
  }

  override _flush(done: TransformCallback): void {
    const body = Buffer.concat(this.#chunks)
    let parsed: unknown
    try {
      parsed = JSON.parse(body.toString('utf8'))
    } catch {
      // Not JSON: it carries no list a client could read, so it leaves as it came.
      done(null, body)
      return
    }
    let hid = false
    for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
      const outcome = filterListMessage(message, this.#options.targets, this.#options.visible)
      if (hidAny(outcome)) {
        hid = true
        report(outcome, this.#options.onHidden)
      }
    }
    done(null, hid ? Buffer.from(JSON.stringify(parsed)) : body)
  }
}

function header(headers: Headers, name: string): string {
  const v = headers[name]
  return (Array.isArray(v) ? v.join(',') : (v ?? '')).trim().toLowerCase()
}

/**
 * Wraps a backend response body with the list filter its content type needs, adjusting `headers`
 * (a filtered body has no known length). Other content types are returned unchanged: they carry
 * no JSON-RPC message.
 * @param headers - the response headers about to be sent; `content-length` is removed when filtering.
 */
export function filterResponseBody(
  body: Readable,
  headers: Headers,
  options: ResponseFilterOptions,
): Readable {
  const type = header(headers, 'content-type')
  const sse = type.startsWith('text/event-stream')
  if (!sse && !type.startsWith('application/json')) return body
  const encoding = header(headers, 'content-encoding')
  if (encoding !== '' && encoding !== 'identity') {
    body.destroy()
    const refused = new Readable({ read() {} })
    const err = new Error(
      `the backend answered with content-encoding ${encoding}: a list the MCP policy cannot read is not passed on`,
    )
    process.nextTick(() => refused.destroy(err))
    return refused
  }
  delete headers['content-length']
  const filter = sse ? new SseListFilter(options) : new JsonListFilter(options)
  body.once('error', (err) => filter.destroy(err))
  filter.once('close', () => {
    if (!body.destroyed) body.destroy()
  })
  return body.pipe(filter)
}
