/**
 * The authorization flow's endpoints (docs/design/broker.md-5), ready for the broker's dispatcher
 * (`endpoints.ts`): `<issuer>/oauth/authorize`, `/consent`, `/callback` and `/token`, each with
 * its method, over one {@link FlowContext} compiled from the broker's context.
 *
 * Failures a handler does not turn into an OAuth answer itself (the store full or down) are
 * answered here: a page for the browser endpoints, RFC 6749 §5.2 JSON for the token endpoint.
 */
import type { pino } from 'pino'
import { RequestError } from '../errors.js'
import {
  errorResponse,
  fromRequestError,
  type LocalRequest,
  type LocalResponse,
} from '../http/local-response.js'
import { authorize } from './authorize.js'
import { callback } from './callback.js'
import { consent } from './consent.js'
import type { BrokerContext } from './context.js'
import { BrokerCookies } from './cookies.js'
import type { ClientResolver, FlowContext } from './flow.js'
import { IdpClient } from './idp-client.js'
import { errorPage } from './pages.js'
import { Signer } from './signing.js'
import { SourceLimit } from './source-limit.js'
import { token } from './token.js'

/** A local endpoint (the same shape as `endpoints.ts`'s `BrokerHandler`). */
type BrokerHandler = (req: LocalRequest) => Promise<LocalResponse>

/** What the flow needs from the broker's shared context (`context.ts`): its clients only resolved. */
export type BrokerBase = Pick<
  BrokerContext,
  'config' | 'urls' | 'resource' | 'secret' | 'store' | 'idp' | 'log'
> & { readonly clients: ClientResolver }

/** The flow's context, compiled once from the broker's. */
export function flowContext(base: BrokerBase): FlowContext {
  const a = base.config.authorization
  const client = base.config.upstreamClient
  return {
    issuer: base.urls.issuer,
    resource: base.resource,
    store: base.store,
    clients: base.clients,
    signer: new Signer(base.secret),
    cookies: new BrokerCookies(base.urls.issuer),
    idp: new IdpClient({
      issuer: base.idp.issuer,
      audience: base.idp.audience,
      discovery: base.idp.discovery,
      upstream: base.idp.upstream,
      pools: base.idp.pools,
      settings: base.idp.settings,
      callbackUrl: base.urls.callbackUrl,
      client: {
        clientId: base.idp.clientId,
        clientSecret: client.clientSecret,
        tokenEndpointAuthMethod:
          client.tokenEndpointAuthMethod ?? (client.clientSecret ? 'client_secret_basic' : 'none'),
      },
    }),
    ttl: {
      requestMs: Math.min(a.requestTtl.ms, a.pendingTtl.ms),
      pendingMs: a.pendingTtl.ms,
      codeMs: a.codeTtl.ms,
      consentMs: a.consentTtl.ms,
      refreshMs: a.refreshTokenTtl.ms,
    },
    requestLimit: new SourceLimit({
      limit: a.perSourceRequestLimit,
      windowMs: Math.min(a.requestTtl.ms, a.pendingTtl.ms),
    }),
    log: base.log,
  }
}

/** A page for the browser endpoints, RFC 6749 §5.2 JSON for the token endpoint. */
function guarded(kind: 'page' | 'json', handle: BrokerHandler, log: pino.Logger): BrokerHandler {
  return async (req) => {
    try {
      return await handle(req)
    } catch (err) {
      const e =
        err instanceof RequestError
          ? err
          : new RequestError(
              'GW_ERR_OAUTH_SERVER_ERROR',
              'the gateway failed to handle the request',
            )
      if (!(err instanceof RequestError)) {
        log.error({ err: (err as Error).message, path: req.path }, 'broker endpoint failed')
      }
      if (kind === 'json') return fromRequestError(e)
      return errorPage(e.code, 'The gateway cannot complete this now', e.message, e.headers)
    }
  }
}

/** Only `method` (and the CORS preflight, answered before this) reaches the handler. */
function only(method: string, handle: BrokerHandler): BrokerHandler {
  return async (req) =>
    req.method === method
      ? handle(req)
      : errorResponse('GW_ERR_OAUTH_METHOD', `${req.path} takes ${method}`, {
          allow: `${method}, OPTIONS`,
        })
}

/**
 * The authorization flow's endpoints of one broker: `authorize`, `consent`, `callback` (pages
 * for the browser) and `token` (JSON), for `endpoints.ts` to dispatch.
 */
export function flowHandlers(base: BrokerBase): {
  authorize: BrokerHandler
  consent: BrokerHandler
  callback: BrokerHandler
  token: BrokerHandler
} {
  const flow = flowContext(base)
  const log = base.log
  return {
    authorize: only(
      'GET',
      guarded('page', (r) => authorize(flow, r), log),
    ),
    consent: only(
      'POST',
      guarded('page', (r) => consent(flow, r), log),
    ),
    callback: only(
      'GET',
      guarded('page', (r) => callback(flow, r), log),
    ),
    token: only(
      'POST',
      guarded('json', (r) => token(flow, r), log),
    ),
  }
}
