/** The test kit of the MCP stage's tests: a compiled route policy, a request, its verdict. */

import { parseConfig } from '../../src/config/load.js'
import { RequestError } from '../../src/errors.js'
import {
  compileMcpRoutePolicy,
  type McpRoutePolicy,
  type McpStageRequest,
  type McpVerdict,
} from '../../src/mcp/route-policy.js'
import type { TraceEventType } from '../../src/telemetry/trace-bus.js'

export type Traffic = Record<string, unknown>

export function policyConfig(traffic: Traffic) {
  const config = parseConfig(
    JSON.stringify({
      gateways: { default: { port: 3000 } },
      backends: { b: { static: { host: '127.0.0.1', port: 1 } } },
      routes: {
        mcp: {
          rules: [{ matches: [{ path: { value: '/mcp' } }], backendRefs: [{ name: 'b' }] }],
          // The policies under test may have no jwtAuthentication.
          allowUnauthenticated: true,
        },
      },
      policies: { p: { targetRefs: [{ name: 'mcp' }], traffic } },
    }),
    'test.yaml',
  )
  const policy = config.policies.p
  if (!policy) throw new Error('no policy')
  return policy
}

export function routePolicy(traffic: Traffic): McpRoutePolicy {
  const compiled = compileMcpRoutePolicy([{ name: 'p', policy: policyConfig(traffic) }])
  if (!compiled) throw new Error('not MCP-aware')
  return compiled
}

export function request(
  body: unknown,
  options: { method?: string; headers?: Record<string, string[]>; events?: unknown[] } = {},
): McpStageRequest {
  const text = typeof body === 'string' ? body : JSON.stringify(body)
  return {
    method: options.method ?? 'POST',
    path: '/mcp',
    headersDistinct: options.headers ?? {},
    body: async (limit = 65536) => {
      if (Buffer.byteLength(text) > limit)
        throw new RequestError('GW_ERR_BODY_TOO_LARGE', 'too large')
      return Buffer.from(text)
    },
    trace: {
      requestId: 't',
      watched: true,
      event: (type: TraceEventType, data: unknown) => options.events?.push({ type, data }),
      finish: () => {},
    },
  }
}

export function answer(v: McpVerdict) {
  if (!('response' in v)) throw new Error('forwarded')
  return v.response
}

export function forwarded(v: McpVerdict) {
  if (!('forward' in v)) throw new Error(`answered ${v.response.status}`)
  return v.forward
}
