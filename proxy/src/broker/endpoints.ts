/**
 * The broker's HTTP surface (issue #22; broker-design.md): one dispatcher for the paths under
 * `<issuer>/oauth/` — authorize, consent, callback, token (this flow) and register (RFC 7591) —
 * plus the RFC 8414 metadata at `/.well-known/oauth-authorization-server<issuer path>`. Any other
 * path under `<issuer>/oauth/` is a local 404: nothing there is ever forwarded to the backend.
 *
 * Failures a handler does not turn into an OAuth answer itself (the store full or down) are
 * answered here: a page for the browser endpoints, RFC 6749 §5.2 JSON for the others.
 */
import type { pino } from 'pino'
import type { DiscoveryCache } from '../auth/discovery.js'
import type { BrokerConfig } from '../config/schema.js'
import { RequestError } from '../errors.js'
import {
  errorResponse,
  fromRequestError,
  type LocalRequest,
  type LocalResponse,
} from '../http/local-response.js'
import type { Upstream } from '../http/upstream.js'
import type { BrokerStore } from '../store/types.js'
import { authorize } from './authorize.js'
import { callback } from './callback.js'
import { consent } from './consent.js'
import { BrokerCookies } from './cookies.js'
import type { ClientResolver, FlowContext } from './flow.js'
import { IdpClient } from './idp-client.js'
import { errorPage } from './pages.js'
import { Signer } from './signing.js'
import { token } from './token.js'

/** A local endpoint. */
export type BrokerHandler = (req: LocalRequest) => Promise<LocalResponse>

/** What the flow needs from the broker's shared context (`context.ts`). */
export interface BrokerBase {
  readonly config: BrokerConfig
  readonly urls: { issuer: string; issuerPath: string; callbackUrl: string; metadataPath: string }
  readonly resource: string
  readonly secret: Buffer
  readonly store: BrokerStore
  readonly clients: ClientResolver
  readonly idp: {
    issuer: string
    audience: string | undefined
    discovery: DiscoveryCache
    upstream: Upstream | undefined
    clientId: string
  }
  readonly log: pino.Logger
}

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
      callbackUrl: base.urls.callbackUrl,
      client: {
        clientId: base.idp.clientId,
        clientSecret: client.clientSecret,
        tokenEndpointAuthMethod:
          client.tokenEndpointAuthMethod ?? (client.clientSecret ? 'client_secret_basic' : 'none'),
        scopes: client.scopes,
      },
    }),
    ttl: {
      pendingMs: a.pendingTtl.ms,
      codeMs: a.codeTtl.ms,
      consentMs: a.consentTtl.ms,
      refreshMs: a.refreshTokenTtl.ms,
    },
    log: base.log,
  }
}

type Route = { methods: readonly string[]; kind: 'page' | 'json'; handle: BrokerHandler }

/** The broker endpoints of one policy. */
export class BrokerEndpoints {
  readonly #prefix: string
  readonly #metadataPath: string
  readonly #metadata: BrokerHandler | undefined
  readonly #routes: ReadonlyMap<string, Route>
  readonly #log: pino.Logger

  /**
   * @param handlers registration (RFC 7591) and metadata (RFC 8414), served by `register.ts` and
   *   `metadata.ts`; absent ones answer 404.
   */
  constructor(
    base: BrokerBase,
    handlers: { register?: BrokerHandler; metadata?: BrokerHandler } = {},
  ) {
    const flow = flowContext(base)
    this.#log = base.log
    this.#prefix = `${base.urls.issuerPath}/oauth/`
    this.#metadataPath = base.urls.metadataPath
    this.#metadata = handlers.metadata
    const routes = new Map<string, Route>([
      ['authorize', { methods: ['GET'], kind: 'page', handle: (r) => authorize(flow, r) }],
      ['consent', { methods: ['POST'], kind: 'page', handle: (r) => consent(flow, r) }],
      ['callback', { methods: ['GET'], kind: 'page', handle: (r) => callback(flow, r) }],
      ['token', { methods: ['POST'], kind: 'json', handle: (r) => token(flow, r) }],
    ])
    if (handlers.register) {
      routes.set('register', { methods: ['POST'], kind: 'json', handle: handlers.register })
    }
    this.#routes = routes
  }

  /** Serves the request when it is a broker endpoint; `undefined` otherwise. */
  async serve(req: LocalRequest): Promise<LocalResponse | undefined> {
    if (req.path === this.#metadataPath && this.#metadata) {
      return this.#run({ methods: ['GET', 'HEAD'], kind: 'json', handle: this.#metadata }, req)
    }
    if (!req.path.startsWith(this.#prefix)) return undefined
    const route = this.#routes.get(req.path.slice(this.#prefix.length))
    if (!route) {
      return errorResponse(404, 'not_found', `no OAuth endpoint at ${req.path} on this gateway`)
    }
    return this.#run(route, req)
  }

  async #run(route: Route, req: LocalRequest): Promise<LocalResponse> {
    if (!route.methods.includes(req.method)) {
      return errorResponse(405, 'invalid_request', `${req.path} takes ${route.methods[0]}`, {
        allow: `${route.methods.join(', ')}, OPTIONS`,
      })
    }
    try {
      return await route.handle(req)
    } catch (err) {
      const e =
        err instanceof RequestError
          ? err
          : new RequestError(
              'GW_ERR_INTERNAL',
              500,
              'server_error',
              'the gateway failed to handle the request',
            )
      if (!(err instanceof RequestError)) {
        this.#log.error({ err: (err as Error).message, path: req.path }, 'broker endpoint failed')
      }
      if (route.kind === 'json') return fromRequestError(e)
      return errorPage(e.status, 'The gateway cannot complete this now', e.message, e.headers)
    }
  }
}
