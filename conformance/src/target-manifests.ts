/**
 * The seed's Kubernetes manifests for a `--target` gateway pointed at the suite's IdP and backend
 * (printed with `--print-config`; the embedded proxy's own manifests are kubernetes-config.ts).
 */
import type { MockIdp } from '@gatehouse/mock-idp'
import type { McpBackend } from '@gatehouse/mock-mcp'
import { stringify } from 'yaml'
import { CORS, MCP_MATCHES } from './gateway-config.js'
import { APP_ORIGIN, MCP_TOOLS_TRAFFIC } from './harness-config.js'

/** The seed's Kubernetes manifests for a target gateway pointed at the harness's IdP and backend. */
export function kubernetesManifests(
  f: { idp: MockIdp; backend: McpBackend },
  resource: string,
): string {
  const org = new URL(f.idp.orgUrl)
  const tls = org.protocol === 'https:'
  const idpPort = Number(org.port || (tls ? 443 : 80))
  const group = 'gateway.example.dev'
  const docs: Record<string, unknown>[] = [
    {
      apiVersion: `${group}/v1alpha1`,
      kind: 'GatewayBackend',
      metadata: { name: 'idp-jwks' },
      spec: { static: { host: org.hostname, port: idpPort } },
    },
    {
      apiVersion: `${group}/v1alpha1`,
      kind: 'GatewayBackend',
      metadata: { name: 'mcp-backend' },
      spec: { static: { host: '127.0.0.1', port: f.backend.port } },
    },
    {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'HTTPRoute',
      metadata: { name: 'mcp' },
      spec: {
        parentRefs: [{ group: 'gateway.networking.k8s.io', kind: 'Gateway', name: 'gateway' }],
        rules: [
          {
            matches: MCP_MATCHES,
            filters: [CORS],
            backendRefs: [{ group, kind: 'GatewayBackend', name: 'mcp-backend' }],
          },
        ],
      },
    },
    {
      apiVersion: `${group}/v1alpha1`,
      kind: 'GatewayPolicy',
      metadata: { name: 'mcp-auth' },
      spec: {
        targetRefs: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', name: 'mcp' }],
        traffic: {
          jwtAuthentication: {
            mode: 'Strict',
            providers: [
              {
                issuer: f.idp.issuer,
                audiences: [f.idp.audience],
                jwks: {
                  remote: {
                    backendRef: {
                      group,
                      kind: 'GatewayBackend',
                      name: 'idp-jwks',
                      port: idpPort,
                    },
                    jwksPath: '/oauth2/default/v1/keys',
                  },
                },
              },
            ],
            mcp: {
              provider: 'BridgedIdp',
              clientId: f.idp.publicClientId,
              resourceMetadata: {
                resource,
                scopesSupported: ['openid', 'profile'],
                bearerMethodsSupported: ['header'],
              },
              originValidation: { allowedOrigins: [APP_ORIGIN] },
            },
          },
          authorization: {
            action: 'Allow',
            policy: { matchExpressions: ['"AI-Users" in jwt.groups'] },
          },
        },
      },
    },
    {
      apiVersion: `${group}/v1alpha1`,
      kind: 'GatewayPolicy',
      metadata: { name: 'mcp-tools' },
      spec: {
        targetRefs: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', name: 'mcp' }],
        traffic: MCP_TOOLS_TRAFFIC,
      },
    },
  ]
  // Only an https IdP gets a BackendTLSPolicy: on a plain-HTTP one it would make the gateway speak
  // TLS to a port that does not (the embedded mock-idp is plain HTTP on loopback).
  if (tls) {
    docs.splice(2, 0, {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'BackendTLSPolicy',
      metadata: { name: 'idp-jwks-tls' },
      spec: {
        targetRefs: [{ group, kind: 'GatewayBackend', name: 'idp-jwks' }],
        validation: { hostname: org.hostname, wellKnownCACertificates: 'System' },
      },
    })
  }
  return `${docs.map((d) => stringify(d)).join('---\n')}`
}
