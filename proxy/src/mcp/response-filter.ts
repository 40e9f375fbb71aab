// Over 300 lines but one job (filtering list results out of a response body): kept whole.
/**
 * Stream transforms that hide denied items from list results in a backend's answer to a list
 * request (`POST /mcp`) or on a server stream (`GET /mcp`), in both shapes Streamable HTTP allows
 * (MCP 2025-06-18 Transports §Sending Messages to the Server): a `text/event-stream` is filtered
 * event by event — every event leaves as soon as it is complete — and any other body, which is one
 * message (or one batch), is read whole (bounded) and filtered whatever its content type says
 * (`application/json`, `application/vnd.mcp+json`, `text/plain` or none: a client may parse any of
 * them). Every result is judged by its shape, never by its id (ids may repeat in a batch).
 * Events and bodies that hold no list leave byte for byte; one that may hold a list leaves
 * re-serialized, so that no parser reads another message than the one judged.
 *
 * Fail closed (docs/design/hardening.md): a compressed body is decoded (gzip, deflate, br) and
 * leaves unencoded; another content coding is refused with 502 before anything is sent; a
 * successful answer that is not JSON, an event whose data cannot be parsed but may hold a result,
 * and a message above the bound are cut off rather than passed on unfiltered. Every stream the
 * filter holds has an `'error'` listener, so a backend failing mid-body never reaches the process.
 */
import type { Readable } from 'node:stream'
import { Transform, type TransformCallback } from 'node:stream'
import { StringDecoder } from 'node:string_decoder'
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib'
import { GatehouseError, RequestError } from '../errors.js'
import type { TargetKind } from './json-rpc.js'
import { filterListMessages, hidAny, type ItemVisible, type ListCacheHints } from './list-filter.js'

/** Largest single message (SSE event or JSON body) the filter holds while looking for a list. */
export const MAX_FILTERED_MESSAGE_BYTES = 8 * 1024 * 1024

/** Options of {@link filterResponseBody}. */
export interface ResponseFilterOptions {
  /** Whether a listed item stays visible to the caller. */
  visible: ItemVisible
  /** Told how many items of a kind one response lost (metrics, trace). */
  onHidden?: (kind: TargetKind, count: number) => void
  /** Default {@link MAX_FILTERED_MESSAGE_BYTES}. */
  maxMessageBytes?: number
  /** Caching hints set on filtered results (modern era: list-filter.ts); absent: none. */
  cache?: ListCacheHints | undefined
}

type Headers = Record<string, string | string[] | undefined>

function report(
  outcome: ReturnType<typeof filterListMessages>,
  onHidden: ResponseFilterOptions['onHidden'],
) {
  if (!onHidden) return
  for (const [kind, n] of Object.entries(outcome.hidden)) onHidden(kind as TargetKind, n)
}

/**
 * Whether JSON text may hold a list: it names a list field, or holds a `\u` escape that may
 * spell one. Such a message leaves re-serialized even when nothing was hidden, so that a parser
 * keeping the first of two equal keys (JSON.parse keeps the last) reads what was judged.
 */
function mayHoldList(text: string): boolean {
  return /tools|prompts|resources|\\u/.test(text)
}

/** A body the filter cannot read; the connection is cut (the head may have left already). */
function unreadable(what: string): Error {
  return new GatehouseError(
    'GW_ERR_MCP_FILTER_UNREADABLE',
    `${what} cannot be read by the MCP list filter, so it is not passed on`,
  )
}

/**
 * A message the filter could parse but not judge or rewrite (JSON.stringify overflows the stack on
 * a value nested a few million deep): the stream fails, as any unreadable one. Thrown out of a
 * transform fed by a decoder, it would reach the process instead.
 */
function failed(err: unknown): Error {
  return unreadable(`a message that cannot be filtered (${(err as Error).message})`)
}

