/**
 * An MCP resource server built the way the official SDK 1.x documents it, for judging with
 * `npm run conformance -- --target` (docs/peers.md's real-peer matrix: a resource server we did not
 * write the auth of): Express, `mcpAuthMetadataRouter` (RFC 9728 protected-resource metadata at
 * the path form, the authorization server's metadata at `/.well-known/oauth-authorization-server`)
 * and `requireBearerAuth` in front of a stateless Streamable HTTP `McpServer` with an `echo` tool.
 *
 * The one part the SDK leaves to the application, the token verifier, checks a JWT access token
 * with jose against the authorization server's JWKS: signature, `iss`, `aud`, `exp` (RFC 9068
 * §4). Nothing else is added: no CORS, no Origin check, no policy — what a developer following
 * the SDK's example gets.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js'
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js'
import type { OAuthTokenVerifier } from '@modelcontextprotocol/sdk/server/auth/provider.js'
import {
  getOAuthProtectedResourceMetadataUrl,
  mcpAuthMetadataRouter,
} from '@modelcontextprotocol/sdk/server/auth/router.js'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { OAuthMetadata } from '@modelcontextprotocol/sdk/shared/auth.js'
import express from 'express'
import { createRemoteJWKSet, jwtVerify } from 'jose'
import { z } from 'zod'

/** Options of {@link startSdkResourceServer}. */
export interface SdkResourceServerOptions {
  /** The authorization server's issuer: tokens must carry it as `iss`; its metadata is served. */
  issuer: string
  /** Its key set; default the `jwks_uri` of its metadata. */
  jwksUrl?: string
  /** The `aud` tokens must carry (one of them, if several). */
  audience: string | string[]
  /**
   * The authorization server's metadata, served at `/.well-known/oauth-authorization-server`;
   * default fetched from `<issuer>/.well-known/openid-configuration` (OIDC Discovery), else the
   * RFC 8414 path form.
   */
  authorizationServerMetadata?: OAuthMetadata
  /** Scopes every token must have (`requireBearerAuth`'s `requiredScopes`); default none. */
  requiredScopes?: string[]
  /** Scopes listed in the protected-resource metadata; default `requiredScopes`. */
  scopesSupported?: string[]
  /** Loopback port; default 0 (any free one). */
  port?: number
}

/** A running SDK resource server. */
export interface SdkResourceServer {
  /** The MCP endpoint and resource identifier, `http://127.0.0.1:<port>/mcp`. */
  url: string
  origin: string
  port: number
  /** Where its protected-resource metadata is (the challenge's `resource_metadata`). */
  resourceMetadataUrl: string
  stop(): Promise<void>
}

/** The authorization server's metadata: OIDC Discovery, then the RFC 8414 path form. */
async function fetchMetadata(issuer: string): Promise<OAuthMetadata> {
  const url = new URL(issuer)
  const candidates = [
    `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`,
    `${url.origin}/.well-known/oauth-authorization-server${url.pathname === '/' ? '' : url.pathname}`,
  ]
  for (const candidate of candidates) {
    const res = await fetch(candidate, { signal: AbortSignal.timeout(10_000) })
    if (res.ok) return (await res.json()) as OAuthMetadata
  }
  throw new Error(`no authorization server metadata for ${issuer} at ${candidates.join(' or ')}`)
}

/** A verifier of JWT access tokens (RFC 9068) against the issuer's keys. */
function jwtVerifier(issuer: string, jwksUrl: string, audience: string | string[]) {
  const keys = createRemoteJWKSet(new URL(jwksUrl))
  const verifier: OAuthTokenVerifier = {
    async verifyAccessToken(token) {
      try {
        const { payload } = await jwtVerify(token, keys, { issuer, audience })
        const scopes = Array.isArray(payload.scp)
          ? payload.scp.map(String)
          : typeof payload.scope === 'string'
            ? payload.scope.split(' ').filter(Boolean)
            : []
        const clientId = [payload.client_id, payload.cid, payload.azp].find(
          (c): c is string => typeof c === 'string',
        )
        return {
          token,
          clientId: clientId ?? '',
          scopes,
          ...(typeof payload.exp === 'number' ? { expiresAt: payload.exp } : {}),
        }
      } catch (err) {
        // The SDK answers 401 invalid_token only for its own error type; anything else is a 500.
        throw new InvalidTokenError(`the access token is not valid: ${(err as Error).message}`)
      }
    },
  }
  return verifier
}

/** One stateless MCP server per request (the SDK's stateless Streamable HTTP pattern). */
function mcpServer(): McpServer {
  const server = new McpServer({ name: 'sdk-resource-server', version: '0.1.0' })
  server.registerTool(
    'echo',
    { description: 'Returns the text it was given.', inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  )
  return server
}

/**
 * Starts the SDK-built resource server on 127.0.0.1, protecting `/mcp` with tokens of `issuer`
 * for `audience`.
 * @example
 * const rs = await startSdkResourceServer({ issuer: idp.issuer, audience: idp.audience })
 * // npm run conformance -- --target rs.url …
 */
export async function startSdkResourceServer(
  options: SdkResourceServerOptions,
): Promise<SdkResourceServer> {
  const metadata = options.authorizationServerMetadata ?? (await fetchMetadata(options.issuer))
  const fromMetadata = typeof metadata.jwks_uri === 'string' ? metadata.jwks_uri : undefined
  const jwksUrl = options.jwksUrl ?? fromMetadata
  if (!jwksUrl) throw new Error(`no jwksUrl given and ${options.issuer}'s metadata has no jwks_uri`)
  const verifier = jwtVerifier(options.issuer, jwksUrl, options.audience)

  const server: Server = createServer()
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as AddressInfo
  const origin = `http://127.0.0.1:${port}`
  const resource = new URL(`${origin}/mcp`)
  const resourceMetadataUrl = getOAuthProtectedResourceMetadataUrl(resource)

  const app = express()
  app.use(
    mcpAuthMetadataRouter({
      oauthMetadata: metadata,
      resourceServerUrl: resource,
      scopesSupported: options.scopesSupported ?? options.requiredScopes ?? [],
      resourceName: 'SDK example resource server',
    }),
  )
  const bearer = requireBearerAuth({
    verifier,
    requiredScopes: options.requiredScopes ?? [],
    resourceMetadataUrl,
  })
  app.post('/mcp', bearer, express.json(), async (req, res) => {
    const mcp = mcpServer()
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined })
    res.on('close', () => {
      void transport.close()
      void mcp.close()
    })
    await mcp.connect(transport)
    await transport.handleRequest(req, res, req.body)
  })
  // Stateless: no standalone SSE stream, no session to delete.
  app.all('/mcp', bearer, (_req, res) => {
    res
      .status(405)
      .set('allow', 'POST')
      .json({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Method not allowed.' },
        id: null,
      })
  })
  server.on('request', app)

  return {
    url: resource.href,
    origin,
    port,
    resourceMetadataUrl,
    stop() {
      server.closeAllConnections()
      return new Promise((resolve) => server.close(() => resolve()))
    },
  }
}
