#!/usr/bin/env node
/**
 * A hand-written MCP client with OAuth (fetch only, no SDK), written to pass every client-mode
 * scenario — and, with `--fault <name>`, to make exactly one mistake, so each client check is
 * shown to catch the mistake it names (conformance/test/client/clients.test.ts). The official
 * conformance suite's calling convention: server URL last, `MCP_CONFORMANCE_SCENARIO` and
 * `MCP_CONFORMANCE_CONTEXT` in the environment.
 */
import { createHash, randomBytes } from 'node:crypto'

/** The mistakes this client can make, one at a time (clients.test.ts: which check catches each). */
const FAULTS = [
  'no-pkce',
  'plain-pkce',
  'reused-verifier',
  'static-state',
  'ignore-resource-metadata',
  'root-prm-first',
  'oidc-first',
  'register-at-idp',
  'dcr-despite-preregistered',
  'no-cimd',
  'no-resource',
  'redirect-mismatch',
  'wrong-initial-scope',
  'token-in-query',
  'token-to-idp',
  'no-state-check',
  'no-iss-check',
  'no-issuer-check',
  'guessed-metadata',
  'wrong-resource',
  'fake-client-id',
  'no-resource-check',
  'step-up-wrong-scope',
  'unlimited-step-up',
  'no-refresh',
  'exit-1',
  'hang-on-refusal',
  'ignore-client-secret',
  'both-auth-methods',
  'no-client-id',
  'no-legacy-fallback',
  'skip-legacy-metadata',
  'keep-issuer-slash',
  'issuer-without-slash',
  'authorize-at-issuer',
  'token-at-issuer',
  // 2026-07-28 (when MCP_CONFORMANCE_PROTOCOL_VERSION says so, unless noted)
  'accept-missing-iss',
  'iss-only-when-advertised',
  'no-application-type',
  'web-application-type',
  'reuse-client-across-as',
  'stale-as-metadata',
  'no-refresh-grant-type',
  'no-version-header',
  'version-header-mismatch',
  'no-mcp-method',
  'no-meta',
  // judge fixes: a client that never signs in; one that forgets the resource_metadata URL; one
  // that refuses a token endpoint on another origin than its authorization-server metadata
  'no-sign-in',
  'forget-resource-metadata',
  'same-origin-token-endpoint',
] as const
type Fault = (typeof FAULTS)[number]

const argv = process.argv.slice(2)
const fault = (argv.includes('--fault') ? argv[argv.indexOf('--fault') + 1] : undefined) as
  | Fault
  | undefined
if (fault !== undefined && !FAULTS.includes(fault)) {
  process.stderr.write(`hand-client: unknown fault "${fault}"; faults are ${FAULTS.join(', ')}\n`)
  process.exit(2)
}
const serverUrl = new URL(argv.at(-1) ?? '')
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as Record<string, string>
/** Its own redirect URI and metadata document URL when given (HAND_REDIRECT_URI, HAND_CIMD_URL). */
const REDIRECT = process.env.HAND_REDIRECT_URI ?? 'http://127.0.0.1:3000/callback'
const CIMD_URL = process.env.HAND_CIMD_URL ?? 'https://conformance-test.local/client-metadata.json'
const has = (f: Fault) => fault === f
/**
 * MCP 2026-07-28 when the harness says so (the official suite's convention): no initialize, every
 * request with `_meta` and the request metadata headers; registration names application_type;
 * a refused token sends it back to the protected-resource metadata, and a new authorization
 * server there means a new registration (credentials keyed by issuer).
 */
const MODERN = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION === '2026-07-28'
/**
 * Not a fault: GET each authorization URL once before the "browser" does, as mcp-remote probes a
 * cached registration. The same request twice must not be judged as state or challenge reuse.
 */
const PROBE = argv.includes('--probe-authorization')
/**
 * Not a fault: read the authorization-server metadata it found once more, as the Inspector CLI
 * 2.12 does. A second read of a document that answered is no attempt out of the spec's order.
 */
const REFETCH = argv.includes('--refetch-metadata')
const b64 = (n: number) => randomBytes(n).toString('base64url')

type Json = Record<string, unknown>
let prm: Json | undefined
let meta: Json | undefined
/** The origin the authorization-server metadata was fetched from. */
let metaOrigin: string | undefined
let client:
  | { id: string; secret?: string; method?: 'client_secret_basic' | 'client_secret_post' }
  | undefined
