/**
 * The session-binding tests' gatehouse (dataplane/session-binding.test.ts and its attack in
 * reliability/): gateway `default` serves route `mcp` with the JWT policy, gateway `open` serves the
 * same backend at `/mcp` without authentication — on purpose, the route an anonymous session of
 * the attack comes through.
 */
import type { GatehouseConfigInput } from '../src/config/schema.js'
import { authConfig } from './auth/config.js'
import type { TinyIdp } from './auth/tiny-idp.js'
import { startTestGatehouse, type TestGatehouse } from './helpers.js'

/** The running gatehouse and the base URL of each of its two gateways. */
export interface AuthedAndOpen {
  gh: TestGatehouse
  /** The gateway whose route has the auth policy. */
  authed: string
  /** The gateway whose route to the same backend has none. */
  open: string
}

/** Starts the two-gateway gatehouse in front of the backend on `backendPort`. */
export async function startAuthedAndOpen(
  idp: TinyIdp,
  backendPort: number,
): Promise<AuthedAndOpen> {
  const config = authConfig({ idpPort: idp.port, backendPort, issuer: idp.issuer })
  config.gateways = {
    default: { port: 3000, address: '127.0.0.1' },
    open: { port: 3001, address: '127.0.0.1' },
  }
  const mcp = config.routes?.mcp
  if (!mcp) throw new Error('no mcp route')
  mcp.parentRefs = [{ name: 'default' }]
  config.routes = {
    mcp,
    open: {
      parentRefs: [{ name: 'open' }],
      allowUnauthenticated: true,
      rules: [
        {
          matches: [{ path: { type: 'PathPrefix', value: '/mcp' } }],
          backendRefs: [{ name: 'mcp-backend' }],
        },
      ],
    },
  }
  const gh = await startTestGatehouse(config as GatehouseConfigInput)
  const url = (name: string) => gh.gateways.find((g) => g.name === name)?.url ?? ''
  return { gh, authed: url('default'), open: url('open') }
}
