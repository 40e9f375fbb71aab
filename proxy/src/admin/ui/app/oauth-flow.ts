/**
 * The OAuth flow debugger's steps, as a native MCP client walks them (MCP 2026-07-28
 * Authorization): 401 challenge → protected-resource metadata (RFC 9728) → authorization-server
 * metadata (RFC 8414, with its §3.3 issuer check) → registration (RFC 7591) or a Client ID
 * Metadata Document → authorization (PKCE, RFC 7636; `resource`, RFC 8707) → token (RFC 6749
 * §4.1.3) → MCP `initialize` and `tools/list` with the token. Each step records its requests and
 * responses and what the spec expects there, check by check, with the clause it cites.
 *
 * No DOM: the view (./debugger-view.ts) renders the steps and supplies the relay and the sign-in
 * (a tab the person completes). Tokens live in this object only, in page memory; what is shown
 * goes through `@gatehouse/redact`.
 */
/** A request the debugger asks the relay (../relay.ts) to send. */
export interface RelayAsk {
  method: 'GET' | 'POST' | 'DELETE'
  url: string
  headers?: Record<string, string>
  body?: string
}

/** The exchange the relay answers with (`RelayAnswer` of ../relay.ts, as it is on the wire). */
export interface RelayAnswer {
  status: number
  statusText: string
  headers: Array<[string, string]>
  body: string
  truncated: boolean
  durationMs: number
}

/** One thing the spec expects at a step, judged. */
export interface Check {
  text: string
  /** The clause, with its revision. */
  cite: string
  level: 'MUST' | 'SHOULD' | 'MAY'
  /** `undefined`: did not apply (the reason is in `text`). */
  ok: boolean | undefined
  /** What was seen. */
  seen?: string
}

/** One request and what came back. */
export interface Exchange {
  request: RelayAsk
  response?: RelayAnswer
  error?: string
}

/** One step of the flow. */
export interface Step {
  id: 'challenge' | 'resource' | 'as' | 'registration' | 'authorize' | 'token' | 'mcp'
  title: string
  /** What the spec expects here, in a sentence. */
  expect: string
  exchanges: Exchange[]
  checks: Check[]
  /** `holds`: every applicable MUST held; `fails`: one did not; `refused`: an expected refusal. */
  verdict: 'holds' | 'fails' | 'refused' | 'skipped' | 'waiting'
  note?: string
}

/** What the flow needs from outside. */
export interface FlowIo {
  send(ask: RelayAsk): Promise<RelayAnswer>
  /** Opens the authorization URL for the person and resolves with the redirect's query. */
  signIn(url: string, state: string): Promise<URLSearchParams>
  /** Hears a step change (to redraw). */
  changed(step: Step): void
}

/** Parameters of a `WWW-Authenticate: Bearer` challenge (RFC 6750 §3), names lower-cased. */
export function parseBearerChallenge(
  header: string | undefined,
): Record<string, string> | undefined {
  if (!header) return undefined
  const m = /(?:^|,\s*)Bearer\b\s*(.*)$/i.exec(header)
  if (!m) return undefined
  const params: Record<string, string> = {}
  for (const p of (m[1] ?? '').matchAll(
    /([A-Za-z_][A-Za-z0-9_-]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))/g,
  )) {
    params[(p[1] as string).toLowerCase()] = (p[2] ?? p[3] ?? '').replace(/\\(.)/g, '$1')
  }
  return params
}

/**
 * The metadata URLs to try for an issuer, in the order MCP 2026-07-28 Authorization Server
 * Discovery lists (RFC 8414 §3.1 path insertion first, then OpenID Connect Discovery).
 */
