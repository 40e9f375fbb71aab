/**
 * Test helpers: a gatehouse from an inline config object on free ports, with captured logs.
 */
import { Writable } from 'node:stream'
import { stringify } from 'yaml'
import { parseConfig } from '../src/config/load.js'
import type { GatehouseConfigInput } from '../src/config/schema.js'
import type { Gatehouse } from '../src/index.js'
import { createLogging, type Logging } from '../src/telemetry/logging.js'

/** A running gatehouse plus what it logged. */
export interface TestGatehouse extends Gatehouse {
  /** Base URL of the first gateway. */
  url: string
  /** Parsed JSON log lines so far. */
  logs: Array<Record<string, unknown>>
}

/** Logging whose JSON lines, parsed, are pushed onto `into` (nothing is printed). */
export function capturedLogging(into: Array<Record<string, unknown>>, filter = 'info'): Logging {
  const destination = new Writable({
    write(chunk, _enc, cb) {
      for (const line of String(chunk).split('\n')) if (line) into.push(JSON.parse(line))
      cb()
    },
  })
  return createLogging({ filter, destination })
}

/** Starts a gatehouse on ephemeral ports with admin off unless the config says otherwise. */
export async function startTestGatehouse(
  config: GatehouseConfigInput,
  options: { logFilter?: string; ephemeralPorts?: boolean } = {},
): Promise<TestGatehouse> {
  const logs: Array<Record<string, unknown>> = []
  const withDefaults = { ...config, config: { adminAddr: 'off', ...config.config } }
  const parsed = parseConfig(stringify(withDefaults), 'test.yaml')
  // The whole proxy is loaded here, not with this file: unit tests import capturedLogging alone.
  const { startGatehouse } = await import('../src/index.js')
  const gh = await startGatehouse({
    config: parsed,
    ephemeralPorts: options.ephemeralPorts ?? true,
    logging: capturedLogging(logs, options.logFilter ?? 'info'),
  })
  return Object.assign(gh, { url: gh.gateways[0]?.url ?? '', logs })
}

/**
 * A minimal config: one gateway, one route to `backend` at host:port, public on purpose
 * (`allowUnauthenticated`: these tests are about forwarding, not authentication).
 */
export function simpleConfig(
  backendPort: number,
  extra: {
    cors?: Record<string, unknown>
    timeouts?: Record<string, string>
    matches?: string[]
  } = {},
): GatehouseConfigInput {
  return {
    gateways: { default: { port: 3000, address: '127.0.0.1' } },
    backends: {
      backend: {
        static: { host: '127.0.0.1', port: backendPort },
        ...(extra.timeouts ? { timeouts: extra.timeouts } : {}),
      },
    },
    routes: {
      main: {
        rules: [
          {
            matches: (extra.matches ?? ['/mcp']).map((value) => ({
              path: { type: 'PathPrefix' as const, value },
            })),
            filters: extra.cors ? [{ type: 'CORS' as const, cors: extra.cors }] : [],
            backendRefs: [{ name: 'backend' }],
          },
        ],
        allowUnauthenticated: true,
      },
    },
  }
}
