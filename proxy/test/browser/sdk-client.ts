/**
 * Bundled for the browser by the test (esbuild): the official MCP TypeScript SDK client with an
 * OAuth client provider as a web MCP client implements it — state in sessionStorage, the
 * authorization step as a real navigation of the page.
 */
import {
  type OAuthClientProvider,
  UnauthorizedError,
} from '@modelcontextprotocol/sdk/client/auth.js'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js'

// The browser globals this module uses (the project compiles without the DOM library).
declare const sessionStorage: {
  getItem(key: string): string | null
  setItem(key: string, value: string): void
}
declare const location: { origin: string; href: string; assign(url: string): void }

const KEY = 'gatehouse-browser-client'

function load(): Record<string, unknown> {
  return JSON.parse(sessionStorage.getItem(KEY) ?? '{}') as Record<string, unknown>
}

function save(patch: Record<string, unknown>): void {
  sessionStorage.setItem(KEY, JSON.stringify({ ...load(), ...patch }))
}

/** The provider: what a browser MCP client keeps between the redirect and the callback. */
class BrowserOAuthProvider implements OAuthClientProvider {
  /** Authorization requests made after the callback (step-up), not followed. */
  readonly stepUps: string[] = []
  /**
   * @param loginHint - the test user mock-idp signs in
   * @param navigate - whether to leave the page for the IdP (false once back at the callback, so
   *   the test can see a second authorization request instead of losing the page to it)
   */
  constructor(
    private readonly loginHint: string,
    private readonly navigate = true,
  ) {}
  get redirectUrl(): string {
    return `${location.origin}/callback`
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'gatehouse browser test client',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }
  }
  clientInformation(): OAuthClientInformationMixed | undefined {
    return load().client as OAuthClientInformationMixed | undefined
  }
  saveClientInformation(client: OAuthClientInformationMixed): void {
    save({ client })
  }
  tokens(): OAuthTokens | undefined {
    return load().tokens as OAuthTokens | undefined
  }
  saveTokens(tokens: OAuthTokens): void {
    save({ tokens })
  }
  redirectToAuthorization(url: URL): void {
    if (!this.navigate) {
      this.stepUps.push(url.toString())
      return
    }
    save({ authorizationUrl: url.toString() })
    // mock-idp in test mode signs a known user in from login_hint (OIDC Core §3.1.2.1).
    url.searchParams.set('login_hint', this.loginHint)
    location.assign(url.toString())
  }
  saveCodeVerifier(verifier: string): void {
    save({ verifier })
  }
  codeVerifier(): string {
    return String(load().verifier ?? '')
  }
}

/** Step 1, on the app page: connect; the gateway's 401 starts the flow and the page navigates. */
export async function start(mcpUrl: string, loginHint: string): Promise<string> {
  save({ loginHint })
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
    authProvider: new BrowserOAuthProvider(loginHint),
  })
  try {
    await new Client({ name: 'browser', version: '0.0.0' }).connect(transport)
    return 'connected without signing in'
  } catch (err) {
    return err instanceof UnauthorizedError ? 'redirecting' : `failed: ${String(err)}`
  }
}

/** One answer of the gateway's `/mcp`, as the page could read it. */
export interface McpAnswer {
  status: number
  wwwAuthenticate: string | null
}

/** What step 2 reports back to the test. */
export interface FinishResult {
  client?: unknown
  authorizationUrl?: string
  /** Every `/mcp` answer after the callback. */
  mcp: McpAnswer[]
  /** Authorization requests the SDK made after the callback (step-up on a 403). */
  stepUps: string[]
  server?: string
  tool?: string
  error?: string
}

/** Step 2, on the callback page: exchange the code, connect, call a tool. */
export async function finish(mcpUrl: string): Promise<FinishResult> {
  const state = load()
  const provider = new BrowserOAuthProvider(String(state.loginHint), false)
  const code = new URL(location.href).searchParams.get('code')
  const report: FinishResult = {
    client: state.client,
    authorizationUrl: String(state.authorizationUrl),
    mcp: [],
    stepUps: provider.stepUps,
  }
  const recording: typeof fetch = async (input, init) => {
    const res = await fetch(input, init)
    if (new URL(input instanceof Request ? input.url : String(input)).pathname === '/mcp') {
      report.mcp.push({ status: res.status, wwwAuthenticate: res.headers.get('www-authenticate') })
    }
    return res
  }
  const transport = () =>
    new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider, fetch: recording })
  try {
    if (!code) throw new Error(`no code in ${location.href}`)
    await transport().finishAuth(code)
    const client = new Client({ name: 'browser', version: '0.0.0' })
    await client.connect(transport())
    report.server = client.getServerVersion()?.name
    const result = await client.callTool({ name: 'echo', arguments: { text: 'from the browser' } })
    report.tool = JSON.stringify(result.content)
    await client.close()
  } catch (err) {
    report.error = String(err)
  }
  return report
}
