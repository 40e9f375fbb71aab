/**
 * The embedded stack: mock-idp and mcp-backend in this process, and a gateway as a child process
 * (the reference proxy, or a patched copy of it: a mutant, see mutants.ts). Also writes the configuration a target
 * needs — gatehouse YAML and the seed's Kubernetes manifests — for `--target` runs.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import {
  controlClient,
  createTestCertificates,
  type MockIdp,
  startMockIdp,
} from '@gatehouse/mock-idp'
import { type McpBackend, startMcpBackend } from '@gatehouse/mock-mcp'
import { freePort } from '@gatehouse/support'
import { stringify } from 'yaml'
import { REQUIRED_SCOPE } from './catalogue/scopes.js'
import { CORS, jwtPolicy, MCP_MATCHES, mcpRoute } from './gateway-config.js'
import { kubernetesFiles } from './kubernetes-config.js'
import type { Target } from './types.js'

/** Defined in gateway-config.ts; still exported here, where they were. */
export { CORS, MCP_MATCHES }

/** The repository root (where the reference proxy's entry points live). */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const TSX = join(ROOT, 'node_modules/.bin/tsx')

/** A planted secret: a private RSA exponent-like value inside an inline JWKS. */
const PLANTED_SECRET = 'conformance-planted-secret-d-value-6f1c2a'

/** The shared parts: IdP and MCP backend. */
export interface Fixtures {
  idp: MockIdp
  backend: McpBackend
  stop(): Promise<void>
}

/**
 * Starts mock-idp and mcp-backend in this process, on free loopback ports or the ones given (a
 * target configured beforehand: `--idp-port`, `--backend-port`).
 */
export async function startFixtures(
  ports: { idp?: number; backend?: number } = {},
): Promise<Fixtures> {
  const idp = await startMockIdp(ports.idp ? { port: ports.idp } : {})
  const backend = await startMcpBackend(ports.backend ? { port: ports.backend } : {})
  return {
    idp,
    backend,
    async stop() {
      await backend.stop()
      await idp.stop()
    },
  }
}

/** Ports of one gateway instance. */
export interface Ports {
  gateway: number
  proxied: number
  /** A gateway whose route requires the scope {@link REQUIRED_SCOPE} (AUTHZ-004). */
  scoped: number
  /** A gateway whose policy runs in broker mode (profile broker, docs/design/broker.md); none without. */
  broker?: number
  admin: number
}

/**
 * The one browser origin the harness's MCP routes accept besides their own (the CORS checks'
 * page): `mcp.originValidation.allowedOrigins`, so a foreign `Origin` gets 403 (TRN-005; MCP
 * 2025-06-18 Transports: servers MUST validate Origin). The seed's CORS `allowOrigins: *` alone
 * would accept any origin.
 */
export const APP_ORIGIN = 'http://conformance-app.example'

/** The configured host of the resource: deliberately not the address clients connect to. */
export const CONFIGURED_HOST = 'gateway.example'

