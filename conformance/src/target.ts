/**
 * `--target` without a person at the keyboard (docs/peers.md, item 8): the configuration printed for a
 * target is exactly what the checks assume (its resource is `<configured base>/mcp`, its admin
 * address the one `--admin` names, the extra gateways only those the options name), and
 * `--target-command` starts the target itself with that configuration in its environment, waits
 * until it answers, and ends its whole process group afterwards.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { MockIdp } from '@gatehouse/mock-idp'
import type { McpBackend } from '@gatehouse/mock-mcp'
import { stringify } from 'yaml'
import { OPAQUE_SERVER } from './fixtures.js'
import { APP_ORIGIN, CONFIGURED_HOST, gatehouseConfig } from './harness-config.js'
import { kubernetesManifests } from './target-manifests.js'
import type { Target } from './types.js'

/** What the operator said about the target. */
export interface TargetOptions {
  /** Where the suite connects (`--target`). */
  target: string
  /** The base of the resource (`--configured-base`, default the target). */
  configuredBase: string
  admin?: string
  proxiedTarget?: string
  scopedTarget?: string
  /** A gateway in broker mode (`--broker-target`, profile `broker`), on loopback. */
  brokerTarget?: string
  /**
   * A gateway/route that accepts opaque tokens by introspection at the suite's IdP
   * (`--opaque-target`, OPQ-*); without it those checks are skipped, saying so.
   */
  opaqueTarget?: string
  brokenPath?: string
}

/** The port of a URL, the scheme's default when it names none. */
export const portOf = (u: string): number => {
  const parsed = new URL(u)
  return Number(parsed.port || (parsed.protocol === 'https:' ? 443 : 80))
}

/**
 * The gatehouse configuration of a target, as the checks will judge it: the harness's own
 * configuration with the resources and ports the options name, and without the gateways, routes
 * and policies the options do not ask for.
 */
export function targetGatehouseConfig(
  f: { idp: MockIdp; backend: McpBackend },
  o: TargetOptions,
): Record<string, unknown> {
  const ports = {
    gateway: portOf(o.target),
    proxied: o.proxiedTarget ? portOf(o.proxiedTarget) : 1,
    scoped: o.scopedTarget ? portOf(o.scopedTarget) : 2,
    admin: o.admin ? portOf(o.admin) : 15000,
    ...(o.brokerTarget ? { broker: portOf(o.brokerTarget) } : {}),
    ...(o.opaqueTarget ? { opaque: portOf(o.opaqueTarget) } : {}),
  }
  let text = JSON.stringify(gatehouseConfig(f, ports))
  text = text.replaceAll(`http://${CONFIGURED_HOST}:${ports.gateway}`, o.configuredBase)
  if (o.proxiedTarget)
    text = text.replaceAll(`http://${CONFIGURED_HOST}:${ports.proxied}`, o.proxiedTarget)
  if (o.scopedTarget)
    text = text.replaceAll(`http://${CONFIGURED_HOST}:${ports.scoped}`, o.scopedTarget)
  const config = JSON.parse(text) as {
    config: Record<string, unknown>
    gateways: Record<string, unknown>
    routes: Record<string, { rules?: Array<{ matches?: Array<{ path?: { value?: string } }> }> }>
    policies: Record<string, unknown>
  }
  config.config.adminAddr = o.admin ? new URL(o.admin).host : 'off'
  const drop = (gateway: string, route: string, policy: string) => {
    delete config.gateways[gateway]
    delete config.routes[route]
    delete config.policies[policy]
  }
  if (!o.proxiedTarget) drop('proxied', 'mcp-proxied', 'mcp-auth-proxied')
  if (!o.scopedTarget) drop('scoped', 'mcp-scoped', 'mcp-auth-scoped')
  if (!o.brokenPath) drop('_', 'broken', 'broken-auth')
  else {
    const match = config.routes.broken?.rules?.[0]?.matches?.[0]?.path
    if (match) match.value = o.brokenPath
  }
  return config
}

/**
 * The environment `--target-command` runs with: what a resource server needs to trust the suite's
 * IdP and to name its resource, and the whole gatehouse configuration as a file.
 */
export function targetEnv(
  f: { idp: MockIdp; backend: McpBackend },
  o: TargetOptions,
  configFile: string,
): Record<string, string> {
  return {
    ...(o.opaqueTarget ? opaqueEnv(f) : {}),
    GATEHOUSE_CONFORMANCE_ISSUER: f.idp.issuer,
    GATEHOUSE_CONFORMANCE_JWKS_URI: `${f.idp.issuer}/v1/keys`,
    GATEHOUSE_CONFORMANCE_AUDIENCE: f.idp.audience,
    GATEHOUSE_CONFORMANCE_RESOURCE: `${o.configuredBase}/mcp`,
    GATEHOUSE_CONFORMANCE_PORT: String(portOf(o.target)),
    GATEHOUSE_CONFORMANCE_BACKEND_URL: `${f.backend.origin}/mcp`,
    GATEHOUSE_CONFORMANCE_ALLOWED_ORIGIN: APP_ORIGIN,
    GATEHOUSE_CONFORMANCE_CONFIG: configFile,
  }
}

/**
 * What a target needs to introspect the suite's opaque tokens (RFC 7662 §2.1: the protected
 * resource authenticates to the introspection endpoint): its URL, issuer, audience, and the
 * service client's credentials (a test IdP's, made for this run).
 */
