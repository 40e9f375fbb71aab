/**
 * The IdP walkthroughs (docs/idp/<preset>.md), each run end to end against a mock-idp of the
 * same shape (real oidc-provider, `shape` option): the YAML of the walkthrough is validated as
 * written, then started with the example names replaced by the mock's addresses, and the official
 * MCP SDK client goes through broker mode — discovery, registration at the gateway, consent,
 * sign-in at the IdP, token, tools/list, echo — as alice (allowed by the walkthrough's CEL rule),
 * then again after its access token is spoiled (the SDK refreshes through the gateway, which
 * refreshes at the IdP); bob is refused with 403. Entra runs twice, with v2 and with v1 tokens,
 * against the same two-provider route.
 */
import { readFileSync } from 'node:fs'
import { controlClient, type MockIdp, type MockIdpOptions, startMockIdp } from '@gatehouse/mock-idp'
import { type McpBackend, startMcpBackend } from '@gatehouse/mock-mcp'
import { freePort, MemoryOAuthClient } from '@gatehouse/support'
import type { OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js'
import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js'
import { afterAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { parseConfig } from '../../src/config/load.js'
import { signInThroughBroker, TestBrowser } from '../broker/browser.js'
import { startTestGatehouse, type TestGatehouse } from '../helpers.js'
import { sdkSignIn } from './sdk-sign-in.js'

const CLIENT_ID = 'gatehouse-broker'
const CLIENT_SECRET = 'broker-secret-for-the-test'
const APP_ID = '6e1c2a7d-0f0e-4c55-9a3b-5d2f0c7b9a11'
const TENANT = '3fa85f64-5717-4562-b3fc-2c963f66afa6'

/** The `index`th ```yaml block of a walkthrough (the first: its whole gatehouse.yaml). */
function walkthroughYaml(preset: string, index = 0): string {
  const text = readFileSync(new URL(`../../../docs/idp/${preset}.md`, import.meta.url), 'utf8')
  const block = [...text.matchAll(/```yaml\n([\s\S]*?)```/g)][index]?.[1]
  if (!block) throw new Error(`docs/idp/${preset}.md has no yaml block ${index}`)
  return block
}

/** How one walkthrough meets its mock: the mock's options and the names to replace. */
interface Shape {
  preset: string
  idp: (gateway: string) => MockIdpOptions
  replace: (idp: MockIdp, gateway: string) => Array<[string | RegExp, string]>
}

const users = [
  { login: 'alice', groups: ['AI-Users', 'Everyone'] },
  { login: 'bob', groups: ['Everyone'], email: 'bob@gmail.com' },
]
const client = { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET }

const SHAPES: Shape[] = [
  {
    preset: 'okta',
    idp: () => ({ users, clients: [client] }),
    replace: (idp) => [
      [
        /\{ static: \{ host: example\.okta\.com, port: 443 \}, tls: \{ hostname: example\.okta\.com \} \}/,
        `{ static: { host: 127.0.0.1, port: ${idp.port} } }`,
      ],
      ['https://example.okta.com', idp.orgUrl],
    ],
  },
  {
    preset: 'auth0',
    idp: (gw) => ({ shape: 'auth0', audience: `${gw}/mcp`, users, clients: [client] }),
    replace: (idp) => [['https://example.us.auth0.com', idp.orgUrl]],
  },
  ...([2, 1] as const).map(
    (version): Shape => ({
      preset: 'entra',
      idp: () => ({
        shape: 'entra',
        entraTokenVersion: version,
        audience: `api://${APP_ID}`,
        users,
        clients: [client],
      }),
      replace: (idp) => [
        ['https://login.microsoftonline.com', idp.orgUrl],
        ['https://sts.windows.net', new URL(idp.entraV1?.issuer ?? '').origin],
        ['TENANT_ID', TENANT],
        ['APP_ID', APP_ID],
      ],
    }),
  ),
  {
    preset: 'keycloak',
    idp: (gw) => ({ shape: 'keycloak', audience: `${gw}/mcp`, users, clients: [client] }),
    replace: (idp) => [['https://keycloak.example.com', idp.orgUrl]],
  },
  {
    preset: 'google',
    idp: () => ({ shape: 'google', audience: CLIENT_ID, users, clients: [client] }),
    replace: (idp) => [['https://accounts.google.com', idp.orgUrl]],
  },
  {
    preset: 'generic',
    idp: (gw) => ({ shape: 'generic', audience: `${gw}/mcp`, users, clients: [client] }),
    replace: (idp) => [['https://idp.example.com', idp.orgUrl]],
  },
]

interface Running {
  idp: MockIdp
  backend: McpBackend
  gh: TestGatehouse
  mcpUrl: URL
  statuses: number[]
}

const running: Running[] = []
afterAll(async () => {
  for (const r of running) {
    await r.gh.stop('done')
    await r.backend.stop()
    await r.idp.stop()
  }
})

/**
 * Starts the mock of a shape and gatehouse with the walkthrough's YAML pointed at it; `providers`
 * (another block of the walkthrough) replaces the policy's providers, and `prepare` runs on the
 * IdP before gatehouse starts.
 */
async function start(
  shape: Shape,
  options: { providers?: string; prepare?: (idp: MockIdp) => Promise<void> } = {},
): Promise<Running> {
  const port = await freePort()
  const gateway = `http://127.0.0.1:${port}`
  const idp = await startMockIdp(shape.idp(gateway))
  const backend = await startMcpBackend()
  await options.prepare?.(idp)
  const replacements: Array<[string | RegExp, string]> = [
    ...shape.replace(idp, gateway),
    ['https://mcp.example.com', gateway],
    ['port: 3000', `port: ${port}, address: 127.0.0.1`],
    ['port: 8090', `port: ${backend.port}`],
    ['YOUR_CLIENT_ID', CLIENT_ID],
    ['${IDP_CLIENT_SECRET}', CLIENT_SECRET],
  ]
  const pointed = (yaml: string) => {
    let text = yaml
    for (const [from, to] of replacements) text = text.split(from as string).join(to)
    for (const [from, to] of replacements.filter(([f]) => f instanceof RegExp))
      text = text.replace(from, to)
    return parse(text)
  }
  const config = pointed(walkthroughYaml(shape.preset))
  if (options.providers) {
    config.policies['mcp-auth'].traffic.jwtAuthentication.providers = pointed(
      options.providers,
    ).providers
  }
  const gh = await startTestGatehouse(config, { ephemeralPorts: false })
  const r: Running = { idp, backend, gh, mcpUrl: new URL(`${gateway}/mcp`), statuses: [] }
  running.push(r)
  return r
}

/** The SDK flow for one user; returns the connected client and its provider. */
async function signInAndConnect(r: Running, login: string) {
  const provider = new MemoryOAuthClient<OAuthDiscoveryState>({
    redirectUrl: 'http://127.0.0.1:33420/callback',
    clientName: 'gatehouse idp presets e2e',
  })
  const { client, connect } = await sdkSignIn({
    mcpUrl: r.mcpUrl,
    provider,
    browser: (url) => signInThroughBroker(new TestBrowser(), url, login, provider.redirectUrl),
    statuses: r.statuses,
    clientName: 'idp-presets-e2e',
  })
  return { client, provider, connect }
}

describe('docs/idp walkthroughs against mock-idp shapes', () => {
  it.each(['okta', 'auth0', 'entra', 'keycloak', 'google', 'generic'])(
    'docs/idp/%s.md: its YAML is a valid configuration as written',
    (preset) => {
      const config = parseConfig(walkthroughYaml(preset), `docs/idp/${preset}.md`, {
        IDP_CLIENT_SECRET: 'x'.repeat(16),
      })
      const providers = config.policies['mcp-auth']?.traffic.jwtAuthentication?.providers
      expect(providers?.[0]?.preset).toBe(preset)
    },
  )

  for (const shape of SHAPES) {
    const label =
      shape.preset === 'entra' ? `entra (v${shape.idp('').entraTokenVersion} tokens)` : shape.preset
    it(`${label}: SDK client through the broker: sign-in, tools/list, echo, refresh; bob gets 403`, async () => {
      await brokerFlow(await start(shape), shape)
    })
  }

  it('generic without a discovery document (404): the endpoints docs/idp/generic.md states; sign-in, tools/list, echo, refresh; bob gets 403', async () => {
    const shape = SHAPES.find((s) => s.preset === 'generic') as Shape
    const r = await start(shape, {
      providers: walkthroughYaml('generic', 1),
      prepare: (idp) =>
        controlClient(idp.controlUrl).setFault({
          endpoint: 'discovery',
          mode: 'error',
          status: 404,
        }),
    })
    await brokerFlow(r, shape)
    const asked = (await controlClient(r.idp.controlUrl).requests()).map((q) => q.path)
    expect(asked).toContain('/idp/token')
    expect(asked.filter((path) => path.includes('/.well-known/'))).toEqual([])
  })
})

/** The broker flow of one shape: alice signs in and is served, refreshes; bob gets 403. */
async function brokerFlow(r: Running, shape: Shape): Promise<void> {
  const { client, provider, connect } = await signInAndConnect(r, 'alice')
  expect((await client.listTools()).tools.map((t) => t.name)).toContain('echo')
  const result = await client.callTool({ name: 'echo', arguments: { text: shape.preset } })
  expect(JSON.stringify(result.content)).toContain(shape.preset)
  await client.close()

  // Refresh: a spoiled access token makes the SDK use its refresh token at the gateway,
  // which refreshes at the IdP (every one of these shapes issues refresh tokens).
  const before = provider.tokens()
  expect(before?.refresh_token).toBeTruthy()
  provider.saveTokens({ ...(before as OAuthTokens), access_token: 'spoiled' })
  r.statuses.length = 0
  const again = await connect()
  expect(provider.tokens()?.access_token).not.toBe('spoiled')
  expect(provider.tokens()?.access_token).not.toBe(before?.access_token)
  expect(r.statuses[0]).toBe(401)
  expect((await again.listTools()).tools.map((t) => t.name)).toContain('echo')
  await again.close()

  r.statuses.length = 0
  await expect(signInAndConnect(r, 'bob')).rejects.toThrow()
  expect(r.statuses[0]).toBe(401)
  expect(r.statuses.slice(1).length).toBeGreaterThan(0)
  expect(r.statuses.slice(1).every((s) => s === 403)).toBe(true)
}
