/**
 * FLOW-001 against a gateway whose authorization server is not the suite's IdP: the flow cannot
 * sign in headlessly there, so the check is skipped (not failed), and says why. A real local
 * server plays the gateway's discovery documents.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { flow } from '../src/catalogue/flow.js'
import { runChecks } from '../src/runner.js'
import type { Target } from '../src/types.js'
import { plainTarget } from './helpers.js'

let server: Server
let target: Target
/** The PKCE methods the fake gateway's metadata advertises. */
let methods = ['S256']

beforeAll(async () => {
  server = createServer((req, res) => {
    const base = `http://${req.headers.host}`
    const json = (body: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify(body))
    }
    if (req.url === '/.well-known/oauth-protected-resource/mcp') {
      return json({ resource: `${base}/mcp`, authorization_servers: [`${base}/mcp`] })
    }
    if (req.url === '/.well-known/oauth-authorization-server/mcp') {
      return json({
        issuer: `${base}/mcp`,
        authorization_endpoint: 'https://login.other-idp.example/oauth2/v1/authorize',
        token_endpoint: 'https://login.other-idp.example/oauth2/v1/token',
        code_challenge_methods_supported: methods,
      })
    }
    res.writeHead(401, {
      'www-authenticate': `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
    })
    res.end()
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  target = { ...plainTarget(base), idp: { ...plainTarget(base).idp, orgUrl: 'http://127.0.0.1:1' } }
})
afterAll(() => new Promise<void>((r) => server.close(() => r())))

describe('FLOW-001 against an IdP the suite cannot sign in at', () => {
  it('is skipped with the reason, after following discovery', async () => {
    const [result] = await runChecks(target, { catalogue: flow })
    expect(result?.status).toBe('skipped')
    expect(result?.message).toMatch(
      /login\.other-idp\.example is not the suite's IdP .*no way to sign in headlessly/,
    )
  })

  it('fails, not skips, when the metadata advertises no S256 (MCP: a client must not go on)', async () => {
    methods = ['plain']
    const [result] = await runChecks(target, { catalogue: flow })
    methods = ['S256']
    expect(result?.status).toBe('failed')
    expect(result?.message).toContain('code_challenge_methods_supported with S256')
  })
})
