/**
 * The embedded stack: mock-idp and mcp-backend in this process (fixtures.ts), and the reference
 * proxy as a child process (gatehouse-process.ts) configured with every route shape the checks
 * need (harness-config.ts). The configuration a `--target` needs is target.ts and
 * target-manifests.ts. The names other modules import from here stay exported here.
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { controlClient, createTestCertificates } from '@gatehouse/mock-idp'
import { freePorts } from '@gatehouse/support'
import { type Fixtures, OPAQUE_SERVER } from './fixtures.js'
import { type GatehouseProcess, type GatewayOptions, startGatehouse } from './gatehouse-process.js'
import {
  CONFIGURED_HOST,
  gatehouseConfig,
  PLANTED_SECRET,
  type Ports,
  type TlsListener,
} from './harness-config.js'
import type { Target } from './types.js'

export { type Fixtures, startFixtures } from './fixtures.js'
export {
  type GatehouseProcess,
  type GatewayOptions,
  PACKAGE_ROOT,
  ROOT,
  referenceProxy,
  startGatehouse,
} from './gatehouse-process.js'
export { CORS, MCP_MATCHES } from './gateway-config.js'
export {
  APP_ORIGIN,
  CONFIGURED_HOST,
  gatehouseConfig,
  MCP_TOOLS_TRAFFIC,
  type Ports,
  type TlsListener,
} from './harness-config.js'
export { kubernetesManifests } from './target-manifests.js'

/** A running gateway child process and the target it presents. */
export interface RunningGateway extends GatehouseProcess {
  target: Target
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
  // Seven ports at once, all distinct: chosen one by one, two could be the same (freePorts).
  const [gateway, proxied, scoped, broker, opaque, admin, tlsPort] = (await freePorts(7)) as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ]
  const ports: Ports = { gateway, proxied, scoped, broker, opaque, admin }
  const tls = await tlsListener(tlsPort)
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
    opaque: {
      base: `http://127.0.0.1:${ports.opaque}`,
      tokenEndpoint: `${f.idp.issuerFor(OPAQUE_SERVER.id)}/v1/token`,
      clientId: f.idp.serviceClient.clientId,
      clientSecret: f.idp.serviceClient.clientSecret,
    },
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
    secrets: [PLANTED_SECRET, f.idp.serviceClient.clientSecret],
    allowShutdown: true,
  }
  return { target, ...gatehouse }
}
