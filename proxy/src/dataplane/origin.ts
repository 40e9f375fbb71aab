/**
 * Origin and Host validation: DNS rebinding protection done by the gateway, on every route unless
 * a policy's `traffic.originValidation.mode` is `Disabled`, with or without authentication.
 *
 * MCP 2025-06-18, Transports (Security Warning): servers MUST validate the Origin header of
 * incoming connections to prevent DNS rebinding attacks. A backend behind the gateway cannot: the
 * proxy rewrites Host to the backend's, so a page at `http://evil.example.com` that rebinds its
 * name to the gateway's address passes any Host/Origin check the backend makes. A route without
 * authentication is the one that needs it most (MCP Security Best Practices, "Local MCP Server
 * Compromise").
 *
 * The rules, for a request that carries `Origin` (a browser's; requests without it pass):
 * 1. Host must be accepted: an IP address or `localhost` (DNS rebinding needs a DNS name it
 *    controls, so these cannot be rebound), or one of `allowedHosts` (default: the host of the
 *    configured MCP resource, if the route has one). Else 403 `host_not_allowed`.
 * 2. Origin must be accepted: same-origin with the (accepted) Host and the listener's scheme (an
 *    `https://` page is not the origin of a plain-HTTP listener, nor the reverse: RFC 6454 §4,
 *    an origin is scheme, host and port), or one of `allowedOrigins`
 *    (default: the route's CORS `allowOrigins` plus the resource's origin; `*` accepts any).
 *    Else 403 `origin_not_allowed`.
 */
import type { IncomingHttpHeaders } from 'node:http'
import { isIP } from 'node:net'
import type { ErrorCode } from '../errors.js'

/** What {@link compileOriginCheck} needs. */
export interface OriginCheckOptions {
  /** `mcp.resourceMetadata.resource` of the route's MCP policy: its host and origin are accepted by default. */
  resource?: string | undefined
  /** `originValidation.allowedOrigins`; default: `corsOrigins` plus the resource's origin. */
  allowedOrigins?: readonly string[] | undefined
  /** `originValidation.allowedHosts`; default: the resource's host, or none. */
  allowedHosts?: readonly string[] | undefined
  /** The route's CORS filter `allowOrigins`, if it has one. */
  corsOrigins?: readonly string[] | undefined
  /**
   * The scheme the gateway's listeners serve, which a same-origin request's Origin carries.
   * Default `http`: gateways listen on plain HTTP (TLS, when any, ends in front of them, and the
   * public `https://` origin is accepted through `allowedOrigins` or the resource's origin).
   */
  scheme?: 'http' | 'https' | undefined
}

/** The verdict on one request. */
export type OriginVerdict =
  | { ok: true }
  | {
      ok: false
      code: Extract<ErrorCode, 'GW_ERR_HOST_NOT_ALLOWED' | 'GW_ERR_ORIGIN_NOT_ALLOWED'>
      description: string
    }

/** A compiled check. */
export interface OriginCheck {
  /** Origins accepted (for messages and `/config_dump`). */
  readonly allowedOrigins: readonly string[]
  /** Hosts accepted besides IP addresses and localhost. */
  readonly allowedHosts: readonly string[]
  check(headers: IncomingHttpHeaders): OriginVerdict
}

/** `host[:port]` split; `[v6]` keeps its brackets off. */
function splitHost(host: string): { name: string; port: string | undefined } {
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(host)
  if (!m) return { name: host, port: undefined }
  return { name: (m[1] as string).replace(/^\[|\]$/g, ''), port: m[2] }
}

function hostMatches(entry: string, host: string): boolean {
  const want = splitHost(entry)
  const got = splitHost(host)
  if (want.port !== undefined && want.port !== got.port) return false
  if (want.name.startsWith('*.')) return got.name.endsWith(want.name.slice(1))
  return want.name === got.name
}

/** Names that cannot be rebound: IP literals and `localhost` (RFC 6761 §6.3). */
function isUnrebindable(host: string): boolean {
  const { name } = splitHost(host)
  return isIP(name) !== 0 || name === 'localhost' || name.endsWith('.localhost')
}

/** Whether `origin` is the origin of a request to `host` over `protocol` (`http:`). */
function sameOrigin(origin: string, protocol: string, host: string): boolean {
  try {
    // `host` drops default ports, as browsers do in Origin.
    const url = new URL(origin)
    return url.protocol === protocol && url.host === host
  } catch {
    return false
  }
}

/** Compiles the check of one route. */
export function compileOriginCheck(options: OriginCheckOptions): OriginCheck {
  const resource = options.resource !== undefined ? new URL(options.resource) : undefined
  const allowedHosts = [
    ...(options.allowedHosts ?? (resource ? [resource.host.toLowerCase()] : [])),
  ]
  const allowedOrigins = [
    ...new Set(
      options.allowedOrigins ?? [
        ...(options.corsOrigins ?? []),
        ...(resource ? [resource.origin] : []),
      ],
    ),
  ]
  const anyOrigin = allowedOrigins.includes('*')
  const protocol = `${options.scheme ?? 'http'}:`
  return {
    allowedOrigins,
    allowedHosts,
    check(headers) {
      const origin = headers.origin
      if (origin === undefined) return { ok: true }
      const host = (headers.host ?? '').toLowerCase()
      if (!isUnrebindable(host) && !allowedHosts.some((h) => hostMatches(h, host))) {
        return {
          ok: false,
          code: 'GW_ERR_HOST_NOT_ALLOWED',
          description: `Host "${host}" is not a name of this MCP endpoint (DNS rebinding protection): a request with Origin must be sent to ${[...allowedHosts, 'localhost or an IP address'].join(', ')}; configure traffic.originValidation.allowedHosts of a policy attached to the route to accept another name`,
        }
      }
      if (anyOrigin || allowedOrigins.includes(origin) || sameOrigin(origin, protocol, host)) {
        return { ok: true }
      }
      return {
        ok: false,
        code: 'GW_ERR_ORIGIN_NOT_ALLOWED',
        description: `Origin "${origin}" is not allowed on this MCP endpoint (MCP 2025-06-18, Transports: servers validate Origin); accepted: ${[...allowedOrigins, 'same-origin requests'].join(', ')}; add it to traffic.originValidation.allowedOrigins of a policy attached to the route, or to the route's CORS allowOrigins`,
      }
    },
  }
}
