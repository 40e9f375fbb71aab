/**
 * A gatehouse process restarted mid-flow keeps its broker state in a store that persists: on the
 * SQLite store (a file) and on Redis, a client registered before a restart redeems a code after
 * it, a code issued before a restart is redeemed after it, a refresh token issued before a
 * restart refreshes after it, and a consent page shown before a restart is answered after it
 * (not "CSRF check failed": the broker's key is kept in the file). Real processes: mock-idp, the
 * MCP backend, redis-server, and gatehouse as a child process stopped with SIGTERM and started
 * again on the same port.
 *
 * The same on the default store (no `store` block: SQLite in `.gatehouse/state.sqlite` beside
 * the configuration file), which is what `npm start` and a plain `gatehouse -f` run.
 *
 * The SQLite store needs node:sqlite (Node 22.5+): on an older Node the gatehouse child runs on
 * the repository's Node 22 package (ci/node-lts.ts), or the SQLite case is skipped saying so.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type MockIdp, startMockIdp } from '@gatehouse/mock-idp'
import { initializeBody, type McpBackend, startMcpBackend } from '@gatehouse/mock-mcp'
import {
  freePort,
  gatehouseConfig,
  type Launched,
  launchGatehouse,
  writeGatehouseConfig,
} from '@gatehouse/support'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ltsNodeBinary, ltsNodes } from '../../../ci/node-lts.js'
import { sqliteAvailable } from '../../src/store/sqlite-file.js'
import { authConfig } from '../auth/config.js'
import { type RedisServer, redisSkipReason, startRedisServer } from '../store/redis-server.js'
import { pkce, signInThroughBroker, TestBrowser } from './browser.js'
import { authorizationUrl } from './stack.js'

const REDIRECT = 'http://127.0.0.1:33418/callback'

/** A Node.js with node:sqlite: this one, else the repository's Node 22 package. */
function sqliteNode(): string | undefined {
  if (sqliteAvailable()) return process.execPath
  const lts = ltsNodes().find((n) => n.major >= 22)
  const binary = lts && ltsNodeBinary(lts)
  return binary && existsSync(binary) ? binary : undefined
}

let idp: MockIdp
let backend: McpBackend
const dirs: string[] = []

beforeAll(async () => {
  idp = await startMockIdp({
    users: [
      { login: 'alice', name: 'Alice Example', groups: ['AI-Users', 'Everyone'] },
      { login: 'bob', name: 'Bob Example', groups: ['Everyone'] },
      // Allowed on the route like alice: the one who tries her session.
      { login: 'mallory', name: 'Mallory Example', groups: ['AI-Users'] },
    ],
  })
  backend = await startMcpBackend()
}, 60_000)
afterAll(async () => {
  await backend?.stop()
  await idp?.stop()
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

/** One gatehouse, restartable on its port with the same configuration file. */
class Gatehouse {
  readonly issuer: string
  #process: Launched | undefined

  constructor(
    readonly node: string,
    readonly port: number,
    readonly file: string,
  ) {
    this.issuer = `http://127.0.0.1:${port}/mcp`
  }

  async start(): Promise<void> {
    this.#process = await launchGatehouse(this.file, { node: this.node })
  }

  async stop(): Promise<void> {
    await this.#process?.stop()
  }

  async restart(): Promise<void> {
    await this.stop()
    await this.start()
  }

  output(): string {
    return this.#process?.output() ?? ''
  }
}

async function gatehouse(
  node: string,
  store: Record<string, unknown> | undefined,
  secret?: string,
) {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-restart-'))
  dirs.push(dir)
  const port = await freePort()
  const config = authConfig({
    idpPort: idp.port,
    backendPort: backend.port,
    issuer: idp.issuer,
    resource: `http://127.0.0.1:${port}/mcp`,
    broker: { ...(store ? { store } : {}), ...(secret ? { secret } : {}) },
  })
  const file = writeGatehouseConfig(gatehouseConfig({ ...config, port }), dir)
  const gh = new Gatehouse(node, port, file)
  await gh.start()
  return { gh, dir }
}

async function post(url: string, body: Record<string, string> | object, json = false) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': json ? 'application/json' : 'application/x-www-form-urlencoded' },
    body: json ? JSON.stringify(body) : new URLSearchParams(body as Record<string, string>),
  })
  return { status: res.status, body: (await res.json()) as Record<string, unknown> }
}