/** Client credentials by the issuer of the authorization server that issued them. */
const clients = new Map<string, NonNullable<typeof client>>()
let accessToken: string | undefined
let refreshToken: string | undefined
let firstVerifier: string | undefined
let authorizations = 0
let sessionId: string | undefined

/** GET/POST with the access token sent along to the IdP too, for the token-to-idp fault. */
function idpFetch(url: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers)
  if (has('token-to-idp') && accessToken) headers.set('authorization', `Bearer ${accessToken}`)
  return fetch(url, { ...init, headers, redirect: 'manual' })
}

async function getJson(url: string): Promise<Json | undefined> {
  const res = await fetch(url)
  return res.ok ? ((await res.json()) as Json) : undefined
}

/** Challenge parameters of a `WWW-Authenticate: Bearer …` header. */
function challenge(res: Response): Record<string, string> {
  const out: Record<string, string> = {}
  for (const m of (res.headers.get('www-authenticate') ?? '').matchAll(/([a-z_]+)="([^"]*)"/gi))
    out[m[1] ?? ''] = m[2] ?? ''
  return out
}

/** RFC 9728 and RFC 8414 / OIDC discovery, in the spec's order (unless a fault says otherwise). */
async function discover(params: Record<string, string>): Promise<void> {
  if (has('guessed-metadata')) {
    // No protected-resource metadata: the AS metadata is guessed at the MCP server's own origin.
    meta = await getJson(
      `${serverUrl.origin}/.well-known/oauth-authorization-server${serverUrl.pathname}`,
    )
    if (!meta) throw new Error('no authorization-server metadata at the guessed URL')
    prm = { resource: serverUrl.href, scopes_supported: [] }
    return
  }
  const path = `${serverUrl.origin}/.well-known/oauth-protected-resource${serverUrl.pathname}`
  const root = `${serverUrl.origin}/.well-known/oauth-protected-resource`
  // forget-resource-metadata: the URL the challenge names is fetched, then not kept: discovery goes
  // on by the well-known URIs and, finding none, takes the MCP server's origin as authorization
  // server (the 2025-03-26 fallback).
  if (has('forget-resource-metadata') && params.resource_metadata)
    await getJson(params.resource_metadata)
  const named =
    has('ignore-resource-metadata') || has('forget-resource-metadata')
      ? undefined
      : params.resource_metadata
  const order = named ? [named] : has('root-prm-first') ? [root, path] : [path, root]
  let fetchedFrom: string | undefined
  for (const url of order) {
    prm = await getJson(url)
    fetchedFrom = url
    if (prm) break
  }
  if (!prm && !has('no-legacy-fallback')) {
    // A 2025-03-26 server (MCP 2025-03-26, Server Metadata Discovery): the authorization base URL
    // is the server's origin; RFC 8414 metadata there, else the default endpoints.
    const base = serverUrl.origin
    meta = has('skip-legacy-metadata')
      ? undefined
      : await getJson(`${base}/.well-known/oauth-authorization-server`)
    meta ??= {
      issuer: base,
      authorization_endpoint: `${base}/authorize`,
      token_endpoint: `${base}/token`,
      registration_endpoint: `${base}/register`,
    }
    if (meta.issuer !== base)
      throw new Error(`authorization-server metadata refused: issuer ${meta.issuer} is not ${base}`)
    prm = { resource: serverUrl.href, authorization_servers: [base], scopes_supported: [] }
    return
  }
  if (!prm) throw new Error('no protected-resource metadata found')
  // RFC 9728 §3.3: metadata of another resource MUST NOT be used. The identifier the root form
  // was built from is the origin, so there the origin is the resource too (as the official
  // suite's auth/metadata-var2 serves it); the resource parameter is then what PRM names.
  const fromRoot = fetchedFrom === root
  const identifiers = fromRoot
    ? [serverUrl.href, serverUrl.origin, `${serverUrl.origin}/`]
    : [serverUrl.href]
  if (!has('no-resource-check') && !identifiers.includes(String(prm.resource)))
    throw new Error(
      `protected-resource metadata refused: resource ${prm.resource} is not ${identifiers.join(' or ')}`,
    )
  const issuer = new URL(String((prm.authorization_servers as string[])[0]))
  // RFC 8414 §3.1: any terminating "/" MUST be removed before inserting "/.well-known/".
  const p = has('keep-issuer-slash') ? issuer.pathname : issuer.pathname.replace(/\/$/, '')
  let candidates = p
    ? [
        `${issuer.origin}/.well-known/oauth-authorization-server${p}`,
        `${issuer.origin}/.well-known/openid-configuration${p}`,
        `${issuer.origin}${p}/.well-known/openid-configuration`,
      ]
    : [
        `${issuer.origin}/.well-known/oauth-authorization-server`,
        `${issuer.origin}/.well-known/openid-configuration`,
      ]
  if (has('oidc-first')) candidates = [...candidates].reverse()
  for (const url of candidates) {
    meta = await getJson(url)
    metaOrigin = new URL(url).origin
    if (meta && REFETCH) meta = await getJson(url)
    if (meta) break
  }
  if (!meta) throw new Error('no authorization-server metadata found')
  // RFC 8414 §3.3: metadata whose issuer is not the identifier it was derived from MUST NOT be used.
  // The identifier exactly as PRM states it (a terminating "/" included): compared as a string.
  const stated = String((prm.authorization_servers as string[])[0])
  const derived = has('issuer-without-slash') ? stated.replace(/\/$/, '') : stated
  if (!has('no-issuer-check') && meta.issuer !== derived)
    throw new Error(
      `authorization-server metadata refused: issuer ${meta.issuer} is not ${derived}`,
    )
}

