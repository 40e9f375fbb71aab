/**
 * Broker mode of one policy (issue #22), as the auth layer sees it: built from the policy's `mcp`
 * block and the IdP it brokers, it serves the gateway's authorization-server endpoints and closes
 * its store on stop. The compiler hands this factory to the auth layer (`AuthContext.createBroker`),
 * so that `auth/` never imports `broker/` (which builds on `auth/`).
 */
import type { BrokerInstance, CreateBroker } from '../auth/types.js'
import { createBrokerContext } from './context.js'
import { BrokerEndpoints } from './endpoints.js'

/** Builds one policy's broker. */
export const createBroker: CreateBroker = (o): BrokerInstance => {
  const broker = o.mcp.broker
  if (!broker) throw new Error('createBroker: the policy has no mcp.broker block')
  const ctx = createBrokerContext({
    mcp: { ...o.mcp, broker },
    idpIssuer: o.idpIssuer,
    audience: o.audience,
    discovery: o.discovery,
    orgUpstream: o.orgUpstream,
    log: o.log,
  })
  const endpoints = new BrokerEndpoints(ctx)
  return {
    issuer: ctx.urls.issuer,
    endpoints,
    close: () => ctx.store.close(),
    dump: () => ({
      issuer: ctx.urls.issuer,
      upstreamClientId: ctx.idp.clientId,
      store: 'redis' in ctx.config.store ? 'redis' : 'memory',
    }),
  }
}
