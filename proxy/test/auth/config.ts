/** Gatehouse configurations with an auth policy, for the auth tests. */
import type { GatehouseConfigInput } from '../../src/config/schema.js'

export interface AuthConfigOptions {
  idpPort: number
  backendPort: number
  issuer: string
  jwksPath?: string
  clientId?: string | null
  /** No `mcp` block: a plain JWT policy, which serves no OAuth documents. */
  noMcp?: boolean
  rules?: string[] | null
  mode?: 'Strict' | 'Optional'
  issuerMode?: 'Provider' | 'Gateway'
  requiredScopes?: string[]
  /** The configured resource; default http://gateway.example:3000/mcp (not the real address). */
  resource?: string
  cors?: boolean
  /** The CORS filter's allowHeaders; default the seed's Origin, Authorization, Content-Type. */
  allowHeaders?: string[]
  /** `mcp.broker` (broker mode, docs/design/broker.md); absent: pass-through. */
  broker?: Record<string, unknown>
}

/** The seed's reference setup, pointed at the given IdP and backend. */
export function authConfig(o: AuthConfigOptions): GatehouseConfigInput {
  return {
    gateways: { default: { port: 3000, address: '127.0.0.1' } },
    backends: {
      'mcp-backend': { static: { host: '127.0.0.1', port: o.backendPort } },
      idp: {
        static: { host: '127.0.0.1', port: o.idpPort },
        timeouts: { connect: '1s', response: '2s' },
      },
    },
    routes: {
      mcp: {
        rules: [
          {
            matches: [
              { path: { type: 'PathPrefix', value: '/mcp' } },
              { path: { type: 'PathPrefix', value: '/.well-known/oauth-protected-resource/mcp' } },
              {
                path: { type: 'PathPrefix', value: '/.well-known/oauth-authorization-server/mcp' },
              },
              // The root form MCP 2025-11-25 clients fall back to.
              { path: { type: 'Exact', value: '/.well-known/oauth-protected-resource' } },
            ],
            filters:
              o.cors === false
                ? []
                : [
                    {
                      type: 'CORS',
                      cors: {
                        allowCredentials: true,
                        allowHeaders: o.allowHeaders ?? ['Origin', 'Authorization', 'Content-Type'],
                        allowMethods: ['*'],
                        allowOrigins: ['*'],
                        exposeHeaders: ['Origin', 'Mcp-Session-Id'],
                        maxAge: 86400,
                      },
                    },
                  ],
            backendRefs: [{ name: 'mcp-backend' }],
          },
        ],
      },
    },
    policies: {
      'mcp-auth': {
        targetRefs: [{ kind: 'HTTPRoute', name: 'mcp' }],
        traffic: {
          jwtAuthentication: {
            mode: o.mode ?? 'Strict',
            providers: [
              {
                issuer: o.issuer,
                audiences: ['api://default'],
                jwks: {
                  remote: {
                    backendRef: { name: 'idp' },
                    jwksPath: o.jwksPath ?? '/oauth2/default/v1/keys',
                  },
                },
              },
            ],
            ...(o.noMcp ? {} : { mcp: mcpBlock(o) }),
          },
          ...(o.rules === null
            ? {}
            : {
                authorization: {
                  action: 'Allow',
                  policy: { matchExpressions: o.rules ?? ['"AI-Users" in jwt.groups'] },
                },
              }),
        },
      },
    },
  }
}

/** The policy's `mcp` block (seed: BridgedIdp). */
function mcpBlock(o: AuthConfigOptions) {
  return {
    provider: 'BridgedIdp' as const,
    ...(o.clientId === null ? {} : { clientId: o.clientId ?? 'gatehouse-demo-client' }),
    resourceMetadata: {
      resource: o.resource ?? 'http://gateway.example:3000/mcp',
      scopesSupported: ['openid', 'profile'],
      bearerMethodsSupported: ['header' as const],
    },
    ...(o.issuerMode ? { issuerMode: o.issuerMode } : {}),
    ...(o.requiredScopes ? { requiredScopes: o.requiredScopes } : {}),
    ...(o.broker ? { broker: o.broker } : {}),
  }
}
