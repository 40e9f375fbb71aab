#!/usr/bin/env node
/**
 * A resource server built the way the official MCP TypeScript SDK documents it, not with
 * gatehouse: express, `mcpAuthMetadataRouter` (RFC 9728 metadata naming the IdP as its
 * authorization server) and `requireBearerAuth` with a JWT verifier (jose, the IdP's key set).
 * `--target-command` starts it with the suite's IdP in its environment (conformance/src/target.ts);
 * test/target.test.ts judges it with the `resource-server` profile.
 */
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js'
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js'
import {
  getOAuthProtectedResourceMetadataUrl,
  mcpAuthMetadataRouter,
} from '@modelcontextprotocol/sdk/server/auth/router.js'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { OAuthMetadataSchema } from '@modelcontextprotocol/sdk/shared/auth.js'
import express from 'express'
import { createRemoteJWKSet, jwtVerify } from 'jose'

const env = (name: string) => {
  const v = process.env[`GATEHOUSE_CONFORMANCE_${name}`]
  if (!v) throw new Error(`GATEHOUSE_CONFORMANCE_${name} is not set`)
  return v
}
const issuer = env('ISSUER')
const audience = env('AUDIENCE')
const resource = new URL(env('RESOURCE'))
const jwks = createRemoteJWKSet(new URL(env('JWKS_URI')))
const oauthMetadata = OAuthMetadataSchema.parse(
  await (await fetch(`${issuer}/.well-known/openid-configuration`)).json(),
)

const app = express()
// `--fault no-www-authenticate`: its 401s lose the challenge header (RFC 6750 §3 broken on
// purpose), to show the resource-server profile fails that (conformance/test/target.test.ts).
if (process.argv.includes('--fault') && process.argv.includes('no-www-authenticate')) {
  app.use((_req, res, next) => {
    const set = res.setHeader.bind(res)
    res.setHeader = (name, value) =>
      name.toLowerCase() === 'www-authenticate' ? res : set(name, value)
    next()
  })
}
app.use(express.json())
app.use(mcpAuthMetadataRouter({ oauthMetadata, resourceServerUrl: resource }))
const auth = requireBearerAuth({
  resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(resource),
  verifier: {
    async verifyAccessToken(token) {
      try {
        const { payload } = await jwtVerify(token, jwks, { issuer, audience })
        return {
          token,
          clientId: String(payload.cid ?? payload.client_id ?? ''),
          scopes: Array.isArray(payload.scp) ? payload.scp.map(String) : [],
          ...(payload.exp !== undefined ? { expiresAt: payload.exp } : {}),
        }
      } catch (err) {
        throw new InvalidTokenError((err as Error).message)
      }
    },
  },
})
app.post('/mcp', auth, async (req, res) => {
  const server = new McpServer({ name: 'sdk-resource-server', version: '1.0.0' })
  server.registerTool('echo', { description: 'echo' }, async () => ({
    content: [{ type: 'text', text: 'echo' }],
  }))
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined })
  res.on('close', () => {
    void transport.close()
    void server.close()
  })
  await server.connect(transport)
  await transport.handleRequest(req, res, req.body)
})
app.listen(Number(env('PORT')), '127.0.0.1')