/** Signs `login` in through the broker with the demo client; returns the access token. */
async function signIn(gh: Gatehouse, login: string): Promise<string> {
  const { verifier, challenge } = pkce()
  const url = authorizationUrl(
    { authorizeUrl: `${gh.issuer}/oauth/authorize`, issuer: gh.issuer },
    { state: 'st', code_challenge: challenge, code_challenge_method: 'S256' },
  )
  const back = await signInThroughBroker(new TestBrowser(), url, login, REDIRECT)
  const redeemed = await post(`${gh.issuer}/oauth/token`, {
    grant_type: 'authorization_code',
    client_id: 'gatehouse-demo-client',
    code: back.searchParams.get('code') ?? '',
    redirect_uri: REDIRECT,
    code_verifier: verifier,
  })
  expect(redeemed.status, JSON.stringify(redeemed.body)).toBe(200)
  return String(redeemed.body.access_token)
}

/** An MCP request through the gateway; returns the status and the session id it issued. */
async function mcp(gh: Gatehouse, token: string, session?: string) {
  const res = await fetch(gh.issuer, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(session ? { 'mcp-session-id': session } : {}),
    },
    body: session
      ? JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} })
      : initializeBody('restart-test'),
  })
  await res.body?.cancel()
  return { status: res.status, session: res.headers.get('mcp-session-id') }
}

/** The restart cases, on a gatehouse whose store persists. */
function restartCases(open: () => Promise<Gatehouse>) {
  let gh: Gatehouse
  beforeAll(async () => {
    gh = await open()
  }, 60_000)
  afterAll(async () => {
    await gh?.stop()
  })

  it('redeems a code after restarts between registration, sign-in and redemption', async () => {
    const reg = await post(
      `${gh.issuer}/oauth/register`,
      { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' },
      true,
    )
    expect(reg.status).toBe(201)
    const clientId = String(reg.body.client_id)
    await gh.restart()
    const { verifier, challenge } = pkce()
    const url = authorizationUrl(
      { authorizeUrl: `${gh.issuer}/oauth/authorize`, issuer: gh.issuer },
      {
        client_id: clientId,
        state: 'st',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      },
    )
    const back = await signInThroughBroker(new TestBrowser(), url, 'alice', REDIRECT)
    const code = back.searchParams.get('code')
    expect(code, back.toString()).toBeTruthy()
    await gh.restart()
    const redeemed = await post(`${gh.issuer}/oauth/token`, {
      grant_type: 'authorization_code',
      client_id: clientId,
      code: String(code),
      redirect_uri: REDIRECT,
      code_verifier: verifier,
    })
    expect(redeemed.status, JSON.stringify(redeemed.body)).toBe(200)
    expect(typeof redeemed.body.access_token).toBe('string')
  }, 120_000)

  it('refreshes after a restart between sign-in and refresh', async () => {
    const { verifier, challenge } = pkce()
    const url = authorizationUrl(
      { authorizeUrl: `${gh.issuer}/oauth/authorize`, issuer: gh.issuer },
      { state: 'st', code_challenge: challenge, code_challenge_method: 'S256' },
    )
    const back = await signInThroughBroker(new TestBrowser(), url, 'bob', REDIRECT)
    const redeemed = await post(`${gh.issuer}/oauth/token`, {
      grant_type: 'authorization_code',
      client_id: 'gatehouse-demo-client',
      code: back.searchParams.get('code') ?? '',
      redirect_uri: REDIRECT,
      code_verifier: verifier,
    })
    expect(redeemed.status, JSON.stringify(redeemed.body)).toBe(200)
    expect(typeof redeemed.body.refresh_token).toBe('string')
    await gh.restart()
    const refreshed = await post(`${gh.issuer}/oauth/token`, {
      grant_type: 'refresh_token',
      client_id: 'gatehouse-demo-client',
      refresh_token: String(redeemed.body.refresh_token),
    })
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200)
    expect(typeof refreshed.body.access_token).toBe('string')
  }, 120_000)

  it("keeps alice's MCP session bound to her across a restart: mallory's token on it gets 404, hers goes on", async () => {
    const alice = await signIn(gh, 'alice')
    const mallory = await signIn(gh, 'mallory')
    const opened = await mcp(gh, alice)
    expect(opened.status).toBe(200)
    expect(opened.session).toBeTruthy()
    await gh.restart()
    // The backend still holds the session: without the binding, mallory would be served in it.
    expect((await mcp(gh, mallory, String(opened.session))).status).toBe(404)
    expect((await mcp(gh, alice, String(opened.session))).status).toBe(200)
  }, 120_000)

  it('answers a consent page submitted after a restart (no CSRF failure)', async () => {
    const browser = new TestBrowser()
    const url = authorizationUrl(
      { authorizeUrl: `${gh.issuer}/oauth/authorize`, issuer: gh.issuer },
      { state: 'st', code_challenge: pkce().challenge, code_challenge_method: 'S256' },
    )
    const consentPage = await browser.follow(url)
    expect(consentPage.text).toContain('name="decision"')
    await gh.restart()
    const next = await browser.submit(consentPage, { decision: 'approve' })
    expect(next.text).not.toMatch(/CSRF check failed|Consent expired/)
    // On to the IdP's sign-in form.
    expect(next.text).toContain('name="login"')
  }, 120_000)
}