/** The gatehouse configuration the harness runs (and prints for `--target`). */
export function gatehouseConfig(
  f: { idp: MockIdp; backend: McpBackend },
  ports: Ports,
  extraOrigins: readonly string[] = [],
  tls?: TlsListener,
): Record<string, unknown> {
  const org = new URL(f.idp.orgUrl)
  const provider = (jwksPath: string) => ({
    issuer: f.idp.issuer,
    audiences: [f.idp.audience],
    jwks: { remote: { backendRef: { name: 'idp' }, jwksPath } },
  })
  const mcp = (port: number, clientId?: string, extra: Record<string, unknown> = {}) => ({
    provider: 'BridgedIdp',
    ...(clientId ? { clientId } : {}),
    resourceMetadata: {
      resource: `http://${CONFIGURED_HOST}:${port}/mcp`,
      scopesSupported: ['openid', 'profile'],
      bearerMethodsSupported: ['header'],
    },
    originValidation: { allowedOrigins: [APP_ORIGIN, ...extraOrigins] },
    ...extra,
  })
  const authorization = {
    action: 'Allow',
    policy: { matchExpressions: ['"AI-Users" in jwt.groups'] },
  }
  return {
    config: {
      adminAddr: `127.0.0.1:${ports.admin}`,
      logLevel: 'info',
      // What is still open at stop is cut after 1 s instead of the default 10 s, so a stop never
      // reaches the 5 s SIGKILL and the process exits normally (the Stryker runner's coverage is
      // written on exit), even for a mutant that breaks the drain.
      drainTimeout: '1s',
    },
    gateways: {
      default: { port: ports.gateway, address: '127.0.0.1' },
      proxied: { port: ports.proxied, address: '127.0.0.1' },
      scoped: { port: ports.scoped, address: '127.0.0.1' },
      ...(ports.broker ? { broker: { port: ports.broker, address: '127.0.0.1' } } : {}),
      // Profile tls: an HTTPS listener, one certificate per server name (SNI).
      ...(tls
        ? {
            tls: {
              port: tls.port,
              address: '127.0.0.1',
              tls: {
                certificates: tls.certificates.map(({ hostname, certFile, keyFile }) => ({
                  hostname,
                  certFile,
                  keyFile,
                })),
              },
            },
          }
        : {}),
    },
    backends: {
      'mcp-backend': { static: { host: '127.0.0.1', port: f.backend.port } },
      idp: { static: { host: org.hostname, port: Number(org.port) } },
    },
    routes: {
      mcp: mcpRoute('default'),
      broken: {
        parentRefs: [{ name: 'default' }],
        rules: [
          {
            matches: [{ path: { type: 'PathPrefix', value: '/broken' } }],
            backendRefs: [{ name: 'mcp-backend' }],
          },
        ],
      },
      'mcp-proxied': mcpRoute('proxied'),
      'mcp-scoped': mcpRoute('scoped'),
      ...(ports.broker ? { 'mcp-broker': mcpRoute('broker') } : {}),
    },
    policies: {
      'mcp-auth': jwtPolicy(
        'mcp',
        {
          providers: [
            provider('/oauth2/default/v1/keys'),
            // A second provider with an inline key set whose private member is a planted secret:
            // the admin dump must never show it.
            {
              issuer: 'https://secrets.conformance.example/oauth2/x',
              audiences: ['api://secrets'],
              jwks: { inline: { keys: [{ ...SECRET_JWK, d: PLANTED_SECRET }] } },
            },
          ],
          // issuerMode Gateway: the metadata's issuer is the identifier clients derived its URL
          // from (RFC 8414 §3.3; ASM-006, ASM-007), not the seed's IdP issuer.
          mcp: mcp(ports.gateway, f.idp.publicClientId, { issuerMode: 'Gateway' }),
        },
        authorization,
      ),
      'broken-auth': jwtPolicy('broken', {
        providers: [provider('/oauth2/default/v1/wrong-keys')],
      }),
      // MCP-aware policy (profile mcp-policy): composed with mcp-auth on the same route, whose
      // verified claims it reads.
      'mcp-tools': {
        targetRefs: [{ kind: 'HTTPRoute', name: 'mcp' }],
        traffic: MCP_TOOLS_TRAFFIC,
      },
      // A route that wants a scope the IdP's tokens lack by default, and names it in the 403
      // (AUTHZ-004; MCP 2025-11-25 "Scope Challenge Handling").
      'mcp-auth-scoped': jwtPolicy(
        'mcp-scoped',
        {
          providers: [provider('/oauth2/default/v1/keys')],
          mcp: mcp(ports.scoped, f.idp.publicClientId, { requiredScopes: [REQUIRED_SCOPE] }),
        },
        { action: 'Allow', policy: { matchExpressions: [`"${REQUIRED_SCOPE}" in jwt.scp`] } },
      ),
      // Broker mode (profile broker): the gateway is its clients' authorization server and the
      // IdP's client. Client ID Metadata Documents over http are accepted (the harness serves them
      // on loopback), private addresses are not (BRK-007).
      ...(ports.broker
        ? {
            'mcp-auth-broker': jwtPolicy(
              'mcp-broker',
              {
                providers: [provider('/oauth2/default/v1/keys')],
                mcp: mcp(ports.broker, f.idp.publicClientId, {
                  // Memory: every run is fresh, and the suite's child may run on a Node without
                  // node:sqlite (the default store, docs/auth.md).
                  broker: { clientMetadataDocuments: { allowHttp: true }, store: { memory: {} } },
                  // A loopback resource: the broker's callback (<resource>/oauth/callback) must be
                  // a redirect URI the IdP accepts for its client, and mock-idp's public client
                  // accepts loopback ones (RFC 8252 §7.3). BRK-020… sign in through it.
                  resourceMetadata: {
                    resource: `http://127.0.0.1:${ports.broker}/mcp`,
                    scopesSupported: ['openid', 'profile'],
                    bearerMethodsSupported: ['header'],
                  },
                }),
              },
              authorization,
            ),
          }
        : {}),
      'mcp-auth-proxied': jwtPolicy(
        'mcp-proxied',
        { providers: [provider('/oauth2/default/v1/keys')], mcp: mcp(ports.proxied) },
        authorization,
      ),
    },
  }
}