/** The client id: pre-registered, a metadata document URL, or dynamic registration. */
async function register(): Promise<void> {
  if (!meta) return
  // MCP 2026-07-28 Authorization Server Binding: credentials are the issuer's, never another's.
  client ??= clients.get(String(meta.issuer))
  if (client) return
  if (has('fake-client-id')) {
    client = { id: 'conformance-fake-client' }
    return
  }
  if (context.client_id && !has('dcr-despite-preregistered')) {
    client = {
      id: context.client_id,
      ...(context.client_secret ? { secret: context.client_secret } : {}),
    }
    return
  }
  if (meta.client_id_metadata_document_supported === true && !has('no-cimd')) {
    client = { id: CIMD_URL }
    return
  }
  const endpoint = has('register-at-idp')
    ? `${new URL(String(meta.authorization_endpoint)).origin}/oauth2/v1/clients`
    : String(meta.registration_endpoint)
  // A public client where the server allows one; else the method its metadata lists (RFC 8414 §2).
  const supported = meta.token_endpoint_auth_methods_supported as string[] | undefined
  const asked =
    !supported || supported.includes('none')
      ? 'none'
      : supported.includes('client_secret_basic')
        ? 'client_secret_basic'
        : 'client_secret_post'
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'hand-written conformance client',
      redirect_uris: [REDIRECT],
      grant_types: has('no-refresh-grant-type')
        ? ['authorization_code']
        : ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: asked,
      // MCP 2026-07-28 Client Registration: a loopback redirect URI makes a native application.
      ...(MODERN && !has('no-application-type')
        ? { application_type: has('web-application-type') ? 'web' : 'native' }
        : {}),
    }),
  })
  if (res.status !== 201) throw new Error(`registration failed: HTTP ${res.status}`)
  // RFC 7591 §3.2.1: the server may replace what was asked; the answer is what holds.
  const issued = (await res.json()) as Json
  const method = issued.token_endpoint_auth_method ?? asked
  client = {
    id: String(issued.client_id),
    ...(typeof issued.client_secret === 'string' && !has('ignore-client-secret')
      ? { secret: issued.client_secret }
      : {}),
    ...(method === 'client_secret_post' ? { method: 'client_secret_post' as const } : {}),
  }
  clients.set(String(meta.issuer), client)
}

/** The RFC 8707 resource: PRM's, or (fault) the server's origin instead of the MCP endpoint. */
const resourceParam = () => (has('wrong-resource') ? serverUrl.origin : String(prm?.resource))