export function asMetadataUrls(issuer: string): string[] {
  const u = new URL(issuer)
  const path = u.pathname.replace(/\/$/, '')
  if (path === '') {
    return [
      `${u.origin}/.well-known/oauth-authorization-server`,
      `${u.origin}/.well-known/openid-configuration`,
    ]
  }
  return [
    `${u.origin}/.well-known/oauth-authorization-server${path}`,
    `${u.origin}/.well-known/openid-configuration${path}`,
    `${u.origin}${path}/.well-known/openid-configuration`,
  ]
}

/** The RFC 9728 §3.1 well-known URLs of a resource: path form, then root. */
export function resourceMetadataUrls(resource: string): string[] {
  const u = new URL(resource)
  const path = u.pathname.replace(/\/$/, '')
  return [
    ...(path ? [`${u.origin}/.well-known/oauth-protected-resource${path}`] : []),
    `${u.origin}/.well-known/oauth-protected-resource`,
  ]
}

/** Base64url without padding (RFC 7636 Appendix A). */
function base64url(bytes: Uint8Array): string {
  let s = ''
  for (const b of bytes) s += String.fromCharCode(b)
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

/** A random value of `n` bytes, base64url. */
function random(n: number): string {
  return base64url(crypto.getRandomValues(new Uint8Array(n)))
}

/** The S256 challenge of a verifier (RFC 7636 §4.2). */
async function s256(verifier: string): Promise<string> {
  return base64url(
    new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))),
  )
}

/** A header of an answer, case-insensitively. */
export function header(res: RelayAnswer | undefined, name: string): string | undefined {
  return res?.headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1]
}

/** Parses a JSON body (`undefined` when it is not JSON). */
function json(res: RelayAnswer | undefined): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(res?.body ?? '')
    return v && typeof v === 'object' && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : undefined
  } catch {
    return undefined
  }
}

/** The JSON-RPC message of an MCP answer: a JSON body, or the first `data:` of an event stream. */
export function mcpMessage(res: RelayAnswer | undefined): Record<string, unknown> | undefined {
  const direct = json(res)
  if (direct) return direct
  for (const line of (res?.body ?? '').split('\n')) {
    if (!line.startsWith('data:')) continue
    try {
      return JSON.parse(line.slice(5)) as Record<string, unknown>
    } catch {
      // another line
    }
  }
  return undefined
}

/** The verdict of a step from its checks: a failed MUST fails it. */
function verdictOf(checks: readonly Check[]): Step['verdict'] {
  return checks.some((c) => c.ok === false && c.level === 'MUST') ? 'fails' : 'holds'
}

const MCP_VERSION = '2025-11-25'
const REV = 'MCP 2026-07-28'

/** One walk of the flow for one MCP endpoint. Tokens stay in this object. */
export class OAuthFlow {
  readonly steps: Step[] = []
  #accessToken: string | undefined

  constructor(
    readonly mcpUrl: string,
    readonly redirectUri: string,
    readonly io: FlowIo,
  ) {}

  /** Whether the flow holds a token (never shown). */
  get hasToken(): boolean {
    return this.#accessToken !== undefined
  }

  /** Forgets the token. */
  forget(): void {
    this.#accessToken = undefined
  }

