/**
 * The session binding stage (proxy/src/dataplane/session-gate.ts) as a unit over the memory
 * store: what it forwards, refuses, binds and forgets. Over HTTP with the SDK:
 * session-binding.test.ts.
 */
import { pino } from 'pino'
import { describe, expect, it } from 'vitest'
import { MemorySessionBindings } from '../../src/dataplane/session-binding.js'
import { type SessionGateInput, sessionGate } from '../../src/dataplane/session-gate.js'

const alice = { iss: 'https://idp.example', sub: 'alice' }
const bob = { iss: 'https://idp.example', sub: 'bob' }

function input(
  sessions: MemorySessionBindings,
  over: Partial<SessionGateInput> = {},
): SessionGateInput {
  return {
    sessions,
    backend: 'mcp',
    method: 'POST',
    headers: {},
    claims: alice,
    trace: undefined,
    log: pino({ level: 'silent' }),
    ...over,
  }
}

async function open(
  sessions: MemorySessionBindings,
  id: string,
  over: Partial<SessionGateInput> = {},
) {
  const gate = await sessionGate(input(sessions, over))
  if (!gate.ok) throw new Error('refused')
  await gate.onResponseHead(200, { 'mcp-session-id': id })
}

describe('sessionGate', () => {
  it('binds the id a 2xx answer issues, and refuses it to another principal with 404 session_not_found', async () => {
    const sessions = new MemorySessionBindings()
    await open(sessions, 's1')
    expect((await sessionGate(input(sessions, { headers: { 'mcp-session-id': 's1' } }))).ok).toBe(
      true,
    )
    const refused = await sessionGate(
      input(sessions, { headers: { 'mcp-session-id': 's1' }, claims: bob }),
    )
    expect(refused).toMatchObject({
      ok: false,
      response: { status: 404, body: { error: 'session_not_found' } },
    })
    const anonymous = await sessionGate(
      input(sessions, { headers: { 'mcp-session-id': 's1' }, claims: undefined }),
    )
    expect(anonymous.ok).toBe(false)
  })

  it('forwards an id it holds no binding for (a restart, another replica) and binds it to the first principal the backend serves in it', async () => {
    const sessions = new MemorySessionBindings()
    const carried = { 'mcp-session-id': 'from-before-the-restart' }
    const first = await sessionGate(input(sessions, { headers: carried }))
    if (!first.ok) throw new Error('refused an id nobody holds')
    await first.onResponseHead(200, {})
    expect(await sessions.owner('mcp\nfrom-before-the-restart')).toBeDefined()
    expect((await sessionGate(input(sessions, { headers: carried }))).ok).toBe(true)
    expect(await sessionGate(input(sessions, { headers: carried, claims: bob }))).toMatchObject({
      ok: false,
      response: { status: 404 },
    })
  })

  it('binds no unknown id the backend does not serve (its own 404), nor one refused', async () => {
    const sessions = new MemorySessionBindings()
    const made = { 'mcp-session-id': 'made-up' }
    const gate = await sessionGate(input(sessions, { headers: made, claims: bob }))
    if (!gate.ok) throw new Error('refused an id nobody holds')
    await gate.onResponseHead(404, {})
    expect(await sessions.owner('mcp\nmade-up')).toBeUndefined()
    const later = await sessionGate(input(sessions, { headers: made }))
    if (!later.ok) throw new Error('bob was bound by a 404')
    await later.onResponseHead(200, {})
    expect(await sessionGate(input(sessions, { headers: made, claims: bob }))).toMatchObject({
      ok: false,
    })
  })

  it('refuses to hand out a session it cannot bind (bindings full): onResponseHead rejects with 503 GW_ERR_SESSIONS_FULL', async () => {
    const sessions = new MemorySessionBindings({ maxSessions: 1 })
    await open(sessions, 's1')
    const gate = await sessionGate(input(sessions, { claims: bob }))
    if (!gate.ok) throw new Error('refused')
    await expect(gate.onResponseHead(200, { 'mcp-session-id': 's2' })).rejects.toMatchObject({
      code: 'GW_ERR_SESSIONS_FULL',
      status: 503,
    })
    // alice keeps hers; the refused one is not bound to anyone.
    expect((await sessionGate(input(sessions, { headers: { 'mcp-session-id': 's1' } }))).ok).toBe(
      true,
    )
    expect(await sessions.owner('mcp\ns2')).toBeUndefined()
  })

  it('keeps the sessions of two backends apart', async () => {
    const sessions = new MemorySessionBindings()
    await open(sessions, 's1', { backend: 'a' })
    // Bob cannot use alice's session at backend a; at backend b the id is nobody's yet, so it
    // is b's to answer (it holds no such session: 404), and alice's binding at a is untouched.
    const atA = await sessionGate(
      input(sessions, { backend: 'a', headers: { 'mcp-session-id': 's1' }, claims: bob }),
    )
    expect(atA.ok).toBe(false)
    const atB = await sessionGate(
      input(sessions, { backend: 'b', headers: { 'mcp-session-id': 's1' }, claims: bob }),
    )
    if (!atB.ok) throw new Error('refused an id backend b was never asked about')
    await atB.onResponseHead(404, {})
    expect(await sessions.owner('b\ns1')).toBeUndefined()
    expect(await sessions.owner('a\ns1')).toBeDefined()
  })

  it('binds nothing on a non-2xx answer', async () => {
    const sessions = new MemorySessionBindings()
    const gate = await sessionGate(input(sessions))
    if (!gate.ok) throw new Error('refused')
    await gate.onResponseHead(400, { 'mcp-session-id': 's1' })
    expect(sessions.size).toBe(0)
  })

  it('forgets a session its DELETE ended, and only on a 2xx', async () => {
    const sessions = new MemorySessionBindings()
    await open(sessions, 's1')
    const del = (status: number) =>
      sessionGate(input(sessions, { method: 'DELETE', headers: { 'mcp-session-id': 's1' } })).then(
        async (g) => {
          if (!g.ok) throw new Error('refused')
          await g.onResponseHead(status, {})
        },
      )
    await del(405)
    expect(sessions.size).toBe(1)
    await del(200)
    expect(sessions.size).toBe(0)
  })
})
