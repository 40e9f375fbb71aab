/**
 * MCP sessions bound to the user (proxy/src/dataplane/session-binding.ts; MCP Security Best
 * Practices, "Session Hijacking"): over real HTTP with the official SDK client and server, bob's
 * token on alice's `Mcp-Session-Id` gets 404 (MCP Transports: the answer to a session the server
 * does not hold), and so does alice's session through a route without authentication; as a unit,
 * the store is bounded per principal and in total, and idle bindings expire.
 */

import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type McpBackend, startMcpBackend } from '@gatehouse/mock-mcp'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  isBindableSessionId,
  MemorySessionBindings,
  principalOf,
} from '../../src/dataplane/session-binding.js'
import { startTinyIdp, type TinyIdp } from '../auth/tiny-idp.js'
import { startAuthedAndOpen } from '../authed-and-open.js'
import { simpleConfig, startTestGatehouse, type TestGatehouse } from '../helpers.js'

let idp: TinyIdp
let backend: McpBackend
let gh: TestGatehouse
/** The gateway whose route has the auth policy, and the one whose route to the same backend has none. */
let authed: string
let open: string

beforeAll(async () => {
  idp = await startTinyIdp()
  backend = await startMcpBackend()
  ;({ gh, authed, open } = await startAuthedAndOpen(idp, backend.port))
})
afterAll(async () => {
  await gh.stop('done')
  await backend.stop()
  await idp.stop()
})

/** An SDK client connected through `base`, with `token` when given. */
async function connect(base: string, token?: string) {
  const client = new Client({ name: 'session-binding-test', version: '0.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
    requestInit: token ? { headers: { authorization: `Bearer ${token}` } } : {},
  })
  await client.connect(transport)
  const session = transport.sessionId
  if (!session) throw new Error('the backend issued no session id')
  return { client, session }
}

/** A raw tools/list in `session`, as another client would send it. */
async function listTools(base: string, session: string, token?: string) {
  const res = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': session,
      'mcp-protocol-version': '2025-06-18',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
  })
  const text = await res.text()
  return { status: res.status, text }
}

describe('MCP session binding through the gateway', () => {
  it("answers 404 to bob's token on alice's session, and alice's session goes on", async () => {
    const alice = await connect(authed, await idp.sign({ sub: 'alice@example.com' }))
    const bob = await listTools(authed, alice.session, await idp.sign({ sub: 'bob@example.com' }))
    expect(bob.status).toBe(404)
    expect(JSON.parse(bob.text)).toMatchObject({
      error: 'session_not_found',
      error_description: expect.stringContaining('start a new session'),
    })
    // alice, with a fresh token of her own, is still served in her session.
    const again = await listTools(
      authed,
      alice.session,
      await idp.sign({ sub: 'alice@example.com' }),
    )
    expect(again.status).toBe(200)
    expect(again.text).toContain('echo')
    expect((await alice.client.listTools()).tools.length).toBeGreaterThan(0)
    await alice.client.close()
  })

  it("answers 404 to alice's session sent through a route without authentication", async () => {
    const alice = await connect(authed, await idp.sign({ sub: 'alice@example.com' }))
    expect((await listTools(open, alice.session)).status).toBe(404)
    await alice.client.close()
  })

  it('binds a session opened without authentication to "anonymous": a token holder cannot take it', async () => {
    const anon = await connect(open)
    expect((await listTools(open, anon.session)).status).toBe(200)
    const alice = await listTools(
      authed,
      anon.session,
      await idp.sign({ sub: 'alice@example.com' }),
    )
    expect(alice.status).toBe(404)
    await anon.client.close()
  })

  it('passes a session id the gateway never saw to the backend, whose 404 for it reaches the client', async () => {
    const r = await listTools(authed, 'made-up-session', await idp.sign())
    expect(r.status).toBe(404)
  })
})

