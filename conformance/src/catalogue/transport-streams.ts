/**
 * Transport checks that hold SSE streams open: resumption with `Last-Event-ID` (MCP 2025-11-25
 * Transports, "Resumability and Redelivery") and many concurrent GET streams. Both open sessions
 * by hand (`streams.ts`): the SDK client hides event ids and opens one stream per session.
 */
import { CheckFailure, CheckSkipped, must, type Requirement } from '../types.js'
import {
  callTool,
  type OpenStream,
  openSession,
  openStream,
  readUntil,
  type Session,
  type SseEvent,
} from './streams.js'
import { postMcp, token } from './util.js'

/** The `n` of a `notifications/message` event sent by mcp-backend's `notify` tool. */
function messageNumber(e: SseEvent): number | undefined {
  try {
    const msg = JSON.parse(e.data) as { method?: string; params?: { data?: { n?: unknown } } }
    const n = msg.method === 'notifications/message' ? msg.params?.data?.n : undefined
    return typeof n === 'number' ? n : undefined
  } catch {
    return undefined
  }
}
const messages = (seen: SseEvent[]) => seen.filter((e) => messageNumber(e) !== undefined)

/** Streams opened at once by TRN-007: one more than the old per-backend pool cap of 128, and one spare. */
export const STREAMS = 130
/** Sessions opened at once while preparing TRN-007. */
const PARALLEL = 32

/** TRN-006: reconnecting with Last-Event-ID replays the events after it. */
export const resumption: Requirement = {
  id: 'TRN-006',
  level: 'MUST',
  quote: 'Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID and Accept pass through',
  profile: 'transport',
  source:
    'MCP 2025-11-25 Transports §Resumability and Redelivery (Last-Event-ID on GET; the server MAY replay the messages after it); RFC 9110 §7.6 (a proxy forwards end-to-end fields); docs/design/errors.md (Last-Event-ID passes through)',
  text: 'A client that reconnects its GET stream with Last-Event-ID through the gateway receives the events after that id, replayed by the backend, with their ids.',
  async check(ctx) {
    const session = await openSession(ctx)
    let stream: OpenStream | undefined
    try {
      stream = await openStream(ctx, session)
      const answer = await callTool(ctx, session, 'notify', { count: 3 })
      if (!answer.includes('sent 3 messages')) {
        throw new CheckSkipped(
          "the backend has no notify tool (mcp-backend's): nothing to send on the stream",
        )
      }
      const first = messages(await readUntil(stream, (seen) => messages(seen).length >= 3))
      stream.close()
      must(
        first.length === 3,
        'the 3 messages of the notify call on the GET stream',
        `${first.length}`,
      )
      const ids = first.map((e) => e.id)
      if (ids.some((id) => !id)) {
        throw new CheckSkipped('the backend sends no SSE event ids: its streams are not resumable')
      }
      stream = await openStream(ctx, session, { lastEventId: ids[0], timeoutMs: 5000 })
      const replayed = messages(await readUntil(stream, (seen) => messages(seen).length >= 2, 3000))
      const got = replayed.map((e) => `${messageNumber(e)}@${e.id}`).join(', ')
      must(
        got === `2@${ids[1]}, 3@${ids[2]}`,
        `messages 2@${ids[1]}, 3@${ids[2]} replayed after Last-Event-ID ${ids[0]}`,
        got || 'nothing replayed',
      )
    } finally {
      stream?.close()
      await session.end()
    }
  },
}

/** Runs `fn` over `items`, at most `parallel` at once. */
async function pool<T, R>(items: T[], parallel: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = []
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const i = next++
      out[i] = await fn(items[i] as T)
    }
  }
  await Promise.all(Array.from({ length: Math.min(parallel, items.length) }, worker))
  return out
}

/** TRN-007: 130 open GET streams do not block new streams or requests. */
export const manyStreams: Requirement = {
  id: 'TRN-007',
  level: 'MUST',
  quote: 'a check that 129+ concurrent streams do not block a new request.',
  profile: 'transport',
  source:
    'MCP 2025-06-18 Transports §Listening for Messages from the Server (a stream per session, open as long as the session); mutation/README.md (the old per-backend pool cap of 128)',
  text: `With ${STREAMS} GET streams of ${STREAMS} sessions open at once through the gateway, every stream is answered (200 text/event-stream) and a fresh initialize is answered 200.`,
  async check(ctx) {
    const bearer = await token(ctx)
    const sessions: Session[] = []
    const streams: OpenStream[] = []
    try {
      const ids = Array.from({ length: STREAMS }, (_, i) => i)
      await pool(ids, PARALLEL, async () => {
        // Sessions that only listen: no notifications/initialized (a GET stream is no request).
        sessions.push(await openSession(ctx, { bearer, initialized: false }))
      })
      // All at once: a gateway that caps the backend's connections answers the first ones only.
      const opened = await Promise.allSettled(
        sessions.map((s) => openStream(ctx, s, { timeoutMs: 8000 })),
      )
      for (const o of opened) if (o.status === 'fulfilled') streams.push(o.value)
      const skipped = opened.find(
        (o) => o.status === 'rejected' && o.reason instanceof CheckSkipped,
      )
      if (skipped?.status === 'rejected') throw skipped.reason
      const failed = opened.flatMap((o) => (o.status === 'rejected' ? [o.reason as Error] : []))
      if (failed.length > 0) {
        throw new CheckFailure(
          `all ${STREAMS} GET streams answered`,
          `${streams.length} answered, ${failed.length} not: ${failed[0]?.message}`,
        )
      }
      const fresh = await postMcp(ctx, { token: bearer })
      must(
        fresh.status === 200,
        `a fresh initialize answered 200 while ${STREAMS} streams are open`,
        `${fresh.status}`,
      )
    } finally {
      for (const s of streams) s.close()
      await pool(sessions, PARALLEL, (s) => s.end())
    }
  },
}
