/**
 * docs/design/hardening.md, attacked: MCP sessions bound to the user under load. bob fires concurrent
 * requests on alice's session, and floods the gateway with sessions of his own (past the
 * per-principal bound) and through a route without authentication; alice's session is never
 * served to him, and stays hers. The backend issues a fresh session id for every request without
 * one, and records every request that names a session, so "never served" is checked where it
 * matters: at the backend.
 */
import { randomUUID } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTinyIdp, type TinyIdp } from '../auth/tiny-idp.js'
import { startAuthedAndOpen } from '../authed-and-open.js'
import type { TestGatehouse } from '../helpers.js'

let idp: TinyIdp
let backend: Server
let gh: TestGatehouse
let authed: string
let open: string
/** Requests the backend got that named a session: `session` → how many. */
const served = new Map<string, number>()

beforeAll(async () => {
  idp = await startTinyIdp()
  backend = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      const session = req.headers['mcp-session-id']
      if (typeof session === 'string') served.set(session, (served.get(session) ?? 0) + 1)
      res.writeHead(200, {
        'content-type': 'application/json',
        ...(session === undefined ? { 'mcp-session-id': randomUUID() } : {}),
      })
      res.end('{"jsonrpc":"2.0","id":1,"result":{}}')
    })
  })
  await new Promise<void>((r) => backend.listen(0, '127.0.0.1', r))
  const backendPort = (backend.address() as AddressInfo).port
  ;({ gh, authed, open } = await startAuthedAndOpen(idp, backendPort))
})
afterAll(async () => {
  await gh.stop('done')
  await new Promise((r) => backend.close(r))
  await idp.stop()
})

/** POSTs through `base`; returns the status and the session id the answer carries. */
async function post(base: string, options: { token?: string; session?: string } = {}) {
  const res = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...(options.session ? { 'mcp-session-id': options.session } : {}),
    },
    body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
  })
  await res.arrayBuffer()
  return { status: res.status, session: res.headers.get('mcp-session-id') ?? undefined }
}

/** Runs `n` tasks, `width` at a time. */
async function inParallel(n: number, width: number, task: (i: number) => Promise<void>) {
  let next = 0
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) await task(next++)
    }),
  )
}

describe('MCP session binding under attack', () => {
  it("never serves alice's session to bob: 200 concurrent tries, then 1,100 sessions of his own and 1,100 anonymous ones", async () => {
    const alice = await idp.sign({ sub: 'alice@example.com' })
    const bob = await idp.sign({ sub: 'bob@example.com' })
    const opened = await post(authed, { token: alice })
    expect(opened.status).toBe(200)
    const session = opened.session ?? ''
    expect(session).not.toBe('')
    expect((await post(authed, { token: alice, session })).status).toBe(200)
    expect(served.get(session)).toBe(1)

    const statuses: number[] = []
    await inParallel(200, 50, async () => {
      statuses.push((await post(authed, { token: bob, session })).status)
    })
    expect(new Set(statuses)).toEqual(new Set([404]))

    // Past the per-principal bound (1,000): bob's oldest bindings go, alice's stays.
    const bobs: string[] = []
    await inParallel(1100, 20, async () => {
      const r = await post(authed, { token: bob })
      if (r.session) bobs.push(r.session)
    })
    const anonymous: string[] = []
    await inParallel(1100, 20, async () => {
      const r = await post(open)
      if (r.session) anonymous.push(r.session)
    })
    expect(bobs).toHaveLength(1100)
    // His evicted oldest is nobody's binding any more: the backend still holds it, so it is
    // bound to him again (the first principal served in it) — never to someone else.
    expect((await post(authed, { token: bob, session: bobs[0] })).status).toBe(200)
    expect((await post(authed, { token: alice, session: bobs[0] })).status).toBe(404)
    expect((await post(authed, { token: bob, session: bobs.at(-1) })).status).toBe(200)
    expect((await post(open, { session: anonymous.at(-1) })).status).toBe(200)
    expect((await post(open, { session })).status).toBe(404)

    // alice's session: still hers, and the backend served it to nobody else.
    expect((await post(authed, { token: alice, session })).status).toBe(200)
    expect(served.get(session)).toBe(2)
  }, 120_000)
})
