/**
 * The request pipeline of one gateway: route → CORS preflight → MCP OAuth endpoints →
 * authentication and authorization → forward. It reads only the compiled snapshot
 * ({@link GatewayRuntime}), never raw configuration.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Logger } from 'pino'
import type { AuthPolicy } from '../auth/types.js'
import type { McpForward, McpRoutePolicy } from '../mcp/route-policy.js'
import type { Logging } from '../telemetry/logging.js'
import type { Telemetry } from '../telemetry/request-observer.js'
import type { RequestTask, TaskRegistry } from '../telemetry/tasks.js'
import type { RequestTrace, TraceBus } from '../telemetry/trace-bus.js'
import type { Cors } from './cors.js'
import { forward } from './forward.js'
import { errorResponse, type LocalRequest, type LocalResponse } from './local-response.js'
import type { OriginCheck } from './origin.js'
import type { Router } from './router.js'
import type { Upstream } from './upstream.js'

/** One compiled route rule: what a match selects. */
export interface CompiledRule {
  route: string
  rule: number
  backend: string
  upstream: Upstream
  cors: Cors | undefined
  /** Origin/Host validation (DNS rebinding protection); set on routes carrying an MCP policy. */
  origin: OriginCheck | undefined
  policies: readonly AuthPolicy[]
  /** The MCP-aware stage (issue #14), on routes whose policies have mcpAuthorization or localRateLimit. */
  mcp?: McpRoutePolicy | undefined
}

/** The compiled snapshot of one gateway. */
export interface GatewayRuntime {
  name: string
  router: Router<CompiledRule>
}

/** Process-wide services the pipeline reports to. */
export interface PipelineDeps {
  traceBus: TraceBus
  tasks: TaskRegistry
  logging: Logging
  /** Metrics, access log and OpenTelemetry spans (issue #14); absent: none of them. */
  telemetry?: Telemetry | undefined
}

const BODY_LIMIT = 64 * 1024

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0)
    if (declared > limit) {
      reject(Object.assign(new Error(`request body exceeds ${limit} bytes`), { status: 413 }))
      return
    }
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (c: Buffer) => {
      size += c.length
      if (size > limit) {
        req.removeAllListeners('data')
        req.resume()
        reject(Object.assign(new Error(`request body exceeds ${limit} bytes`), { status: 413 }))
      } else {
        chunks.push(c)
      }
    })
    req.once('end', () => resolve(Buffer.concat(chunks)))
    req.once('error', reject)
  })
}

/** Writes a response the proxy produced itself. */
export function sendLocal(
  res: ServerResponse,
  local: LocalResponse,
  extraHeaders: Record<string, string>,
): void {
  if (res.headersSent) {
    res.destroy()
    return
  }
  const headers: Record<string, string> = { ...local.headers, ...extraHeaders }
  let body: string | Buffer | undefined
  if (local.body === undefined || local.body === null) {
    body = undefined
  } else if (typeof local.body === 'string' || Buffer.isBuffer(local.body)) {
    body = local.body
  } else {
    body = JSON.stringify(local.body)
    headers['content-type'] ??= 'application/json'
  }
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body))
  res.writeHead(local.status, headers)
  res.end(body)
}

/**
 * Creates the request handler of one gateway.
 * @param runtime - returns the current snapshot (swapped atomically on reload)
 */
