/**
 * `config`: process-wide settings, read at start-up only.
 */
import { z } from 'zod'
import { LogFilterError, parseLogFilter } from '../../telemetry/logging.js'
import { duration } from './common.js'

/** `config.adminAddr`: `ip:port`, `localhost:port`, `unix:/path/to/socket` or `off`. */
export const AdminAddrSchema = z
  .string()
  .superRefine((v, ctx) => {
    if (v === 'off' || v.startsWith('unix:/')) return
    const port = /^(\[[0-9a-fA-F:.]+\]|[^:\s]+):(\d+)$/.exec(v)?.[2]
    if (port === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: 'expected "ip:port", "localhost:port", "unix:/path/to/socket" or "off"',
      })
    } else if (Number(port) > 65535) {
      ctx.addIssue({
        code: 'custom',
        message: `port ${port} is out of range: expected 0-65535 (0 picks a free port)`,
      })
    }
  })
  .describe(
    'Admin interface address. Default localhost:15000 (loopback only). Read at start-up only. ' +
      'The admin interface has no authentication: binding it to a non-loopback address publishes ' +
      'shutdown and config dump to the network.',
  )

/** Most data-plane processes `config.workers` may ask for. */
export const MAX_WORKERS = 64

/**
 * Default of `config.maxRoutes`: routes one configuration may hold. Twice the 10,000 that
 * `npm run bench:scale` reloads (bench/RESULTS.md); a reload holds two configurations at once, and
 * far beyond that a configuration is more likely a generator run away than a deployment.
 */
export const DEFAULT_MAX_ROUTES = 20_000

/** The highest `config.maxRoutes` accepted. */
export const MAX_ROUTES_CEILING = 1_000_000

/** `config.workers`: how many data-plane processes serve the gateways. */
export const Workers = z
  .union([z.int().min(1).max(MAX_WORKERS), z.literal('auto')])
  .describe(
    'Data-plane processes (node:cluster workers) that serve the gateways on the same ports, 1-' +
      `${MAX_WORKERS}, or "auto" for one per available CPU (os.availableParallelism()). Default 1: one ` +
      'process, no cluster. With more than 1 the first process (the primary) serves the admin ' +
      'interface only (one address) and restarts a worker that exits; /metrics, /config_dump, ' +
      '/debug/trace, /debug/tasks, /logging, /reload and /quitquitquit cover every worker, while ' +
      '/memory and the pprof profiles cover the primary only (docs/admin-api.md). Shared between workers (held by the ' +
      'primary): local rate-limit buckets (a limit of N admits N in total) and MCP session ' +
      'bindings. Shared through broker.store.redis: the broker state, which is why a broker policy ' +
      'needs store.redis and a fixed broker.secret when workers is not 1. Per worker: JWKS and ' +
      'discovery caches, the verified-token cache, upstream connection pools, the access log ' +
      '(each worker writes its own lines to the same stdout). Read at start-up only.',
  )

/** `config.redactHeaders`: request headers an operator declares as credentials. */
export const RedactHeadersSchema = z
  .array(
    z
      .string()
      .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, {
        message: 'expected an HTTP header name (RFC 9110 §5.1), e.g. X-Session',
      })
      .describe('A request header name, any case.'),
  )
  .max(256)
  .describe(
    'Request headers that carry a credential in this deployment (e.g. ["X-Session"]), compared ' +
      'without regard to case: /debug/trace shows their values as [redacted] (logs and the ' +
      'access log never show request headers). Added to the built-in rules, which already redact ' +
      'Authorization, Proxy-Authorization, Cookie and every header named like a credential ' +
      '(*auth*, *token*, *secret*, *key*, …; docs/observability.md). Default none. Applies on ' +
      'reload too.',
  )

/** `config`: process-wide settings. */
export const ProcessConfigSchema = z
  .strictObject({
    adminAddr: AdminAddrSchema.default('localhost:15000'),
    logLevel: z
      .string()
      .superRefine((v, ctx) => {
        // The same parser start-up uses, so --validate rejects exactly what start rejects.
        try {
          parseLogFilter(v)
        } catch (err) {
          if (!(err instanceof LogFilterError)) throw err
          ctx.addIssue({ code: 'custom', message: err.message })
        }
      })
      .default('info')
      .describe(
        'Initial log filter: error, warn, info, debug, trace, or per-module "info,proxy::httpproxy=trace".',
      ),
    workers: Workers.default(1),
    maxRoutes: z
      .int()
      .min(1)
      .max(MAX_ROUTES_CEILING)
      .default(DEFAULT_MAX_ROUTES)
      .describe(
        `Most routes (entries of routes, or HTTPRoutes) one configuration may hold, 1-${MAX_ROUTES_CEILING}. ` +
          `Default ${DEFAULT_MAX_ROUTES}. A configuration with more is refused at load, on reload ` +
          '(the running one keeps serving) and by --validate, before it is validated or compiled, ' +
          'with the count and the limit: raise it only with the memory to match (a reload holds ' +
          'two configurations at once; bench/RESULTS.md, "bench:scale"). Applies on reload too.',
      ),
    redactHeaders: RedactHeadersSchema.default([]),
    drainTimeout: duration('0s', '1h')
      .prefault('10s')
      .describe(
        'How long graceful shutdown waits for in-flight requests (open SSE streams included), 0s-1h. 0s closes them at once without draining.',
      ),
  })
  .describe('Process-wide settings. Read at start-up only.')