/** The token endpoint, with the client's authentication. */
async function token(form: Record<string, string>): Promise<void> {
  if (!meta || !client) throw new Error('not discovered')
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' }
  const body = new URLSearchParams(form)
  if (client.secret && client.method === 'client_secret_post') {
    body.set('client_id', client.id)
    body.set('client_secret', client.secret)
  }
  if (client.secret && (client.method !== 'client_secret_post' || has('both-auth-methods'))) {
    headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(client.id)}:${encodeURIComponent(client.secret)}`).toString('base64')}`
  }
  if (!client.secret && !has('no-client-id')) body.set('client_id', client.id)
  if (!has('no-resource')) body.set('resource', resourceParam())
  // RFC 8414 §2: the metadata names the token endpoint, which may be on another host.
  const named = String(meta.token_endpoint)
  const endpoint = has('token-at-issuer')
    ? `${new URL(String(meta.issuer)).origin}${new URL(named).pathname}`
    : named
  if (has('same-origin-token-endpoint') && metaOrigin && new URL(endpoint).origin !== metaOrigin)
    throw new Error(
      `refusing to send the code to ${endpoint}: not on the origin of the authorization-server metadata (${metaOrigin})`,
    )
  const res = await idpFetch(endpoint, { method: 'POST', headers, body })
  const json = (await res.json()) as Json
  if (!res.ok) throw new Error(`token endpoint: ${json.error} ${json.error_description ?? ''}`)
  accessToken = String(json.access_token)
  if (typeof json.refresh_token === 'string') refreshToken = json.refresh_token
}

/** One authorization-code flow with PKCE; the "browser" is one GET and its Location. */
async function authorize(scope: string): Promise<void> {
  if (!meta || !client) throw new Error('not discovered')
  if (has('no-sign-in')) throw new Error('cannot open a browser to sign the user in')
  authorizations++
  const verifier = has('reused-verifier') && firstVerifier ? firstVerifier : b64(32)
  firstVerifier ??= verifier
  const state = has('static-state') ? 'state' : b64(32)
  // RFC 8414 §2: the metadata names the authorization endpoint, on any path.
  const url = new URL(
    has('authorize-at-issuer')
      ? `${String(meta.issuer).replace(/\/$/, '')}/authorize`
      : String(meta.authorization_endpoint),
  )
  const params: Record<string, string> = {
    response_type: 'code',
    client_id: client.id,
    redirect_uri: REDIRECT,
    scope,
    state,
  }
  if (!has('no-pkce')) {
    const plain = has('plain-pkce')
    params.code_challenge = plain
      ? verifier
      : createHash('sha256').update(verifier).digest('base64url')
    params.code_challenge_method = plain ? 'plain' : 'S256'
  }
  if (!has('no-resource')) params.resource = resourceParam()
  if (scope.split(' ').includes('offline_access')) params.prompt = 'consent'
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v)
  if (PROBE) await (await idpFetch(url.href)).body?.cancel()
  const res = await idpFetch(url.href)
  const location = res.headers.get('location')
  if (location === null)
    throw new Error(
      `authorization endpoint ${url.origin}${url.pathname}: HTTP ${res.status}, no redirect`,
    )
  const back = new URL(location)
  if (!has('no-state-check') && back.searchParams.get('state') !== state)
    throw new Error('state mismatch')
  const iss = back.searchParams.get('iss')
  const advertised = meta.authorization_response_iss_parameter_supported === true
  // RFC 9207 §2.4, MCP 2026-07-28 Authorization Response Validation: a present iss is compared
  // whether advertised or not; an advertised one must be present.
  if (
    !has('no-iss-check') &&
    iss !== null &&
    (advertised || !has('iss-only-when-advertised')) &&
    iss !== meta.issuer
  )
    throw new Error(`iss ${iss} is not ${meta.issuer}`)
  if (advertised && iss === null && !has('accept-missing-iss'))
    throw new Error('the authorization response carries no iss, which the server advertises')
  const code = back.searchParams.get('code')
  if (!code)
    throw new Error(`authorization failed: ${back.searchParams.get('error') ?? res.status}`)
  await token({
    grant_type: 'authorization_code',
    code,
    redirect_uri: has('redirect-mismatch') ? `${REDIRECT}/` : REDIRECT,
    code_verifier: verifier,
  })
}

/** A JSON-RPC message to the MCP endpoint (the answer: JSON or one SSE event). */
async function send(message: Json): Promise<Response> {
  const url = new URL(serverUrl)
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  }
  if (accessToken) {
    if (has('token-in-query')) url.searchParams.set('access_token', accessToken)
    else headers.authorization = `Bearer ${accessToken}`
  }
  if (sessionId) headers['mcp-session-id'] = sessionId
  if (MODERN) {
    const params = (message.params ?? {}) as Json
    const version = has('version-header-mismatch') ? '2025-11-25' : '2026-07-28'
    if (!has('no-version-header')) headers['mcp-protocol-version'] = version
    if (!has('no-mcp-method')) headers['mcp-method'] = String(message.method)
    const name = message.method === 'resources/read' ? params.uri : params.name
    if (name !== undefined && !has('no-mcp-method')) headers['mcp-name'] = String(name)
  }
  return fetch(url, { method: 'POST', headers, body: JSON.stringify(message) })
}

