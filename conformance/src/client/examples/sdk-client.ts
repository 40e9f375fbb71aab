#!/usr/bin/env node
/**
 * A conformance client built on the official MCP TypeScript SDK (`@modelcontextprotocol/sdk`):
 * its `Client`, `StreamableHTTPClientTransport` and OAuth machinery (`auth()`: discovery,
 * registration, PKCE, resource indicators, refresh, step-up) with an `OAuthClientProvider` the way
 * a command-line MCP client writes one. The parts the SDK leaves to the application are done here
 * as an application should: the sign-in (headless: the IdP signs a test user in and redirects at
 * once, so reading the `Location` of the authorization URL is the whole "browser"), and checking
 * the authorization response — `state` (RFC 6749 §10.12) and `iss` (RFC 9207) — before its code
 * is redeemed, and the authorization-server metadata's `issuer` (RFC 8414 §3.3), which the SDK
 * does not check: a strict client, so it refuses (and the suite counts the refusal as conformant)
 * where the gateway serves another issuer's metadata.
 *
 * A harness client: its "browser" is one GET whose redirect it reads, so it works only against an
 * IdP that signs a test user in without a page (mock-idp with `autoSignIn`, as every client-mode
 * scenario has). It is not a client for a deployment with a real sign-in page (`npm start`'s
 * demo, a real IdP); there, use a real MCP client (docs/client-testing.md).
 *
 * Calling convention of the official MCP conformance suite's client mode: the server URL is the
 * last argument; `MCP_CONFORMANCE_SCENARIO`, and `MCP_CONFORMANCE_CONTEXT` (JSON) for
 * `auth/pre-registration`, come from the environment.
 *
 *   npm run conformance -- client --command "npx tsx conformance/src/client/examples/sdk-client.ts"
 */
import { randomBytes } from 'node:crypto'
import {
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  UnauthorizedError,
} from '@modelcontextprotocol/sdk/client/auth.js'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js'

const REDIRECT_URL = 'http://localhost:3000/callback'
/** The client metadata document URL of the official suite's clients (CIMD, MCP 2025-11-25). */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json'
/** Authorizations one operation may take (the first sign-in and at most two step-ups). */
const MAX_AUTHORIZATIONS = 3

/** An OAuth client provider for a headless run, keeping everything in memory. */
/**
 * RFC 8414 §3.3's comparison: identical — except that an issuer without a path equals itself with
 * the empty path written "/" (RFC 3986 §6.2.3), as the SDK writes a 2025-03-26 server's origin.
 */
function sameIssuer(issuer: unknown, derived: string): boolean {
  if (issuer === derived) return true
  if (typeof issuer !== 'string' || !URL.canParse(issuer)) return false
  const a = new URL(issuer)
  return a.pathname === '/' && !a.search && `${a.origin}/` === derived
}

class HeadlessProvider implements OAuthClientProvider {
  #info: OAuthClientInformationMixed | undefined
  #tokens: OAuthTokens | undefined
  #verifier = ''
  #state = ''
  #issuer: string | undefined
  #issParameterSupported = false
  /** The code of the last authorization response, once it passed the checks. */
  code: string | undefined
  readonly clientMetadataUrl = CLIENT_METADATA_URL

  constructor(preRegistered?: OAuthClientInformationMixed) {
    this.#info = preRegistered
  }

