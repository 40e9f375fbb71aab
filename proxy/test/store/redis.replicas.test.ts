/**
 * Two gatehouse processes behind one issuer share a real redis-server (docs/design/stores.md): a client
 * authorizes on one replica (consent, the IdP's sign-in form, the callback) and redeems the code,
 * refreshes and calls the MCP route on the other; a client registered on one is known to the
 * other; a code redeemed on one cannot be replayed on the other.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type MockIdp, startMockIdp } from '@gatehouse/mock-idp'
import { initializeBody, type McpBackend, startMcpBackend } from '@gatehouse/mock-mcp'
import { freePort } from '@gatehouse/support'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { stringify } from 'yaml'
import { authConfig } from '../auth/config.js'
import { pkce, signInThroughBroker, TestBrowser } from '../broker/browser.js'
import { authorizationUrl, DEMO_CLIENT } from '../broker/stack.js'
import { type RedisServer, redisSkipReason, startRedisServer } from './redis-server.js'

const skip = redisSkipReason()
const GATEHOUSE = [
  '--import',
  createRequire(import.meta.url).resolve('tsx'),
  new URL('../../bin/gatehouse.ts', import.meta.url).pathname,
]
const SECRET = 'replicas-share-this-signing-secret-0123456789'

interface Replica {
  url: string
  child: ChildProcess
  output(): string
  stop(): Promise<void>
}

let redis: RedisServer
let idp: MockIdp
let backend: McpBackend
let a: Replica
let b: Replica
/** The issuer both replicas serve (replica a's address, as a load balancer's would be). */
let issuer: string
const dirs: string[] = []

/** Starts one gatehouse process; `resource(port)` is its configured resource. */
async function replica(resource: (port: number) => string): Promise<Replica> {
  let last = ''
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort()
    const config = authConfig({
      idpPort: idp.port,
      backendPort: backend.port,
      issuer: idp.issuer,
      resource: resource(port),
      broker: {
        secret: SECRET,
        store: { redis: { url: redis.url, keyPrefix: 'replicas:' } },
      },
    })
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-replica-'))
    dirs.push(dir)
    const file = join(dir, 'gatehouse.yaml')
    writeFileSync(
      file,
      stringify({
        ...config,
        config: { adminAddr: 'off' },
        gateways: { default: { port, address: '127.0.0.1' } },
      }),
    )
    const child = spawn(process.execPath, [...GATEHOUSE, '-f', file], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString()
    })
    child.stderr?.on('data', (c: Buffer) => {
      out += c.toString()
    })
    const started = await new Promise<boolean>((resolve) => {
      child.stdout?.on('data', () => {
        if (out.includes('gatehouse listening')) resolve(true)
      })
      child.once('exit', () => resolve(false))
    })
    if (started) {
      return {
        url: `http://127.0.0.1:${port}`,
        child,
        output: () => out,
        stop: async () => {
          if (child.exitCode !== null || child.signalCode !== null) return
          const exited = new Promise((r) => child.once('exit', r))
          child.kill('SIGTERM')
          await exited
        },
      }
    }
    // Lost the race for the port (EADDRINUSE): try another.
    last = out
  }
  throw new Error(`gatehouse did not start:\n${last.slice(-2000)}`)
}

beforeAll(async () => {
  if (skip) return
  redis = await startRedisServer()
  idp = await startMockIdp()
  backend = await startMcpBackend()
  a = await replica((port) => `http://127.0.0.1:${port}/mcp`)
  issuer = `${a.url}/mcp`
  b = await replica(() => issuer)
}, 60_000)

