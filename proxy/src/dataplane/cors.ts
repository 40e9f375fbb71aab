/**
 * The HTTPRoute CORS filter (seed, HTTPRoute: CORS filter fields), compiled once per rule.
 *
 * Preflight requests are answered here, before any authentication runs (Fetch standard: a
 * preflight never carries credentials, so authenticating it would always fail). With
 * `allowCredentials` a wildcard is never sent back: browsers reject `*` together with
 * credentials, so the request's origin, method or headers are reflected instead, with `Vary`.
 */
import type { IncomingHttpHeaders } from 'node:http'
import type { CorsConfig } from '../config/schema.js'

/** A compiled CORS policy. */
export interface Cors {
  /** Whether the request is a CORS preflight (OPTIONS with Origin and Access-Control-Request-Method). */
  isPreflight(method: string, headers: IncomingHttpHeaders): boolean
  /** Headers answering a preflight (empty when the origin is not allowed). */
  preflight(headers: IncomingHttpHeaders): Record<string, string>
  /**
   * Headers to add to an actual response (empty when there is no Origin or it is not allowed).
   * @param extraExpose - headers to expose beyond the configured ones (e.g. WWW-Authenticate on 401).
   */
  response(headers: IncomingHttpHeaders, extraExpose?: readonly string[]): Record<string, string>
}

function originMatcher(allowOrigins: readonly string[]): (origin: string) => boolean {
  if (allowOrigins.includes('*')) return () => true
  const exact = new Set(allowOrigins.filter((o) => !o.includes('*')).map((o) => o.toLowerCase()))
  // Gateway API allows one leading wildcard label: https://*.example.com
  const patterns = allowOrigins
    .filter((o) => o.includes('*'))
    .map((o) => {
      const escaped = o.toLowerCase().replace(/[.+?^${}()|[\]\\]/g, '\\$&')
      return new RegExp(`^${escaped.replace('*', '[^./]+')}$`)
    })
  return (origin) => {
    const o = origin.toLowerCase()
    return exact.has(o) || patterns.some((p) => p.test(o))
  }
}

/** Compiles a CORS filter. */
export function compileCors(config: CorsConfig): Cors {
  const allowed = originMatcher(config.allowOrigins)
  const anyOrigin = config.allowOrigins.includes('*')
  const anyMethod = config.allowMethods.includes('*')
  const anyHeader = config.allowHeaders.includes('*')
  const credentials = config.allowCredentials
  const methods = config.allowMethods.join(', ')
  const allowHeaders = config.allowHeaders.join(', ')
  const expose = config.exposeHeaders

  const allowOrigin = (origin: string, out: Record<string, string>) => {
    if (anyOrigin && !credentials) {
      out['access-control-allow-origin'] = '*'
    } else {
      out['access-control-allow-origin'] = origin
      out.vary = 'Origin'
    }
    if (credentials) out['access-control-allow-credentials'] = 'true'
  }

  return {
    isPreflight(method, headers) {
      return method === 'OPTIONS' && !!headers.origin && !!headers['access-control-request-method']
    },
    preflight(headers) {
      const origin = headers.origin
      const out: Record<string, string> = {}
      if (!origin || !allowed(origin)) return out
      allowOrigin(origin, out)
      const reqMethod = String(headers['access-control-request-method'] ?? '')
      if (anyMethod) {
        out['access-control-allow-methods'] = credentials ? reqMethod : '*'
      } else if (methods) {
        out['access-control-allow-methods'] = methods
      }
      const reqHeaders = headers['access-control-request-headers']
      if (anyHeader) {
        const value = credentials ? String(reqHeaders ?? '') : '*'
        if (value) out['access-control-allow-headers'] = value
      } else if (allowHeaders) {
        out['access-control-allow-headers'] = allowHeaders
      }
      if (config.maxAge !== undefined) out['access-control-max-age'] = String(config.maxAge)
      out.vary = 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers'
      return out
    },
    response(headers, extraExpose = []) {
      const origin = headers.origin
      const out: Record<string, string> = {}
      if (!origin || !allowed(origin)) return out
      allowOrigin(origin, out)
      const exposed = extraExpose.length > 0 ? [...expose, ...extraExpose] : expose
      if (exposed.length > 0) out['access-control-expose-headers'] = exposed.join(', ')
      return out
    },
  }
}
