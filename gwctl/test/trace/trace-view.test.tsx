import { render } from 'ink-testing-library'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AdminClient, parseAdminAddress } from '../../src/admin-client.js'
import type { TraceEvent } from '../../src/trace/events.js'
import { parseTraceEvent } from '../../src/trace/events.js'
import { traceNextRequest } from '../../src/trace/stream.js'
import { TraceView } from '../../src/trace/trace-view.js'
import { type LiveGatehouse, startLiveGatehouse } from '../helpers.js'

/** Records the events of one real request through the real admin stream. */
async function recordRequest(live: LiveGatehouse, path: string): Promise<TraceEvent[]> {
  const client = new AdminClient(parseAdminAddress(live.admin))
  const events: TraceEvent[] = []
  let sent: Promise<Response> | undefined
  for await (const e of traceNextRequest(client, {
    onOpen: () => {
      sent = fetch(`${live.url}${path}`, { headers: { authorization: 'Bearer eyJa.eyJb.c2ln' } })
    },
  })) {
    events.push(e)
  }
  await sent
  return events
}

describe('TraceView', () => {
  let live: LiveGatehouse
  let ok: TraceEvent[]
  let notFound: TraceEvent[]
  beforeAll(async () => {
    live = await startLiveGatehouse()
    ok = await recordRequest(live, '/mcp')
    notFound = await recordRequest(live, '/nowhere')
  })
  afterAll(async () => {
    await live.close()
  })

  it('shows a real request as a timeline with elapsed times, route, backend and status', () => {
    const { lastFrame } = render(
      <TraceView admin={live.admin} follow={false} requests={[ok]} waiting={false} connected />,
    )
    const frame = lastFrame() ?? ''
    expect(frame).toContain(`gwctl trace admin ${live.admin}`)
    expect(frame).toMatch(/req-\d+ GET \/mcp status 200 in \d+\.\d{3} ms/)
    expect(frame).toMatch(/\+\d+\.\d{3} ms request +GET \/mcp on gateway default/)
    expect(frame).toMatch(/route +mcp rule 0 \(PathPrefix \/mcp\)/)
    expect(frame).toMatch(/policies +none/)
    expect(frame).toMatch(/backend +mcp-backend at http:\/\/127\.0\.0\.1:\d+/)
    expect(frame).toMatch(/finished +status=200/)
    expect(frame).not.toContain('eyJa.eyJb.c2ln')
    // One line per event plus the header, the blank line and the request line.
    expect(frame.split('\n')).toHaveLength(ok.length + 3)
  })

  it('marks a request no route matches', () => {
    const { lastFrame } = render(
      <TraceView
        admin={live.admin}
        follow={false}
        requests={[notFound]}
        waiting={false}
        connected
      />,
    )
    expect(lastFrame()).toMatch(/route +no route matches/)
    expect(lastFrame()).toMatch(/GET \/nowhere status 404 in/)
  })

  it('shows a request in progress while its events arrive', () => {
    const partial = ok.slice(0, 2)
    const { lastFrame } = render(
      <TraceView
        admin={live.admin}
        follow={false}
        requests={[partial]}
        waiting={false}
        connected
      />,
    )
    expect(lastFrame()).toMatch(/GET \/mcp in progress/)
    expect(lastFrame()).not.toContain('finished')
  })

  it('says it connects, then that it waits, with the path filter', () => {
    const view = (connected: boolean) => (
      <TraceView
        admin="127.0.0.1:15000"
        pathPrefix="/mcp"
        follow
        requests={[]}
        waiting
        connected={connected}
      />
    )
    const { lastFrame, rerender } = render(view(false))
    expect(lastFrame()).toContain('Connecting to the admin interface')
    rerender(view(true))
    expect(lastFrame()).toContain('Waiting for the next request under /mcp')
    expect(lastFrame()).toContain('· path /mcp · following')
  })

  it('folds finished requests to one line each while following', () => {
    const { lastFrame } = render(
      <TraceView admin={live.admin} follow requests={[ok, notFound]} waiting connected />,
    )
    const frame = lastFrame() ?? ''
    expect(frame).toMatch(/req-\d+ GET \/mcp status 200 in/)
    expect(frame).toMatch(/req-\d+ GET \/nowhere status 404 in/)
    expect(frame).not.toContain('backend ')
    expect(frame).toContain('Waiting for the next request')
  })

  it('lists each authorization rule with its outcome and the authentication result', () => {
    // The authentication and authorization frames as the auth layer emits them (it has no
    // identity provider in this test), parsed by the same code as a live stream.
    const frame = (type: string, seq: number, data: Record<string, unknown>) =>
      parseTraceEvent(
        type,
        JSON.stringify({
          requestId: 'req-9',
          seq,
          type,
          at: '2026-11-22T14:00:00.000Z',
          elapsedMs: seq,
          data,
        }),
      )
    const events = [
      frame('request_started', 0, { method: 'POST', path: '/mcp', gateway: 'default' }),
      frame('authentication', 1, {
        policy: 'mcp-auth',
        ok: true,
        subject: 'alice',
        token: 'eyJa.eyJb.c2ln',
      }),
      frame('authorization', 2, {
        policy: 'mcp-auth',
        allowed: false,
        rules: [
          { expression: "'AI-Users' in jwt.groups", result: false },
          { expression: 'jwt.sub != ""', result: true },
        ],
      }),
      frame('response', 3, { status: 403 }),
      frame('request_finished', 4, { status: 403, durationMs: 4 }),
    ]
    const { lastFrame } = render(
      <TraceView
        admin="127.0.0.1:15000"
        follow={false}
        requests={[events]}
        waiting={false}
        connected
      />,
    )
    const out = lastFrame() ?? ''
    expect(out).toMatch(/authentication +policy=mcp-auth ok=true subject=alice token=\[redacted\]/)
    expect(out).toMatch(/authorization +policy=mcp-auth allowed=false/)
    expect(out).toMatch(/✗ 'AI-Users' in jwt\.groups/)
    expect(out).toMatch(/✓ jwt\.sub != ""/)
    expect(out).toContain('POST /mcp status 403 in 4.000 ms')
    expect(out).not.toContain('eyJa.eyJb.c2ln')
  })
})