describe('MCP session binding: ids a backend should not have issued', () => {
  it('binds no id that is not 1-1024 visible ASCII characters (MCP Transports), so its session is refused', async () => {
    let issue = ''
    let reached = 0
    const raw = createServer((req, res) => {
      req.resume()
      if (req.headers['mcp-session-id'] !== undefined) reached++
      res.writeHead(200, { 'mcp-session-id': issue, 'content-type': 'application/json' })
      res.end('{}')
    })
    await new Promise<void>((r) => raw.listen(0, '127.0.0.1', r))
    const g = await startTestGatehouse(simpleConfig((raw.address() as AddressInfo).port))
    try {
      for (const id of ['x'.repeat(1025), 'has space', 'ok-but-é'.normalize()]) {
        issue = id
        const opened = await fetch(`${g.url}/mcp`, { method: 'POST', body: '{}' })
        await opened.text()
        const next = await fetch(`${g.url}/mcp`, {
          method: 'POST',
          headers: { 'mcp-session-id': encodeURIComponent(id) === id ? id : 'x'.repeat(1025) },
          body: '{}',
        })
        await next.text()
        expect(next.status, id.slice(0, 20)).toBe(404)
      }
      expect(reached).toBe(0)
      expect(g.logs.some((l) => String(l.msg).includes('not 1-1024 visible ASCII'))).toBe(true)
    } finally {
      await g.stop('done')
      await new Promise((r) => raw.close(r))
    }
  })

  it('accepts a UUID and a JWT-shaped id; refuses empty, controls, spaces, non-ASCII and 1025 characters', () => {
    expect(isBindableSessionId('0b6e7a9c-4f1e-4d2a-9c3b-8a7f6e5d4c3b')).toBe(true)
    expect(isBindableSessionId(`eyJ${'a'.repeat(500)}.eyJ${'b'.repeat(400)}.sig`)).toBe(true)
    expect(isBindableSessionId('x'.repeat(1024))).toBe(true)
    for (const bad of ['', 'a b', 'a\tb', 'é', 'x'.repeat(1025)]) {
      expect(isBindableSessionId(bad), bad.slice(0, 10)).toBe(false)
    }
  })
})

describe('MemorySessionBindings', () => {
  const alice = principalOf({ iss: 'https://idp.example', sub: 'alice' })
  const bob = principalOf({ iss: 'https://idp.example', sub: 'bob' })

  it('names the principal by issuer and subject; no claims is anonymous', () => {
    expect(alice).not.toBe(bob)
    expect(principalOf({ iss: 'https://other.example', sub: 'alice' })).not.toBe(alice)
    expect(principalOf(undefined)).toBe('anonymous')
  })

  it('never moves a binding to another principal', async () => {
    const s = new MemorySessionBindings()
    expect(await s.bind('s1', alice)).toBe(alice)
    expect(await s.bind('s1', bob)).toBe(alice)
    expect(await s.owner('s1')).toBe(alice)
  })

  it('forgets a session unused for idleMs, and a use keeps it', async () => {
    let now = 0
    const s = new MemorySessionBindings({ idleMs: 1000, now: () => now })
    await s.bind('kept', alice)
    await s.bind('idle', alice)
    now = 900
    expect(await s.owner('kept')).toBe(alice)
    now = 1500
    expect(await s.owner('idle')).toBeUndefined()
    expect(await s.owner('kept')).toBe(alice)
  })

  it('holds at most maxPerPrincipal sessions of one principal: its least recently used goes first', async () => {
    const s = new MemorySessionBindings({ maxPerPrincipal: 2 })
    await s.bind('b1', bob)
    await s.bind('a1', alice)
    await s.bind('a2', alice)
    await s.owner('a1')
    await s.bind('a3', alice)
    expect(await s.owner('a2')).toBeUndefined()
    expect(await s.owner('a1')).toBe(alice)
    expect(await s.owner('a3')).toBe(alice)
    // Another principal's sessions are untouched by alice's churn.
    expect(await s.owner('b1')).toBe(bob)
  })

  it("refuses a new binding at maxSessions rather than evict another user's: many identities cannot push alice's session out and adopt it", async () => {
    const s = new MemorySessionBindings({ maxSessions: 100 })
    await s.bind('alice-session', alice)
    for (let i = 0; i < 1000; i++) await s.bind(`s${i}`, principalOf({ iss: 'i', sub: `u${i}` }))
    expect(s.size).toBe(100)
    expect(await s.owner('alice-session')).toBe(alice)
    // The attacker's later identities got no binding; the one that would adopt alice's id fails.
    expect(await s.bind('s999', bob)).toBeUndefined()
    expect(await s.bind('alice-session', bob)).toBe(alice)
  })

  it('makes room at maxSessions from idle sessions only', async () => {
    let now = 0
    const s = new MemorySessionBindings({ maxSessions: 2, idleMs: 1000, now: () => now })
    await s.bind('old', alice)
    now = 500
    await s.bind('recent', alice)
    expect(await s.bind('new', bob)).toBeUndefined()
    now = 1000
    expect(await s.bind('new', bob)).toBe(bob)
    expect(await s.owner('recent')).toBe(alice)
  })

  it('forgets a session that ended', async () => {
    const s = new MemorySessionBindings()
    await s.bind('s1', alice)
    await s.forget('s1')
    expect(await s.owner('s1')).toBeUndefined()
  })
})