  #step(id: Step['id'], title: string, expect: string): Step {
    const step: Step = { id, title, expect, exchanges: [], checks: [], verdict: 'waiting' }
    this.steps.push(step)
    this.io.changed(step)
    return step
  }

  async #send(step: Step, request: RelayAsk): Promise<RelayAnswer | undefined> {
    const exchange: Exchange = { request }
    step.exchanges.push(exchange)
    try {
      exchange.response = await this.io.send(request)
    } catch (err) {
      exchange.error = (err as Error).message
    }
    this.io.changed(step)
    return exchange.response
  }

  #done(step: Step, verdict: Step['verdict'] = verdictOf(step.checks), note?: string): void {
    step.verdict = verdict
    if (note) step.note = note
    this.io.changed(step)
  }

  #initialize(token?: string): RelayAsk {
    return {
      method: 'POST',
      url: this.mcpUrl,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: MCP_VERSION,
          capabilities: {},
          clientInfo: { name: 'gatehouse-oauth-debugger', version: '1' },
        },
      }),
    }
  }

  /** Walks every step; stops at the first that cannot go on. Resolves when done. */
  async run(): Promise<void> {
    const challenge = await this.#challenge()
    const resource = await this.#resource(challenge)
    if (!resource) return
    const as = await this.#authorizationServer(resource.issuer)
    if (!as) return
    const clientId = await this.#register(as)
    if (!clientId) return
    const code = await this.#authorize(as, clientId, resource.scopes)
    if (!code) return
    if (!(await this.#token(as, clientId, code))) return
    await this.#mcp()
  }

  async #challenge(): Promise<Record<string, string> | undefined> {
    const step = this.#step(
      'challenge',
      '1. MCP request without a token',
      'The server answers 401 with WWW-Authenticate: Bearer and the resource_metadata URL of its protected-resource metadata.',
    )
    const res = await this.#send(step, this.#initialize())
    const www = header(res, 'www-authenticate')
    const params = parseBearerChallenge(www)
    step.checks.push(
      {
        text: 'Invalid or missing tokens receive HTTP 401',
        cite: `${REV} Authorization §Token Handling: "Invalid or expired tokens MUST receive a HTTP 401 response"`,
        level: 'MUST',
        ok: res?.status === 401,
        seen: String(res?.status ?? 'no answer'),
      },
      {
        text: 'The 401 carries WWW-Authenticate: Bearer',
        cite: 'RFC 6750 §3: "the resource server MUST include the HTTP WWW-Authenticate response header field"',
        level: 'MUST',
        ok: params !== undefined,
        seen: www ?? '(none)',
      },
      {
        text: 'It names the resource_metadata URL (otherwise the client falls back to the well-known URLs)',
        cite: `${REV} Authorization Server Discovery: "Include the resource metadata URL in the WWW-Authenticate HTTP header under resource_metadata" (RFC 9728 §5.1)`,
        level: 'SHOULD',
        ok: params?.resource_metadata !== undefined,
        seen: params?.resource_metadata ?? '(absent)',
      },
    )
    this.#done(step)
    return params
  }

  async #resource(
    challenge: Record<string, string> | undefined,
  ): Promise<{ issuer: string; scopes: string | undefined } | undefined> {
    const step = this.#step(
      'resource',
      '2. Protected-resource metadata (RFC 9728)',
      'The document names this MCP endpoint as its resource and at least one authorization server.',
    )
    const urls = challenge?.resource_metadata
      ? [challenge.resource_metadata]
      : resourceMetadataUrls(this.mcpUrl)
    let doc: Record<string, unknown> | undefined
    for (const url of urls) {
      const res = await this.#send(step, {
        method: 'GET',
        url,
        headers: { accept: 'application/json' },
      })
      doc = res?.status === 200 ? json(res) : undefined
      if (doc) break
    }
    const servers = Array.isArray(doc?.authorization_servers)
      ? (doc.authorization_servers as string[])
      : []
    step.checks.push(
      {
        text: 'The metadata document is served (200, JSON)',
        cite: `${REV} Authorization: "MCP servers MUST implement OAuth 2.0 Protected Resource Metadata (RFC9728)"`,
        level: 'MUST',
        ok: doc !== undefined,
      },
      {
        text: `resource is identical to the MCP endpoint (${this.mcpUrl})`,
        cite: 'RFC 9728 §3.3: "The resource value returned MUST be identical to the protected resource\'s resource identifier value"',
        level: 'MUST',
        ok: doc ? doc.resource === this.mcpUrl : undefined,
        seen: String(doc?.resource ?? '(absent)'),
      },
      {
        text: 'authorization_servers names at least one authorization server',
        cite: `${REV} Authorization Server Location: "MUST include the authorization_servers field containing at least one authorization server"`,
        level: 'MUST',
        ok: doc ? servers.length > 0 : undefined,
        seen: servers.join(', ') || '(none)',
      },
    )
    const issuer = servers[0]
    this.#done(
      step,
      issuer ? verdictOf(step.checks) : 'fails',
      issuer ? undefined : 'no authorization server to go on with',
    )
    if (!issuer) return undefined
    const scopes =
      challenge?.scope ??
      (Array.isArray(doc?.scopes_supported)
        ? (doc.scopes_supported as string[]).join(' ')
        : undefined)
    return { issuer, scopes }
  }

  async #authorizationServer(issuer: string): Promise<Record<string, unknown> | undefined> {
    const step = this.#step(
      'as',
      '3. Authorization-server metadata (RFC 8414)',
      'The first well-known URL that answers gives the metadata; its issuer is identical to the issuer the URL was built from (RFC 8414 §3.3), and it offers PKCE with S256.',
    )
    let doc: Record<string, unknown> | undefined
    for (const url of asMetadataUrls(issuer)) {
      const res = await this.#send(step, {
        method: 'GET',
        url,
        headers: { accept: 'application/json' },
      })
      doc = res?.status === 200 ? json(res) : undefined
      if (doc) break
    }
    const methods = Array.isArray(doc?.code_challenge_methods_supported)
      ? (doc.code_challenge_methods_supported as string[])
      : []
    step.checks.push(
      {
        text: 'A metadata document is found at one of the well-known URLs',
        cite: `${REV} Authorization Server Discovery: "MCP clients MUST attempt multiple well-known endpoints"`,
        level: 'MUST',
        ok: doc !== undefined,
      },
      {
        text: `issuer is identical to ${issuer}`,
        cite: 'RFC 8414 §3.3: "The issuer value returned MUST be identical to the authorization server\'s issuer identifier value into which the well-known URI string was inserted"',
        level: 'MUST',
        ok: doc ? doc.issuer === issuer : undefined,
        seen: String(doc?.issuer ?? '(absent)'),
      },
      {
        text: 'code_challenge_methods_supported includes S256',
        cite: `${REV} Authorization §Authorization Code Protection: clients MUST refuse to proceed when code_challenge_methods_supported is absent (RFC 7636)`,
        level: 'MUST',
        ok: doc ? methods.includes('S256') : undefined,
        seen: methods.join(', ') || '(absent)',
      },
    )
    const usable = doc !== undefined && doc.issuer === issuer && methods.includes('S256')
    this.#done(step, verdictOf(step.checks), usable ? undefined : 'a client stops here')
    return usable ? doc : undefined
  }

  async #register(as: Record<string, unknown>): Promise<string | undefined> {
    const step = this.#step(
      'registration',
      '4. Client registration (RFC 7591) or Client ID Metadata Document',
      "The debugger registers a client of its own, a public client with PKCE, whose redirect URI is this admin page's callback; the server answers 201 with a client_id.",
    )
    const endpoint =
      typeof as.registration_endpoint === 'string' ? as.registration_endpoint : undefined
    if (!endpoint) {
      step.checks.push({
        text: as.client_id_metadata_document_supported
          ? 'The server accepts Client ID Metadata Documents, which must be served at an HTTPS URL the authorization server can fetch: this loopback page cannot host one'
          : 'The server offers neither registration nor Client ID Metadata Documents: a client needs a pre-registered client id',
        cite: `${REV} Client Registration: "Clients MUST host their metadata document at an HTTPS URL"`,
        level: 'MUST',
        ok: undefined,
      })
      this.#done(step, 'skipped', 'no registration this debugger can make')
      return undefined
    }
    const res = await this.#send(step, {
      method: 'POST',
      url: endpoint,
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        client_name: 'gatehouse admin UI: OAuth flow debugger',
        redirect_uris: [this.redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      }),
    })
    const doc = json(res)
    const clientId = typeof doc?.client_id === 'string' ? doc.client_id : undefined
    step.checks.push(
      {
        text: 'Registration answers 201 Created',
        cite: 'RFC 7591 §3.2.1: "The server responds with an HTTP 201 Created status code"',
        level: 'MUST',
        ok: res?.status === 201,
        seen: String(res?.status ?? 'no answer'),
      },
      {
        text: 'The answer carries a client_id',
        cite: 'RFC 7591 §3.2.1: "client_id REQUIRED"',
        level: 'MUST',
        ok: clientId !== undefined,
        seen: clientId ?? '(absent)',
      },
    )
    this.#done(step)
    return clientId
  }

  async #authorize(
    as: Record<string, unknown>,
    clientId: string,
    scopes: string | undefined,
  ): Promise<string | undefined> {
    const step = this.#step(
      'authorize',
      '5. Authorization (sign-in in a new tab)',
      'The person signs in and consents; the browser comes back to the redirect URI with a code, the same state, and iss equal to the issuer (RFC 9207).',
    )
    const verifier = random(32)
    const state = random(16)
    const endpoint = String(as.authorization_endpoint ?? '')
    const url = new URL(endpoint)
    url.searchParams.set('response_type', 'code')
    url.searchParams.set('client_id', clientId)
    url.searchParams.set('redirect_uri', this.redirectUri)
    url.searchParams.set('code_challenge', await s256(verifier))
    url.searchParams.set('code_challenge_method', 'S256')
    url.searchParams.set('state', state)
    url.searchParams.set('resource', this.mcpUrl)
    if (scopes) url.searchParams.set('scope', scopes)
    step.exchanges.push({ request: { method: 'GET', url: url.toString() } })
    this.io.changed(step)
    const answer = await this.io.signIn(url.toString(), state)
    const iss = answer.get('iss')
    const code = answer.get('code') ?? undefined
    const issuer = String(as.issuer)
    const issSupported = as.authorization_response_iss_parameter_supported === true
    step.checks.push(
      {
        text: 'The redirect carries the state the request sent',
        cite: 'RFC 6749 §4.1.2: "state REQUIRED if the state parameter was present in the client authorization request"',
        level: 'MUST',
        ok: answer.get('state') === state,
      },
      {
        text: issSupported
          ? 'iss is present and identical to the issuer (advertised by authorization_response_iss_parameter_supported)'
          : 'iss, when present, is identical to the issuer',
        cite: `${REV} Authorization §Authorization Response Validation (RFC 9207 §2.4)`,
        level: 'MUST',
        ok: iss === null ? !issSupported : iss === issuer,
        seen: iss ?? '(absent)',
      },
      {
        text: 'The redirect carries an authorization code',
        cite: 'RFC 6749 §4.1.2: "code REQUIRED"',
        level: 'MUST',
        ok: code !== undefined,
        seen: answer.get('error')
          ? `error=${answer.get('error')} ${answer.get('error_description') ?? ''}`
          : code
            ? '(a code)'
            : '(none)',
      },
    )
    const ok = verdictOf(step.checks) === 'holds'
    this.#done(step)
    if (!ok || !code) return undefined
    this.#verifier = verifier
    return code
  }

  #verifier: string | undefined

  async #token(as: Record<string, unknown>, clientId: string, code: string): Promise<boolean> {
    const step = this.#step(
      'token',
      '6. Token request',
      'The code, the PKCE verifier and the resource are exchanged for an access token of type Bearer.',
    )
    const body = new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: this.redirectUri,
      client_id: clientId,
      code_verifier: this.#verifier ?? '',
      resource: this.mcpUrl,
    })
    this.#verifier = undefined
    const res = await this.#send(step, {
      method: 'POST',
      url: String(as.token_endpoint ?? ''),
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: body.toString(),
    })
    const doc = json(res)
    const token = typeof doc?.access_token === 'string' ? doc.access_token : undefined
    step.checks.push(
      {
        text: 'The token endpoint answers 200 with an access_token',
        cite: 'RFC 6749 §5.1: "access_token REQUIRED"',
        level: 'MUST',
        ok: res?.status === 200 && token !== undefined,
        seen: String(res?.status ?? 'no answer'),
      },
      {
        text: 'token_type is Bearer (case-insensitive)',
        cite: 'RFC 6749 §5.1: "token_type REQUIRED"; RFC 6750 §4',
        level: 'MUST',
        ok: doc ? String(doc.token_type ?? '').toLowerCase() === 'bearer' : undefined,
        seen: String(doc?.token_type ?? '(absent)'),
      },
      {
        text: 'The answer may not be cached',
        cite: 'RFC 6749 §5.1: "The authorization server MUST include the HTTP Cache-Control response header field with a value of no-store"',
        level: 'MUST',
        ok: /no-store/i.test(header(res, 'cache-control') ?? ''),
        seen: header(res, 'cache-control') ?? '(absent)',
      },
    )
    this.#accessToken = token
    this.#done(step)
    return token !== undefined
  }

  async #mcp(): Promise<void> {
    const step = this.#step(
      'mcp',
      '7. MCP initialize and tools/list with the token',
      'With a token the route admits, the server answers; with a valid token that its rules refuse, 403 with error="insufficient_scope".',
    )
    const token = this.#accessToken
    const init = await this.#send(step, this.#initialize(token))
    if (init?.status === 403) {
      const params = parseBearerChallenge(header(init, 'www-authenticate'))
      step.checks.push(
        {
          text: 'A valid token the rules refuse gets 403',
          cite: 'RFC 6750 §3.1: insufficient_scope "SHOULD respond with the HTTP 403 (Forbidden) status code"; seed: "Valid token failing the authorization rule: 403"',
          level: 'SHOULD',
          ok: true,
          seen: '403',
        },
        {
          text: 'The 403 says error="insufficient_scope"',
          cite: 'RFC 6750 §3.1: "insufficient_scope: The request requires higher privileges than provided by the access token"',
          level: 'SHOULD',
          ok: params?.error === 'insufficient_scope',
          seen: header(init, 'www-authenticate') ?? '(no WWW-Authenticate)',
        },
      )
      this.#done(
        step,
        'refused',
        "the token is valid, but the route's authorization refuses this user",
      )
      return
    }
    const session = header(init, 'mcp-session-id')
    const common = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      'mcp-protocol-version': MCP_VERSION,
      ...(session ? { 'mcp-session-id': session } : {}),
    }
    step.checks.push({
      text: 'initialize succeeds with the token',
      cite: `${REV} Authorization: the access token is sent in the Authorization header of every request`,
      level: 'MUST',
      ok: init?.status === 200 && mcpMessage(init)?.result !== undefined,
      seen: String(init?.status ?? 'no answer'),
    })
    if (init?.status === 200) {
      await this.#send(step, {
        method: 'POST',
        url: this.mcpUrl,
        headers: common,
        body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      })
      const list = await this.#send(step, {
        method: 'POST',
        url: this.mcpUrl,
        headers: common,
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }),
      })
      const result = mcpMessage(list)?.result as { tools?: Array<{ name: string }> } | undefined
      step.checks.push({
        text: 'tools/list answers with the tools this user may call',
        cite: 'MCP 2026-07-28 Server Features §Tools: "To discover available tools, clients send a tools/list request"',
        level: 'MUST',
        ok: list?.status === 200 && Array.isArray(result?.tools),
        seen: result?.tools
          ? result.tools.map((t) => t.name).join(', ') || '(none)'
          : String(list?.status ?? 'no answer'),
      })
      if (session) {
        await this.#send(step, { method: 'DELETE', url: this.mcpUrl, headers: common })
      }
    }
    this.#done(step)
  }
}