/** Control characters a hostile client or backend puts in a tool name or path. */
const HOSTILE = '\u001b]0;pwned\u0007\u001b[2J\r\n+0.001 ms  forged    line\u009b31m\u202e'

/** A recorded request whose untrusted fields carry {@link HOSTILE}. */
function hostileRequest(): TraceEvent[] {
  const at = '2026-11-22T14:00:00.000Z'
  const e = (seq: number, type: string, data: Record<string, unknown>) =>
    parseTraceEvent(
      type,
      JSON.stringify({ requestId: 'req-1', seq, type, at, elapsedMs: seq, data }),
    )
  return [
    e(0, 'request_started', { method: 'POST', path: `/mcp/${HOSTILE}`, gateway: 'default' }),
    e(1, 'mcp_request', { messages: [{ method: 'tools/call', tool: HOSTILE, id: 1 }] }),
    e(2, 'mcp_authorization', {
      decisions: [{ method: 'tools/call', kind: 'tool', name: HOSTILE, allowed: false }],
    }),
    e(3, 'authentication', { error: HOSTILE }),
    e(4, 'request_finished', { status: 403, durationMs: 1 }),
  ]
}

describe('TraceView: untrusted text (docs/design/hardening.md)', () => {
  it('shows control characters of tool names and paths escaped: no terminal sequence, no forged line', () => {
    const events = hostileRequest()
    const { lastFrame } = render(
      <TraceView
        admin="127.0.0.1:15000"
        follow={false}
        requests={[events]}
        waiting={false}
        connected
      />,
    )
    const frame = lastFrame() ?? ''
    // Anything but a newline and the safe ranges of printable.ts.
    expect(frame).not.toMatch(/[^\n\x20-\x7e\u00a0-\u200d\u2010-\u2027\u202f-\u2065\u206a-\uffff]/u)
    expect(frame).toContain('\\u001b]0;pwned\\u0007\\u001b[2J\\r\\n+0.001 ms')
    // The text wraps at the frame's width, but no line is the forged timeline line.
    expect(frame.split('\n').filter((l) => /^\s*\+0\.001 ms +forged/.test(l))).toEqual([])
  })
})
