/**
 * A hand-built {@link AdminContext} over a configuration full of secrets, for testing the admin
 * server without the auth layer.
 */
import { stringify } from 'yaml'
import type { AdminContext } from '../../src/admin/context.js'
import type { AuthPolicy, PolicyStatus } from '../../src/auth/types.js'
import { parseConfig } from '../../src/config/load.js'
import { createLogging, type Logging } from '../../src/telemetry/logging.js'
import { TaskRegistry } from '../../src/telemetry/tasks.js'
import { TraceBus } from '../../src/telemetry/trace-bus.js'

/** Private parts of an RSA and an oct JWK, and a token-looking string: none may leak. */
export const SECRETS = {
  d: 'PRIVATE-D-rsa-exponent-value',
  p: 'PRIVATE-P-first-prime',
  q: 'PRIVATE-Q-second-prime',
  dp: 'PRIVATE-DP-value',
  dq: 'PRIVATE-DQ-value',
  qi: 'PRIVATE-QI-value',
  k: 'PRIVATE-K-symmetric-key',
  stringD: 'PRIVATE-D-inside-a-json-string',
}

export function configWithSecrets() {
  const rsa = {
    kty: 'RSA',
    kid: 'k1',
    n: 'public-modulus',
    e: 'AQAB',
    d: SECRETS.d,
    p: SECRETS.p,
    q: SECRETS.q,
    dp: SECRETS.dp,
    dq: SECRETS.dq,
    qi: SECRETS.qi,
  }
  const provider = (jwks: unknown) => ({
    issuer: 'https://idp.example/oauth2/default',
    audiences: ['api://default'],
    jwks: { inline: jwks },
  })
  return parseConfig(
    stringify({
      config: { adminAddr: '127.0.0.1:0' },
      gateways: { default: { port: 3000, address: '127.0.0.1' } },
      backends: { backend: { static: { host: '127.0.0.1', port: 9 } } },
      routes: {
        main: {
          rules: [{ matches: [{ path: { value: '/mcp' } }], backendRefs: [{ name: 'backend' }] }],
        },
      },
      policies: {
        object: {
          targetRefs: [{ name: 'main' }],
          traffic: {
            jwtAuthentication: {
              providers: [provider({ keys: [rsa, { kty: 'oct', kid: 'h', k: SECRETS.k }] })],
            },
          },
        },
        string: {
          targetRefs: [{ name: 'main' }],
          traffic: {
            jwtAuthentication: {
              providers: [
                provider(
                  JSON.stringify({
                    keys: [{ kty: 'EC', crv: 'P-256', x: 'X', y: 'Y', d: SECRETS.stringD }],
                  }),
                ),
              ],
            },
          },
        },
      },
    }),
    'secrets.yaml',
  )
}

export function fakePolicy(name: string, status: PolicyStatus): AuthPolicy {
  return {
    name,
    status: () => status,
    dump: () => ({ keys: [{ kid: 'k1', kty: 'RSA', d: SECRETS.d }], clientSecret: 'cs-value' }),
    serveOAuth: async () => undefined,
    authenticate: async () => ({ ok: true }),
    start: async () => undefined,
    stop: () => undefined,
  }
}

/** Options of {@link fakeContext}. */
export interface FakeContextOptions {
  policies?: Map<string, AuthPolicy>
  logging?: Logging
  shutdown?: (reason: string) => Promise<void>
}

/** An admin context over {@link configWithSecrets}. */
export function fakeContext(options: FakeContextOptions = {}): AdminContext {
  const config = configWithSecrets()
  return {
    config: () => config,
    policies: () => options.policies ?? new Map(),
    gateways: () => [
      {
        name: 'default',
        address: '127.0.0.1',
        port: 3000,
        url: 'http://127.0.0.1:3000',
        routes: ['main'],
      },
    ],
    traceBus: new TraceBus(),
    logging: options.logging ?? createLogging({ filter: 'off' }),
    tasks: new TaskRegistry(),
    startedAt: new Date(),
    version: '0.1.0',
    shutdown: options.shutdown ?? (async () => undefined),
  }
}

export const PROGRAMMED: PolicyStatus = {
  accepted: true,
  programmed: true,
  reason: 'Programmed',
  message: 'keys loaded',
}