function tooLarge(max: number): Error {
  return new GatehouseError(
    'GW_ERR_MCP_FILTER_LIMIT',
    `a response message above ${max} bytes cannot be filtered by the MCP policy`,
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

  constructor(options: ResponseFilterOptions) {
    super()
    this.#options = options
    this.#max = options.maxMessageBytes ?? MAX_FILTERED_MESSAGE_BYTES
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    try {
      this.#text += this.#decoder.write(chunk)
      this.#drain(false)
    } catch (err) {
      done(failed(err))
      return
    }
    if (this.#text.length > this.#max) {
      done(tooLarge(this.#max))
      return
    }
    done()
  }

  override _flush(done: TransformCallback): void {
    try {
      this.#text += this.#decoder.end()
      this.#drain(true)
      // An unterminated last event: judged like a complete one, since some clients dispatch it.
      if (this.#text) this.push(this.#event(this.#text))
    } catch (err) {
      done(failed(err))
      return
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
        const event = this.#event(s.slice(eventStart, end))
        if (event) this.push(event)
        eventStart = end
      }
      lineStart = end
      i = end
    }
    this.#text = s.slice(eventStart)
    this.#scan = lineStart - eventStart
  }

  /**
   * One event, filtered when it carries a list, else unchanged. Only an event that mentions
   * `result` (or holds a `\u` escape, which may spell it) can carry one, so the others are not
   * parsed. Such an event whose data does not parse is dropped but for its other fields (`id`
   * still moves Last-Event-ID): a lenient client might read a list out of it.
   */
  #event(event: string): string {
    if (!event.includes('result') && !event.includes('\\u')) return event
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
    const kept = fields.map((f) => `${f}\n`).join('')
    let message: unknown
    try {
      message = JSON.parse(data.join('\n'))
    } catch {
      return kept && `${kept}\n`
    }
    const outcome = filterListMessages(message, this.#options.visible, this.#options.cache)
    if (hidAny(outcome)) report(outcome, this.#options.onHidden)
    else if (!mayHoldList(event)) return event
    return `${kept}data: ${JSON.stringify(message)}\n\n`
  }
}

/**
 * Filters a body that is not an event stream: one message or a batch, read whole (bounded). A
 * body that is not JSON is cut off when the status is a success (a client may still find a list
 * in it), and passed on otherwise (an error page is no list).
 */
class JsonListFilter extends Transform {
  readonly #options: ResponseFilterOptions
  readonly #max: number
  readonly #success: boolean
  readonly #chunks: Buffer[] = []
  #size = 0

  constructor(options: ResponseFilterOptions, status: number) {
    super()
    this.#options = options
    this.#max = options.maxMessageBytes ?? MAX_FILTERED_MESSAGE_BYTES
    this.#success = status >= 200 && status < 300
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
    try {
      this.#finish(done)
    } catch (err) {
      done(failed(err))
    }
  }

  #finish(done: TransformCallback): void {
    const body = Buffer.concat(this.#chunks)
    if (body.length === 0) {
      done()
      return
    }
    let parsed: unknown
    try {
      // As fetch's `json()` reads it: UTF-8, a leading BOM dropped.
      parsed = JSON.parse(new TextDecoder().decode(body))
    } catch {
      if (this.#success) done(unreadable('a successful answer to a list request that is not JSON'))
      else done(null, body)
      return
    }
    const outcome = filterListMessages(parsed, this.#options.visible, this.#options.cache)
    if (hidAny(outcome)) report(outcome, this.#options.onHidden)
    else if (!mayHoldList(body.toString('latin1'))) {
      done(null, body)
      return
    }
    done(null, Buffer.from(JSON.stringify(parsed)))
  }
}

function header(headers: Headers, name: string): string {
  const v = headers[name]
  return (Array.isArray(v) ? v.join(',') : (v ?? '')).trim().toLowerCase()
}

/** Content codings applied one over the other that the gateway decodes. */
const MAX_CODINGS = 2

/** RFC 9110 §8.4.1: the content codings the gateway decodes to read a list. */
const DECODERS: Readonly<Record<string, () => Transform>> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
}

/**
 * The decoders for a `Content-Encoding` value, last applied first (RFC 9110 §8.4: codings are
 * listed in the order they were applied).
 * @throws RequestError 502 naming a coding the gateway cannot decode.
 */
function decodersOf(encoding: string): Transform[] {
  const codings = encoding
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '' && c !== 'identity')
  const unknown = codings.find((c) => !DECODERS[c])
  // More than two codings: no server stacks them, and each would be another decoder to run.
  if (unknown !== undefined || codings.length > MAX_CODINGS) {
    throw new RequestError(
      'GW_ERR_UPSTREAM',
      `the backend answered a list with content-encoding "${unknown ?? encoding}", which the gateway does not decode to apply the MCP policy; serve it unencoded (the gateway asks for identity)`,
    )
  }
  return codings.reverse().map((c) => (DECODERS[c] as () => Transform)())
}

/** A do-nothing `'error'` listener: the error reaches the client through the filter instead. */
function ignore(): void {}

/**
 * Wraps a backend response body with the list filter it needs, adjusting `headers`: a filtered
 * body has no known length and leaves unencoded.
 * @param headers - the response headers about to be sent; `content-length` and
 *   `content-encoding` are removed.
 * @param status - the response status: an unreadable body is cut off only on a success.
 * @throws RequestError 502 (before anything is sent) for a content coding the gateway cannot
 *   decode; `body` is destroyed then.
 */
export function filterResponseBody(
  body: Readable,
  headers: Headers,
  status: number,
  options: ResponseFilterOptions,
): Readable {
  // First of all: whatever happens to the backend's body from now on is handled here.
  body.on('error', ignore)
  let decoders: Transform[]
  try {
    decoders = decodersOf(header(headers, 'content-encoding'))
  } catch (err) {
    body.destroy()
    throw err
  }
  delete headers['content-length']
  delete headers['content-encoding']
  const sse = header(headers, 'content-type').startsWith('text/event-stream')
  const filter = sse ? new SseListFilter(options) : new JsonListFilter(options, status)
  const stages: Readable[] = [body, ...decoders]
  let source: Readable = body
  for (const decoder of decoders) {
    decoder.on('error', ignore)
    source = source.pipe(decoder)
  }
  for (const stage of stages) {
    stage.once('error', (err) => {
      filter.destroy(
        stage === body ? err : unreadable(`a body that does not decode (${err.message})`),
      )
    })
  }
  filter.once('close', () => {
    for (const stage of stages) if (!stage.destroyed) stage.destroy()
  })
  return source.pipe(filter)
}