  get redirectUrl(): string {
    return REDIRECT_URL
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'gatehouse conformance SDK client',
      redirect_uris: [REDIRECT_URL],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }
  }
  state(): string {
    this.#state = randomBytes(32).toString('base64url')
    return this.#state
  }
  clientInformation() {
    return this.#info
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.#info = info
  }
  tokens() {
    return this.#tokens
  }
  saveTokens(tokens: OAuthTokens) {
    this.#tokens = tokens
  }
  saveCodeVerifier(verifier: string) {
    this.#verifier = verifier
  }
  codeVerifier() {
    return this.#verifier
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    const metadata = state.authorizationServerMetadata as Record<string, unknown> | undefined
    // RFC 8414 §3.3 (the SDK does not check it): metadata whose issuer is not the identifier its
    // URL was built from MUST NOT be used.
    if (metadata && !sameIssuer(metadata.issuer, state.authorizationServerUrl)) {
      throw new Error(
        `authorization-server metadata refused: issuer ${String(metadata.issuer)} is not ${state.authorizationServerUrl} (RFC 8414 §3.3)`,
      )
    }
    this.#issuer = typeof metadata?.issuer === 'string' ? metadata.issuer : undefined
    this.#issParameterSupported = metadata?.authorization_response_iss_parameter_supported === true
  }

  /** The "browser": one GET, the IdP's redirect read and checked. */
  async redirectToAuthorization(url: URL): Promise<void> {
    this.code = undefined
    const res = await fetch(url, { redirect: 'manual' })
    const location = res.headers.get('location')
    if (!location) throw new Error(`the authorization server did not redirect (HTTP ${res.status})`)
    const back = new URL(location, url)
    if (back.searchParams.get('state') !== this.#state) {
      throw new Error(
        'authorization response refused: its state is not the one sent (RFC 6749 §10.12)',
      )
    }
    const iss = back.searchParams.get('iss')
    if ((iss !== null || this.#issParameterSupported) && iss !== this.#issuer) {
      throw new Error(
        `authorization response refused: iss ${iss} is not the issuer ${this.#issuer} (RFC 9207)`,
      )
    }
    const error = back.searchParams.get('error')
    if (error)
      throw new Error(
        `authorization refused: ${error} ${back.searchParams.get('error_description') ?? ''}`,
      )
    const code = back.searchParams.get('code')
    if (!code) throw new Error('the authorization response carries no code')
    this.code = code
  }
}

/** The pre-registered client of `auth/pre-registration`, from MCP_CONFORMANCE_CONTEXT. */
function preRegistered(): OAuthClientInformationMixed | undefined {
  if (process.env.MCP_CONFORMANCE_SCENARIO !== 'auth/pre-registration') return undefined
  const ctx = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as Record<string, string>
  if (!ctx.client_id) throw new Error('MCP_CONFORMANCE_CONTEXT names no client_id')
  return {
    client_id: ctx.client_id,
    ...(ctx.client_secret ? { client_secret: ctx.client_secret } : {}),
    redirect_uris: [REDIRECT_URL],
  }
}

const serverUrl = new URL(process.argv.at(-1) ?? '')
const provider = new HeadlessProvider(preRegistered())

/**
 * Connects, completing authorization when the SDK asks for it (`UnauthorizedError` after it sent
 * the user to the authorization URL): `finishAuth(code)`, then a new connection.
 */
async function connect(): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  for (let authorizations = 0; ; authorizations++) {
    const transport = new StreamableHTTPClientTransport(serverUrl, { authProvider: provider })
    const client = new Client({ name: 'gatehouse-sdk-client', version: '0.1.0' })
    try {
      await client.connect(transport)
      return { client, transport }
    } catch (err) {
      const code = provider.code
      if (!(err instanceof UnauthorizedError) || !code) throw err
      if (authorizations + 1 >= MAX_AUTHORIZATIONS) {
        throw new Error(
          `gave up after ${MAX_AUTHORIZATIONS} authorizations: the server keeps refusing`,
        )
      }
      provider.code = undefined
      await transport.finishAuth(code)
    }
  }
}

/**
 * A request of the session, authorized again when the server challenges it at runtime (403
 * `insufficient_scope`: the SDK starts the step-up and throws `UnauthorizedError`): the code is
 * redeemed and the request sent again, within the same limit.
 */
async function request<T>(
  transport: StreamableHTTPClientTransport,
  send: () => Promise<T>,
): Promise<T> {
  for (let authorizations = 0; ; authorizations++) {
    try {
      return await send()
    } catch (err) {
      const code = provider.code
      if (!(err instanceof UnauthorizedError) || !code) throw err
      if (authorizations + 1 >= MAX_AUTHORIZATIONS)
        throw new Error(`gave up after ${MAX_AUTHORIZATIONS} step-up authorizations`)
      provider.code = undefined
      await transport.finishAuth(code)
    }
  }
}

try {
  const { client, transport } = await connect()
  const { tools } = await request(transport, () => client.listTools())
  for (const tool of tools.filter((t) => t.name === 'echo' || t.name === 'test-tool')) {
    await request(transport, () =>
      client.callTool({
        name: tool.name,
        arguments: tool.name === 'echo' ? { text: 'conformance' } : {},
      }),
    )
  }
  await client.close()
  process.exit(0)
} catch (err) {
  process.stderr.write(`sdk-client: ${(err as Error).message}\n`)
  process.exit(1)
}
