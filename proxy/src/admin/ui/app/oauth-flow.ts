// Over 300 lines but one job (the OAuth flow debugger's steps): kept whole.
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
import { mcpStep } from './oauth-mcp-step.js'
import {
  asMetadataUrls,
  type Exchange,
  type FlowIo,
  header,
  initializeRequest,
  json,
  parseBearerChallenge,
  REV,
  type RelayAnswer,
  type RelayAsk,
  random,
  resourceMetadataUrls,
  type Step,
  type StepRunner,
  s256,
  verdictOf,
} from './oauth-wire.js'

export type { Check, Exchange, RelayAnswer, RelayAsk, Step } from './oauth-wire.js'

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

  /** The step helpers, for the steps written as functions (./oauth-mcp-step.ts). */
  #runner(): StepRunner {
    return {
      step: (id, title, expect) => this.#step(id, title, expect),
      send: (step, request) => this.#send(step, request),
      done: (step, verdict, note) => this.#done(step, verdict, note),
    }
  }

  #done(step: Step, verdict: Step['verdict'] = verdictOf(step.checks), note?: string): void {
    step.verdict = verdict
    if (note) step.note = note
    this.io.changed(step)
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
    await mcpStep(this.#runner(), this.mcpUrl, this.#accessToken)
  }

  async #challenge(): Promise<Record<string, string> | undefined> {
    const step = this.#step(
      'challenge',
      '1. MCP request without a token',
      'The server answers 401 with WWW-Authenticate: Bearer and the resource_metadata URL of its protected-resource metadata.',
    )
    const res = await this.#send(step, initializeRequest(this.mcpUrl))
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
}