/** Sends, handling 401 (discover, register, authorize or refresh) and 403 step-up. */
async function call(message: Json): Promise<Json | undefined> {
  const limit = has('unlimited-step-up') ? 50 : 3
  let refreshed = false
  for (;;) {
    const res = await send(message)
    if (res.ok) {
      sessionId = res.headers.get('mcp-session-id') ?? sessionId
      const text = await res.text()
      if (!text) return undefined
      // The first event with data: a 2025-11-25 server may open the stream with a priming
      // event (an id, empty data) that a client skips (MCP 2025-11-25 Transports).
      const data = text.startsWith('{') ? text : (/^data: ?(\S.*)$/m.exec(text)?.[1] ?? '{}')
      return JSON.parse(data) as Json
    }
    const params = challenge(res)
    await res.body?.cancel()
    if (res.status === 401 && accessToken && refreshToken && !refreshed && !has('no-refresh')) {
      refreshed = true
      await token({ grant_type: 'refresh_token', refresh_token: refreshToken })
      continue
    }
    if (res.status !== 401 && !(res.status === 403 && params.error === 'insufficient_scope'))
      throw new Error(`MCP request refused: HTTP ${res.status}`)
    if (authorizations >= limit) throw new Error(`gave up after ${authorizations} authorizations`)
    if (MODERN && accessToken && res.status === 401) {
      // A refused token: the protected resource may name another authorization server now
      // (MCP 2026-07-28 Authorization Server Binding: "detected via updated protected resource
      // metadata"); its credentials are looked up by issuer, or registered anew.
      const was = meta
      meta = undefined
      await discover(params)
      if (has('stale-as-metadata')) meta = was
      // discover() set it: TypeScript cannot see that through the call.
      else if ((meta as Json | undefined)?.issuer !== was?.issuer && !has('reuse-client-across-as'))
        client = undefined
    }
    if (!meta) await discover(params)
    await register()
    const supported = ((prm?.scopes_supported as string[] | undefined) ?? []).join(' ')
    const scope =
      res.status === 403
        ? has('step-up-wrong-scope')
          ? supported
          : (params.scope ?? supported)
        : has('wrong-initial-scope')
          ? 'openid'
          : (params.scope ?? supported)
    // MCP 2026-07-28 Refresh Tokens: "MAY add offline_access … when the Authorization Server
    // metadata contains it in scopes_supported" — this client wants refresh tokens.
    const offline =
      MODERN &&
      (meta?.scopes_supported as string[] | undefined)?.includes('offline_access') &&
      !scope.split(' ').includes('offline_access')
    await authorize(offline ? `${scope} offline_access` : scope)
  }
}

/** `_meta` of a 2026-07-28 request (MCP 2026-07-28 basic §_meta, per-request protocol fields). */
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'hand', version: '0' },
}

/** The 2026-07-28 session: no handshake; every request carries its metadata. */
async function modern(): Promise<void> {
  const meta = has('no-meta') ? {} : { _meta: META }
  await call({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { ...meta } })
  await call({
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: { name: 'echo', arguments: { text: 'hand' }, ...meta },
  })
}

try {
  if (MODERN) {
    await modern()
    process.exit(has('exit-1') ? 1 : 0)
  }
  await call({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'hand', version: '0' },
    },
  })
  await call({ jsonrpc: '2.0', method: 'notifications/initialized' })
  await call({ jsonrpc: '2.0', id: 2, method: 'tools/list' })
  await call({
    jsonrpc: '2.0',
    id: 3,
    method: 'tools/call',
    params: { name: 'echo', arguments: { text: 'hand' } },
  })
  process.exit(has('exit-1') ? 1 : 0)
} catch (err) {
  process.stderr.write(`hand-client: ${(err as Error).message}\n`)
  if (has('hang-on-refusal')) setInterval(() => {}, 60_000)
  else process.exit(1)
}