afterAll(async () => {
  await a?.stop()
  await b?.stop()
  await backend?.stop()
  await idp?.stop()
  await redis?.stop()
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

async function token(base: string, form: Record<string, string>) {
  const res = await fetch(`${base}/mcp/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  })
  return { status: res.status, body: (await res.json()) as Record<string, unknown> }
}

async function callMcp(base: string, accessToken: string): Promise<number> {
  const res = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${accessToken}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: initializeBody('replicas-test'),
  })
  await res.body?.cancel()
  return res.status
}

describe.skipIf(skip !== undefined)(
  `two gatehouse processes sharing Redis${skip ? ` (skipped: ${skip})` : ''}`,
  () => {
    it('authorizes on one replica and redeems the code, refreshes and calls MCP on the other', async () => {
      const { verifier, challenge } = pkce()
      const redirectUri = 'http://127.0.0.1:33418/callback'
      const url = authorizationUrl(
        { authorizeUrl: `${issuer}/oauth/authorize`, issuer },
        { state: 'replica-state', code_challenge: challenge, code_challenge_method: 'S256' },
      )
      const back = await signInThroughBroker(new TestBrowser(), url, 'alice', redirectUri)
      expect(back.searchParams.get('iss')).toBe(issuer)
      expect(back.searchParams.get('state')).toBe('replica-state')
      const code = back.searchParams.get('code') ?? ''
      const form = {
        grant_type: 'authorization_code',
        client_id: DEMO_CLIENT,
        code,
        redirect_uri: redirectUri,
        code_verifier: verifier,
      }
      const redeemed = await token(b.url, form)
      expect(redeemed.status, JSON.stringify(redeemed.body)).toBe(200)
      expect(await callMcp(b.url, String(redeemed.body.access_token))).toBe(200)
      // The refresh grant is shared: replica a rotates what replica b issued.
      const refreshed = await token(a.url, {
        grant_type: 'refresh_token',
        client_id: DEMO_CLIENT,
        refresh_token: String(redeemed.body.refresh_token),
      })
      expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200)
      expect(await callMcp(a.url, String(refreshed.body.access_token))).toBe(200)
      // The code is spent for every replica, and its replay on a revokes the grant on b too.
      expect((await token(a.url, form)).body.error).toBe('invalid_grant')
      const revoked = await token(b.url, {
        grant_type: 'refresh_token',
        client_id: DEMO_CLIENT,
        refresh_token: String(refreshed.body.refresh_token),
      })
      expect(revoked.body.error).toBe('invalid_grant')
    })

    it('knows on one replica a client registered on the other', async () => {
      const res = await fetch(`${a.url}/mcp/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          client_name: 'replicated',
          redirect_uris: ['http://127.0.0.1:44321/cb'],
          token_endpoint_auth_method: 'none',
        }),
      })
      expect(res.status).toBe(201)
      const { client_id: clientId } = (await res.json()) as { client_id: string }
      const { challenge } = pkce()
      const authorize = (redirectUri: string) =>
        fetch(
          authorizationUrl(
            { authorizeUrl: `${b.url}/mcp/oauth/authorize`, issuer },
            {
              client_id: clientId,
              redirect_uri: redirectUri,
              state: 's',
              code_challenge: challenge,
              code_challenge_method: 'S256',
            },
          ),
          { redirect: 'manual' },
        )
      // Replica b shows the consent page for the client a registered…
      const known = await authorize('http://127.0.0.1:44321/cb')
      expect(known.status).toBe(200)
      expect(await known.text()).toContain('replicated')
      // …and refuses a redirect URI the client did not register, without redirecting.
      const unknown = await authorize('http://127.0.0.1:44321/other')
      expect(unknown.status).toBe(400)
      await unknown.body?.cancel()
    })

    it('answers 503 with Retry-After on a replica whose Redis is gone, and keeps running', async () => {
      // Checked last: stops the shared server.
      await redis.stop()
      const res = await fetch(`${b.url}/mcp/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          redirect_uris: ['http://127.0.0.1:1/cb'],
          token_endpoint_auth_method: 'none',
        }),
      })
      expect(res.status).toBe(503)
      expect(res.headers.get('retry-after')).toBe('5')
      const body = (await res.json()) as { error: string; error_description: string }
      expect(body.error).toBe('temporarily_unavailable')
      expect(body.error_description).toMatch(/state store is not available/)
      expect(b.child.exitCode).toBeNull()
    })
  },
)