export function createPipeline(
  runtime: () => GatewayRuntime,
  deps: PipelineDeps,
): (req: IncomingMessage, res: ServerResponse, connectionId: number) => Promise<void> {
  const log = deps.logging.logger('proxy::dataplane')
  const httpLog = deps.logging.logger('proxy::httpproxy')
  const corsLog = deps.logging.logger('proxy::cors')
  const { traceBus, tasks } = deps

  return async function handle(req, res, connectionId) {
    const gw = runtime()
    const url = req.url ?? '/'
    const q = url.indexOf('?')
    const path = q === -1 ? url : url.slice(0, q)
    const method = req.method ?? 'GET'
    const trace = deps.telemetry
      ? deps.telemetry.observe(traceBus.start(path), req, gw.name, path)
      : traceBus.start(path)
    const task = tasks.beginRequest(gw.name, connectionId, method, path)
    const started = performance.now()
    let status = 0
    trace?.event('request_started', {
      method,
      path,
      gateway: gw.name,
      // Redacted by the trace bus, like every event's data.
      headers: req.headers,
    })
    try {
      status = await route(gw, req, res, method, path, url, trace, task)
    } catch (err) {
      log.error({ err: (err as Error).message, path }, 'request failed')
      const local = errorResponse(500, 'internal_error', 'the gateway failed to handle the request')
      sendLocal(res, local, {})
      status = 500
    } finally {
      task.end()
      trace?.event('response', { status })
      trace?.finish({ status, durationMs: Math.round((performance.now() - started) * 1000) / 1000 })
      if (httpLog.isLevelEnabled('debug')) {
        httpLog.debug({ method, path, status, ms: performance.now() - started }, 'request')
      }
    }
  }

  async function route(
    gw: GatewayRuntime,
    req: IncomingMessage,
    res: ServerResponse,
    method: string,
    path: string,
    url: string,
    trace: RequestTrace | undefined,
    task: RequestTask,
  ): Promise<number> {
    const match = gw.router.match(path)
    if (!match) {
      trace?.event('route_selected', { matched: false })
      sendLocal(
        res,
        errorResponse(
          404,
          'not_found',
          `no route matches ${method} ${path} on gateway "${gw.name}"`,
        ),
        {},
      )
      return 404
    }
    const rule = match.entry.target
    trace?.event('route_selected', {
      route: rule.route,
      rule: rule.rule,
      match: { type: match.entry.type, value: match.entry.value },
    })
    trace?.event('policies_applied', {
      policies: rule.policies.map((p) => p.name),
      cors: rule.cors !== undefined,
    })

    // Fetch standard: a preflight carries no credentials, so it is answered before auth runs.
    const preflight = rule.cors?.isPreflight(method, req.headers) ?? false
    if (preflight && rule.cors) {
      task.stage('cors')
      return answerPreflight(rule.cors, req, res, trace)
    }
    const cors = rule.cors?.response(req.headers) ?? {}

    // MCP 2025-06-18, Transports: Origin validated here, as the backend sees only its own Host.
    const verdict = rule.origin?.check(req.headers)
    if (verdict && !verdict.ok) {
      trace?.event('cors', { origin: req.headers.origin, host: req.headers.host, allowed: false })
      corsLog.debug({ origin: req.headers.origin, host: req.headers.host }, verdict.error)
      sendLocal(res, errorResponse(403, verdict.error, verdict.description), cors)
      return 403
    }

    if (rule.policies.length > 0) {
      // What the policies see of the request (the OAuth endpoints also read the body).
      const local: LocalRequest & { trace?: RequestTrace | undefined } = {
        method,
        path,
        headers: req.headers,
        get headersDistinct() {
          return req.headersDistinct
        },
        body: (limit = BODY_LIMIT) => readBody(req, limit),
        trace,
      }
      // The MCP OAuth endpoints all live under /.well-known/ (RFC 8615): skip the lookup otherwise.
      if (path.startsWith('/.well-known/')) {
        task.stage('mcp_oauth')
        for (const policy of rule.policies) {
          const answer = await policy.serveOAuth(local)
          if (answer) {
            trace?.event('mcp_oauth', { policy: policy.name, status: answer.status })
            sendLocal(res, answer, cors)
            return answer.status
          }
        }
      }
      task.stage('auth')
      let authenticated = false
      let claims: Readonly<Record<string, unknown>> | undefined
      let requestHeaders: { set: Record<string, string>; remove: string[] } | undefined
      for (const policy of rule.policies) {
        const result = await policy.authenticate(local)
        if (!result.ok) {
          const denyCors = rule.cors?.response(req.headers, ['WWW-Authenticate']) ?? {}
          sendLocal(res, result.response, denyCors)
          return result.response.status
        }
        if (result.claims) {
          authenticated = true
          claims = result.claims
        }
        if (result.requestHeaders) {
          requestHeaders ??= { set: {}, remove: [] }
          requestHeaders.remove.push(...result.requestHeaders.remove)
          Object.assign(requestHeaders.set, result.requestHeaders.set)
        }
      }
      // MCP-aware policy (issue #14): per-tool authorization and rate limits on the JSON-RPC body.
      let mcp: McpForward | undefined
      if (rule.mcp) {
        task.stage('mcp_policy')
        const verdict = await rule.mcp.inspect(local, claims)
        if ('response' in verdict) {
          const exposed = verdict.expose && rule.cors?.response(req.headers, verdict.expose)
          sendLocal(res, verdict.response, exposed ?? cors)
          return verdict.response.status
        }
        mcp = verdict.forward
      }
      return forwardTo(rule, req, res, url, cors, authenticated, trace, task, requestHeaders, mcp)
    }
    return forwardTo(rule, req, res, url, cors, false, trace, task)
  }

  function answerPreflight(
    cors: Cors,
    req: IncomingMessage,
    res: ServerResponse,
    trace: RequestTrace | undefined,
  ): number {
    const headers = cors.preflight(req.headers)
    const allowed = 'access-control-allow-origin' in headers
    trace?.event('cors', { preflight: true, origin: req.headers.origin, allowed })
    if (!allowed)
      corsLog.debug({ origin: req.headers.origin }, 'preflight from an origin that is not allowed')
    sendLocal(res, { status: 204 }, headers)
    return 204
  }

  async function forwardTo(
    rule: CompiledRule,
    req: IncomingMessage,
    res: ServerResponse,
    url: string,
    cors: Record<string, string>,
    authenticated: boolean,
    trace: RequestTrace | undefined,
    task: RequestTask,
    requestHeaders?: { set: Record<string, string>; remove: string[] },
    mcp?: McpForward,
  ): Promise<number> {
    const result = await forward({
      req,
      res,
      backendName: rule.backend,
      upstream: rule.upstream,
      pathAndQuery: url,
      responseHeaders: mcp?.responseHeaders ? { ...cors, ...mcp.responseHeaders } : cors,
      stripAuthorization: authenticated,
      requestHeaders: mcp?.requestHeaders
        ? {
            set: { ...requestHeaders?.set, ...mcp.requestHeaders },
            remove: requestHeaders?.remove ?? [],
          }
        : requestHeaders,
      requestBody: mcp?.body,
      filterResponse: mcp?.filterResponse,
      log: httpLog as Logger,
      trace,
      task,
    })
    if (result.kind === 'local') {
      sendLocal(res, result.response, cors)
      return result.response.status
    }
    return result.status
  }
}