/**
 * The MCP-aware policy the `mcp-policy` profile judges: `fetch` and the resource
 * `mock://notes/readme` only for the group `admins` (MOD-005), and at most 3 `tools/call` a
 * minute for each subject whose name starts with `ratelimit-` (the checks use fresh ones, so no
 * other check and no rerun is limited).
 */
export const MCP_TOOLS_TRAFFIC = {
  mcpAuthorization: {
    rules: [
      { deny: '!("admins" in jwt.groups) && mcp.tool.name == "fetch"' },
      { deny: '!("admins" in jwt.groups) && mcp.resource.uri == "mock://notes/readme"' },
    ],
  },
  localRateLimit: [
    {
      name: 'conformance-per-subject',
      maxTokens: 3,
      tokensPerFill: 3,
      fillInterval: '1m',
      key: 'jwt.sub',
      when: 'mcp.method == "tools/call" && jwt.sub.startsWith("ratelimit-")',
    },
  ],
}

/** A public RSA key (the harness only needs a well-formed JWK to carry the planted secret). */
const SECRET_JWK = {
  kty: 'RSA',
  kid: 'planted',
  e: 'AQAB',
  n: 'sXchDaQebHnPiGvyDOAT4saGEUetSyo9MKLOoWFsueri23bOdgWp4Dy1WlUzewbgBHod5pcM9H95GQRV3JDXboIRROSBigeC5yjU1hGzHHyXss8UDprecbAYxknTcQkhslANGRUZmdTOQ5qTRsLAt6BTYuyvVRdhS8exSZEy_c4gs_7svlJJQ4H9_NxsiIoLwAEk7-Q3UXERGYw_75IDrGA84-lA_-Ct4eTlXHBIY2EaV7t7LjJaynVJCpkv4LKjTTAumiGUIuQhrNhZLuF_RJLqHpM2kgWFLU7-VTdL1VbC2tejvcI2BlMkEpk1BzBZI0KQB0GaDWFLN-aEAw3vRw',
}

/** A running gateway child process and the target it presents. */
export interface RunningGateway {
  target: Target
  child: ChildProcess
  /** Everything the process wrote (for diagnostics). */
  output(): string
  stop(): Promise<void>
}

/** Options of {@link startGateway}. */
export interface GatewayOptions {
  /** The `proxy/` directory to run (`bin/gatehouse.ts` in it). Default: the repository's proxy. */
  proxyDir?: string
  /** Browser origins the MCP routes accept besides {@link APP_ORIGIN} (a test's page). */
  extraOrigins?: readonly string[]
  /** The command line before `-f <config>`, instead of tsx and `bin/gatehouse.ts` (e.g. `node` and
   * a bundle built from mutated sources: `npm run conformance:stryker`). */
  command?: readonly string[]
  /** The process's environment. Default: this process's. */
  env?: NodeJS.ProcessEnv
  /**
   * How the configuration is written: gatehouse's standalone YAML (default) or Kubernetes
   * manifests (`kubernetes-config.ts`), in a directory given to `-f`.
   */
  configFormat?: 'standalone' | 'kubernetes'
}

/** A gatehouse child process started by {@link startGatehouse}. */
export interface GatehouseProcess {
  child: ChildProcess
  /** Everything the process wrote (for diagnostics). */
  output(): string
  /** SIGTERM, then SIGKILL after 5 s; resolves when the process has exited. */
  stop(): Promise<void>
}

/**
 * Starts the reference proxy (or a patched copy, `options.proxyDir`) with a configuration object,
 * written to a temporary YAML file; resolves once it logs that it is listening.
 */