const node = sqliteNode()
const sqliteSkip = node
  ? undefined
  : `node:sqlite needs Node.js 22.5+ (this is ${process.version}) and the repository's Node 22 package is not installed (npm ci)`

describe.skipIf(sqliteSkip !== undefined)(
  `gatehouse restarted on the SQLite store${sqliteSkip ? ` (skipped: ${sqliteSkip})` : ''}`,
  () => {
    restartCases(async () => {
      const path = join(mkdtempSync(join(tmpdir(), 'gatehouse-restart-db-')), 'state.db')
      dirs.push(path.replace(/\/state\.db$/, ''))
      return (await gatehouse(node as string, { sqlite: { path } })).gh
    })
  },
)

describe.skipIf(sqliteSkip !== undefined)(
  `gatehouse restarted on the default store (no store configured: SQLite beside the configuration)${sqliteSkip ? ` (skipped: ${sqliteSkip})` : ''}`,
  () => {
    let dir = ''
    restartCases(async () => {
      const started = await gatehouse(node as string, undefined)
      dir = started.dir
      return started.gh
    })

    it('keeps the state in .gatehouse/state.sqlite beside the configuration file, 0600', () => {
      const file = join(dir, '.gatehouse', 'state.sqlite')
      expect(existsSync(file)).toBe(true)
      expect(statSync(file).mode & 0o777).toBe(0o600)
    })
  },
)

const redisSkip = redisSkipReason()
describe.skipIf(redisSkip !== undefined)(
  `gatehouse restarted on the Redis store${redisSkip ? ` (skipped: ${redisSkip})` : ''}`,
  () => {
    let redis: RedisServer
    afterAll(async () => {
      await redis?.stop()
    })
    restartCases(async () => {
      redis = await startRedisServer()
      return (
        await gatehouse(
          process.execPath,
          { redis: { url: redis.url, keyPrefix: 'restart:' } },
          'restart-tests-share-this-signing-secret-0123',
        )
      ).gh
    })
  },
)
