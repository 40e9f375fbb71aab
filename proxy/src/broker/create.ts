/**
 * Broker mode for one policy (docs/design/broker.md), as the auth layer sees it: built from the policy's
 * `mcp` block by `compile.ts` and handed to the policy as a {@link BrokerExtension}, so that
 * `auth/` never imports `broker/` (which builds on `auth/`).
 */
import type { BrokerExtension, BrokerInputs } from '../auth/types.js'
import { StoredSessionBindings } from '../store/session-bindings.js'
import { createBrokerContext } from './context.js'
import { BrokerEndpoints } from './endpoints.js'

/** Builds the broker of a policy whose `mcp.broker` is set. */
export function createBroker(inputs: BrokerInputs): BrokerExtension {
  const broker = inputs.mcp.broker
  if (!broker) throw new Error('createBroker: the policy has no mcp.broker')
  const ctx = createBrokerContext({
    mcp: { ...inputs.mcp, broker },
    idpIssuer: inputs.idpIssuer,
    audience: inputs.audience,
    discovery: inputs.discovery,
    orgUpstream: inputs.orgUpstream,
    pools: inputs.pools,
    settings: inputs.settings,
    log: inputs.log,
    stateDir: inputs.stateDir,
  })
  const endpoints = new BrokerEndpoints(ctx)
  // A store that persists keeps the MCP session bindings of this policy's routes too.
  const store = ctx.config.store
  const persists = !('memory' in store)
  return {
    sessions: persists ? new StoredSessionBindings({ store: ctx.store }) : undefined,
    issuer: ctx.urls.issuer,
    serve: (req) => endpoints.serve(req),
    close: () => ctx.store.close(),
    dump: () => ({
      issuer: ctx.urls.issuer,
      upstreamClientId: ctx.idp.clientId,
      store: 'redis' in store ? 'redis' : 'sqlite' in store ? 'sqlite' : 'memory',
    }),
  }
}
