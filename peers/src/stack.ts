/**
 * The demo stack of `npm start` (scripts/demo.ts) on free loopback ports, for driving real MCP
 * clients: mock-idp and mcp-backend in this process, and gatehouse in this process running
 * examples/standalone/gatehouse.yaml itself — whatever mode that file is in (pass-through today,
 * broker mode once the demo switches) — with only its ports and addresses moved.
 */
import { readFileSync } from 'node:fs'
import { type MockIdp, startMockIdp } from '@gatehouse/mock-idp'
import { type McpBackend, startMcpBackend } from '@gatehouse/mock-mcp'
import type { GatehouseConfigInput } from '@gatehouse/proxy'
import { startTestGatehouse, type TestGatehouse } from '@gatehouse/proxy/testing'
import { freePort } from '@gatehouse/support'
import { parse } from 'yaml'
import { ROOT } from './paths.js'

/** The demo's configuration file, the one `npm start` runs. */
export const DEMO_CONFIG = `${ROOT}examples/standalone/gatehouse.yaml`

/** The fixed ports and addresses of the demo (scripts/demo.ts) that {@link demoConfig} moves. */
const DEMO = {
  gateway: 'http://127.0.0.1:3000',
  idp: 'http://127.0.0.1:9000',
  idpIssuerVar: /\$\{IDP_ISSUER(:-[^}]*)?\}/g,
}

/** Options of {@link startDemoStack}. */
export interface DemoStackOptions {
  /**
   * Browser origins the IdP lets call its token endpoint (its "Trusted Origins"; `npm start`
   * trusts MCP Inspector's default origin). Default none.
   */
  trustedOrigins?: string[]
  /** Changes the moved configuration before gatehouse starts (diagnostics: another mode). */
  configure?(config: GatehouseConfigInput): void
}

/** A running demo stack. */
export interface DemoStack {
  idp: MockIdp
  backend: McpBackend
  gatehouse: TestGatehouse
  /** The MCP endpoint clients are given, `http://127.0.0.1:<port>/mcp`. */
  mcpUrl: string
  /** Stops gatehouse, the backend and the IdP. */
  stop(): Promise<void>
}

/**
 * The demo's gatehouse configuration with its gateway on `gatewayPort`, its backends at the
 * running IdP and backend, every URL naming `127.0.0.1:3000` or `:9000` moved with them, and the
 * admin server off (tests run many stacks side by side).
 */
export function demoConfig(
  yamlText: string,
  at: { gatewayPort: number; idp: MockIdp; backend: McpBackend },
): GatehouseConfigInput {
  const gateway = `http://127.0.0.1:${at.gatewayPort}`
  const text = yamlText.replace(DEMO.idpIssuerVar, at.idp.issuer)
  const move = (value: unknown): unknown => {
    if (typeof value === 'string') {
      return value.replaceAll(DEMO.gateway, gateway).replaceAll(DEMO.idp, at.idp.orgUrl)
    }
    if (Array.isArray(value)) return value.map(move)
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, move(v)]))
    }
    return value
  }
  const config = move(parse(text)) as Record<string, Record<string, unknown>>
  const idpOrg = new URL(at.idp.orgUrl)
  config.gateways = { default: { port: at.gatewayPort, address: '127.0.0.1' } }
  config.backends = {
    ...config.backends,
    'mcp-backend': { static: { host: '127.0.0.1', port: at.backend.port } },
    idp: { static: { host: idpOrg.hostname, port: Number(idpOrg.port) } },
  }
  config.config = { ...config.config, adminAddr: 'off' }
  return config as unknown as GatehouseConfigInput
}

/** Whether an error is a lost race for a port that was free a moment before. */
function isAddressInUse(err: unknown): boolean {
  const text = `${(err as Error)?.message ?? ''} ${String((err as { cause?: unknown })?.cause ?? '')}`
  return (err as NodeJS.ErrnoException)?.code === 'EADDRINUSE' || text.includes('EADDRINUSE')
}

/**
 * Starts the demo stack (mock-idp, mcp-backend, gatehouse with the demo's configuration) on free
 * loopback ports. The gateway's port must be known before it starts (its resource URL and, in
 * broker mode, its issuer name it), so it is picked free and the start is retried if another
 * process took it meanwhile.
 */
export async function startDemoStack(options: DemoStackOptions = {}): Promise<DemoStack> {
  const idp = await startMockIdp({ testMode: true, trustedOrigins: options.trustedOrigins ?? [] })
  const backend = await startMcpBackend()
  const yamlText = readFileSync(DEMO_CONFIG, 'utf8')
  let gatehouse: TestGatehouse | undefined
  let gatewayPort = 0
  for (let attempt = 1; gatehouse === undefined; attempt++) {
    gatewayPort = await freePort()
    try {
      const config = demoConfig(yamlText, { gatewayPort, idp, backend })
      options.configure?.(config)
      gatehouse = await startTestGatehouse(config, { ephemeralPorts: false })
    } catch (err) {
      if (!isAddressInUse(err) || attempt >= 5) {
        await backend.stop()
        await idp.stop()
        throw err
      }
    }
  }
  const started = gatehouse
  return {
    idp,
    backend,
    gatehouse: started,
    mcpUrl: `http://127.0.0.1:${gatewayPort}/mcp`,
    async stop() {
      await started.stop('done')
      await backend.stop()
      await idp.stop()
    },
  }
}