function opaqueEnv(f: { idp: MockIdp }): Record<string, string> {
  const issuer = f.idp.issuerFor(OPAQUE_SERVER.id)
  return {
    GATEHOUSE_CONFORMANCE_OPAQUE_ISSUER: issuer,
    GATEHOUSE_CONFORMANCE_OPAQUE_AUDIENCE: OPAQUE_SERVER.audience,
    GATEHOUSE_CONFORMANCE_INTROSPECTION_URL: `${issuer}/v1/introspect`,
    GATEHOUSE_CONFORMANCE_INTROSPECTION_CLIENT_ID: f.idp.serviceClient.clientId,
    GATEHOUSE_CONFORMANCE_INTROSPECTION_CLIENT_SECRET: f.idp.serviceClient.clientSecret,
  }
}

/**
 * The opaque-token route of a `--target` run (OPQ-*): where it listens and how a check gets a
 * token, the client-credentials grant at the suite's opaque authorization server.
 */
export function opaqueTargetOf(
  f: { idp: MockIdp },
  opaqueTarget: string,
): NonNullable<Target['opaque']> {
  return {
    base: opaqueTarget,
    tokenEndpoint: `${f.idp.issuerFor(OPAQUE_SERVER.id)}/v1/token`,
    clientId: f.idp.serviceClient.clientId,
    clientSecret: f.idp.serviceClient.clientSecret,
  }
}

/** The environment a plain MCP resource server needs to trust the suite's IdP and name itself. */
const RESOURCE_SERVER_ENV = [
  'GATEHOUSE_CONFORMANCE_ISSUER',
  'GATEHOUSE_CONFORMANCE_JWKS_URI',
  'GATEHOUSE_CONFORMANCE_AUDIENCE',
  'GATEHOUSE_CONFORMANCE_RESOURCE',
] as const

/**
 * What a `--target` run prints before judging: for a resource server, the four environment values
 * it needs; with `full` (a gateway judged in more profiles, or `--print-config`), also the whole
 * environment, the gatehouse YAML and the seed's Kubernetes manifests the checks assume.
 */
export function targetSetupText(
  f: { idp: MockIdp; backend: McpBackend },
  o: TargetOptions,
  full: boolean,
): string {
  const env = targetEnv(f, o, '<the YAML below, as a file>')
  if (!full) {
    return [
      'The suite runs an IdP for the target. Configure your MCP server to accept its tokens (--target-command gets these in its environment; --print-config prints a whole gatehouse configuration):',
      ...RESOURCE_SERVER_ENV.map((k) => `  ${k}=${env[k]}`),
      ...(o.opaqueTarget
        ? [
            'and, for --opaque-target, to introspect its opaque tokens (RFC 7662):',
            ...Object.keys(opaqueEnv(f)).map((k) => `  ${k}=${env[k]}`),
          ]
        : []),
      '',
      '',
    ].join('\n')
  }
  return [
    'The suite runs mock-idp and mcp-backend for the target. Configure the target with:',
    '',
    `# environment (--target-command gets it): ${Object.entries(env)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')}`,
    '',
    '# gatehouse standalone YAML: exactly what the checks assume (ports, resource, adminAddr)',
    stringify(targetGatehouseConfig(f, o)),
    "# or the seed's Kubernetes manifests",
    kubernetesManifests(f, `${o.configuredBase}/mcp`),
    '',
  ].join('\n')
}

/** A target the suite started. */
export interface StartedTarget {
  /** Ends the target's whole process group (SIGTERM, then SIGKILL after 5 s). */
  stop(): Promise<void>
}

/** The last lines of a stream, for a message. */
const tail = (s: string) => s.trim().split('\n').slice(-5).join('\n')

/**
 * Runs `command` through a shell in its own process group with the target's environment and the
 * gatehouse configuration in a temporary file, and resolves once `readyUrl` answers any HTTP
 * status (polling, up to `timeoutMs`).
 * @throws Error saying why when the command exits first or the time runs out (it is then stopped).
 */
export async function startTargetCommand(
  command: string,
  f: { idp: MockIdp; backend: McpBackend },
  o: TargetOptions,
  timeoutMs: number,
): Promise<StartedTarget> {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-target-'))
  const configFile = join(dir, 'gatehouse.yaml')
  writeFileSync(configFile, stringify(targetGatehouseConfig(f, o)))
  const child: ChildProcess = spawn(command, {
    shell: true,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...targetEnv(f, o, configFile) },
  })
  let output = ''
  const keep = (c: Buffer) => {
    output = (output + c.toString()).slice(-8192)
  }
  child.stdout?.on('data', keep)
  child.stderr?.on('data', keep)
  let exited: string | undefined
  const exit = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exited = `exited (${code ?? signal})`
      resolve()
    })
    child.once('error', (err) => {
      exited = `did not start: ${err.message}`
      resolve()
    })
  })
  const signal = (s: NodeJS.Signals) => {
    try {
      if (child.pid) process.kill(-child.pid, s)
    } catch {
      // The group is gone already.
    }
  }
  const stop = async () => {
    if (!exited) {
      signal('SIGTERM')
      const killer = setTimeout(() => signal('SIGKILL'), 5000)
      await exit
      clearTimeout(killer)
    }
    // Whatever the command left in its group goes with it.
    signal('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  }
  const deadline = Date.now() + timeoutMs
  const readyUrl = `${o.target}/mcp`
  for (;;) {
    if (exited) {
      await stop()
      throw new Error(`the target command ${exited} before answering:\n${tail(output)}`)
    }
    try {
      await fetch(readyUrl, { method: 'POST', signal: AbortSignal.timeout(2000) })
      return { stop }
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      await stop()
      throw new Error(
        `the target did not answer at ${readyUrl} within ${timeoutMs} ms (--target-timeout):\n${tail(output)}`,
      )
    }
    await new Promise((r) => setTimeout(r, 200))
  }
}