export async function startGatehouse(
  config: Record<string, unknown>,
  options: GatewayOptions = {},
): Promise<GatehouseProcess> {
  const entry = join(options.proxyDir ?? join(ROOT, 'proxy'), 'bin/gatehouse.ts')
  if (!options.command && (!existsSync(entry) || !existsSync(TSX))) {
    // The installed tool (`gatehouse-conformance`) carries the suite, not the reference proxy.
    throw new Error(
      'the embedded reference proxy runs only in a checkout of the Gatehouse repository; pass --target <base_url> to judge a running gateway',
    )
  }
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-conformance-'))
  let file = join(dir, 'gatehouse.yaml')
  if (options.configFormat === 'kubernetes') {
    file = join(dir, 'manifests')
    mkdirSync(file)
    for (const [name, text] of Object.entries(kubernetesFiles(config)))
      writeFileSync(join(file, name), text)
  } else {
    writeFileSync(file, stringify(config))
  }
  const [command, ...prefix] = options.command ?? [TSX, entry]
  const child = spawn(command as string, [...prefix, '-f', file], {
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: ROOT,
    env: options.env ?? process.env,
  })
  let out = ''
  child.stdout?.on('data', (c: Buffer) => {
    out += c.toString()
  })
  child.stderr?.on('data', (c: Buffer) => {
    out += c.toString()
  })
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`the gateway did not start within 30 s:\n${out.slice(-2000)}`))
    }, 30_000)
    const onData = () => {
      if (out.includes('gatehouse listening')) {
        clearTimeout(timer)
        resolve()
      }
    }
    child.stdout?.on('data', onData)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`the gateway exited (code ${code}) before listening:\n${out.slice(-2000)}`))
    })
  })
  return {
    child,
    output: () => out,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return
      const exited = new Promise((r) => child.once('exit', r))
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000)
      await exited
      clearTimeout(timer)
    },
  }
}

/** The HTTPS listener of profile tls: its port and certificates (files), with their CAs. */
export interface TlsListener {
  port: number
  certificates: { hostname: string; certFile: string; keyFile: string; caCertPem: string }[]
}

/** Server names of the HTTPS listener, each with its own generated CA and certificate. */
const TLS_NAMES = ['mcp.gateway.example', 'other.gateway.example']

/** Generates the HTTPS listener's certificates (one CA each, so a wrong one is told apart). */
async function tlsListener(port: number): Promise<TlsListener> {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-conformance-tls-'))
  const certificates = []
  for (const hostname of TLS_NAMES) {
    const c = await createTestCertificates(hostname)
    const certFile = join(dir, `${hostname}.crt`)
    const keyFile = join(dir, `${hostname}.key`)
    writeFileSync(certFile, c.certPem)
    writeFileSync(keyFile, c.keyPem, { mode: 0o600 })
    certificates.push({ hostname, certFile, keyFile, caCertPem: c.caCertPem })
  }
  return { port, certificates }
}

/** Starts a gateway process with the harness configuration. */
export async function startGateway(
  f: Fixtures,
  options: GatewayOptions = {},
): Promise<RunningGateway> {
  const ports: Ports = {
    gateway: await freePort(),
    proxied: await freePort(),
    scoped: await freePort(),
    broker: await freePort(),
    admin: await freePort(),
  }
  const tls = await tlsListener(await freePort())
  const gatehouse = await startGatehouse(
    gatehouseConfig(f, ports, options.extraOrigins, tls),
    options,
  )
  const control = controlClient(f.idp.controlUrl)
  const target: Target = {
    base: `http://127.0.0.1:${ports.gateway}`,
    configuredBase: `http://${CONFIGURED_HOST}:${ports.gateway}`,
    proxiedBase: `http://127.0.0.1:${ports.proxied}`,
    proxiedConfiguredBase: `http://${CONFIGURED_HOST}:${ports.proxied}`,
    scopedBase: `http://127.0.0.1:${ports.scoped}`,
    brokerBase: `http://127.0.0.1:${ports.broker}`,
    brokerConfiguredBase: `http://127.0.0.1:${ports.broker}`,
    brokenPath: '/broken',
    admin: `http://127.0.0.1:${ports.admin}`,
    tls: {
      base: `https://127.0.0.1:${tls.port}`,
      ca: tls.certificates.map((c) => c.caCertPem),
      serverNames: tls.certificates.map((c) => c.hostname),
    },
    idp: {
      issuer: f.idp.issuer,
      audience: f.idp.audience,
      orgUrl: f.idp.orgUrl,
      publicClientId: f.idp.publicClientId,
      control,
    },
    backendOrigin: f.backend.origin,
    secrets: [PLANTED_SECRET],
    allowShutdown: true,
  }
  return { target, ...gatehouse }
}

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
