/**
 * The broker's endpoints (docs/design/broker.md), dispatched by path: the authorization-server metadata at
 * `/.well-known/oauth-authorization-server<issuer path>` and one handler per endpoint under
 * `<issuer>/oauth/` (docs/design/broker.md). Any other path under `<issuer>/oauth/` is answered 404
 * here, never forwarded to the MCP backend. Answered by the auth policy before bearer checks.
 */
import { errorResponse, type LocalRequest, type LocalResponse } from '../http/local-response.js'
import { BROKER_PATHS, type BrokerContext } from './context.js'
import { flowHandlers } from './flow-handlers.js'
import { serveBrokerMetadata } from './metadata.js'
import { Registration } from './register.js'

/** One endpoint's handler. */
export type BrokerHandler = (req: LocalRequest) => Promise<LocalResponse>

/** Builds the handler of each endpoint for one broker; endpoints not built yet answer 404. */
function handlers(ctx: BrokerContext): Partial<Record<keyof typeof BROKER_PATHS, BrokerHandler>> {
  const registration = new Registration(ctx)
  return {
    register: (req) => registration.serve(req),
    ...flowHandlers(ctx),
  }
}

/** The endpoints of one broker. */
export class BrokerEndpoints {
  readonly #ctx: BrokerContext
  readonly #byPath: Map<string, BrokerHandler>
  readonly #prefix: string

  constructor(ctx: BrokerContext) {
    this.#ctx = ctx
    this.#prefix = `${ctx.urls.issuerPath}/oauth/`
    this.#byPath = new Map()
    const built = handlers(ctx)
    for (const [name, path] of Object.entries(BROKER_PATHS)) {
      const handler = built[name as keyof typeof BROKER_PATHS]
      if (handler) this.#byPath.set(`${ctx.urls.issuerPath}${path}`, handler)
    }
  }

  /** Serves the request when its path is one of the broker's, else `undefined`. */
  async serve(req: LocalRequest): Promise<LocalResponse | undefined> {
    if (req.path === this.#ctx.urls.metadataPath) {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        return errorResponse('GW_ERR_OAUTH_METHOD', 'metadata is read with GET', {
          allow: 'GET, HEAD, OPTIONS',
        })
      }
      return serveBrokerMetadata(this.#ctx)
    }
    if (!req.path.startsWith(this.#prefix)) return undefined
    const handler = this.#byPath.get(req.path)
    if (!handler) {
      return errorResponse(
        'GW_ERR_NO_ROUTE',
        `no such endpoint of the gateway's authorization server: ${req.path} (see ${this.#ctx.urls.metadataPath})`,
      )
    }
    return handler(req)
  }
}
