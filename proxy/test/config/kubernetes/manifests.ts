/**
 * Manifests for the Kubernetes translation tests: a Gateway, two backends, an MCP route and a
 * policy, each overridable, and a loader that writes them to a temporary file.
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { stringify } from 'yaml'
import { type ConfigSource, loadConfigSources } from '../../../src/config/sources.js'

export const GROUP = 'gateway.example.dev'
export const GW = 'gateway.networking.k8s.io'

/** A resource document. */
export function res(
  apiVersion: string,
  kind: string,
  name: string,
  spec: Record<string, unknown>,
  namespace?: string,
): Record<string, unknown> {
  return { apiVersion, kind, metadata: { name, ...(namespace ? { namespace } : {}) }, spec }
}

export const gateway = (port = 3000) =>
  res(`${GW}/v1`, 'Gateway', 'gw', {
    gatewayClassName: 'gatehouse',
    listeners: [{ name: 'http', protocol: 'HTTP', port }],
  })

export const backend = (name: string, port = 8090, namespace?: string) =>
  res(
    `${GROUP}/v1alpha1`,
    'GatewayBackend',
    name,
    { static: { host: '127.0.0.1', port } },
    namespace,
  )

export const MATCHES = [
  '/mcp',
  '/.well-known/oauth-protected-resource/mcp',
  '/.well-known/oauth-authorization-server/mcp',
].map((value) => ({ path: { type: 'PathPrefix', value } }))

export const route = (
  backendRef: Record<string, unknown> = {
    group: GROUP,
    kind: 'GatewayBackend',
    name: 'mcp-backend',
  },
  parentRef: Record<string, unknown> = { name: 'gw' },
) =>
  res(`${GW}/v1`, 'HTTPRoute', 'mcp', {
    parentRefs: [parentRef],
    rules: [{ matches: MATCHES, backendRefs: [backendRef] }],
  })

export const policy = (
  jwksRef: Record<string, unknown> = { group: GROUP, kind: 'GatewayBackend', name: 'idp' },
  target = 'mcp',
) =>
  res(`${GROUP}/v1alpha1`, 'GatewayPolicy', 'mcp-auth', {
    targetRefs: [{ group: GW, kind: 'HTTPRoute', name: target }],
    traffic: {
      jwtAuthentication: {
        mode: 'Strict',
        providers: [
          {
            issuer: 'http://127.0.0.1:9000/oauth2/default',
            audiences: ['api://default'],
            jwks: { remote: { backendRef: jwksRef, jwksPath: '/oauth2/default/v1/keys' } },
          },
        ],
      },
    },
  })

/** The whole set, healthy. */
export const healthy = () => [
  gateway(),
  backend('mcp-backend'),
  backend('idp', 9000),
  route(),
  policy(),
]

/** YAML text of several documents. */
export const yamlOf = (docs: readonly unknown[]) => docs.map((d) => stringify(d)).join('---\n')

/** Writes files into a fresh directory; returns its path. */
export function writeDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-k8s-'))
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
  return dir
}

/** Loads documents written as one file. */
export function load(docs: readonly unknown[]): Promise<ConfigSource> {
  const dir = writeDir({ 'manifests.yaml': yamlOf(docs) })
  return loadConfigSources([join(dir, 'manifests.yaml')], { env: {} })
}

/** The findings of one resource. */
export function findingsOf(source: ConfigSource, kind: string, name: string) {
  const f = source.resources.find((r) => r.kind === kind && r.name === name)
  if (!f) throw new Error(`no findings for ${kind} ${name}`)
  return f
}

/** The condition of a type, of one resource. */
export function condition(source: ConfigSource, kind: string, name: string, type: string) {
  return findingsOf(source, kind, name).conditions.find((c) => c.type === type)
}

/** The annotation that lets a route (or every route of a Gateway) serve without authentication. */
export const PUBLIC = `${GROUP}/allow-unauthenticated`

/** `doc` with `metadata` fields added (annotations, namespace, creationTimestamp, ...). */
export function withMetadata(
  doc: Record<string, unknown>,
  metadata: Record<string, unknown>,
): Record<string, unknown> {
  return { ...doc, metadata: { ...(doc.metadata as object), ...metadata } }
}

/** `doc` marked public: `<group>/allow-unauthenticated: "true"`. */
export const publicly = (doc: Record<string, unknown>) =>
  withMetadata(doc, { annotations: { [PUBLIC]: 'true' } })
