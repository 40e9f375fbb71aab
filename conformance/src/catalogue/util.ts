/** Small helpers shared by the checks. */
import { initializeBody } from '@gatehouse/mock-mcp'
import type { CheckContext, HttpResult } from '../types.js'

/** The seed's sample initialize request (protocol version 2024-11-05). */
export const INITIALIZE = initializeBody('gatehouse-conformance')

/** `POST <base>/mcp` with the initialize request. */
export function postMcp(
  ctx: CheckContext,
  options: { base?: string; path?: string; token?: string; headers?: Record<string, string> } = {},
): Promise<HttpResult> {
  return ctx.http(`${options.base ?? ctx.target.base}${options.path ?? '/mcp'}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(options.token !== undefined ? { authorization: `Bearer ${options.token}` } : {}),
      ...options.headers,
    },
    body: INITIALIZE,
  })
}

/** A token from the mock IdP's control API. */
export async function token(
  ctx: CheckContext,
  req: Record<string, unknown> = { sub: 'alice' },
): Promise<string> {
  return (await ctx.target.idp.control.token(req)).access_token
}

/** The protected-resource metadata URL the gateway must announce. */
export function prmUrl(configuredBase: string): string {
  return `${configuredBase}/.well-known/oauth-protected-resource/mcp`
}

/** Parses `Bearer k="v", k2="v2"` into a map (RFC 9110 §11.2 auth-params). */
export function challengeParams(header: string | null): Record<string, string> | undefined {
  if (!header || !/^Bearer\b/i.test(header)) return undefined
  const params: Record<string, string> = {}
  for (const m of header
    .slice(6)
    .matchAll(/([A-Za-z_]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))/g)) {
    const key = m[1]
    if (key) params[key] = m[2] ?? m[3] ?? ''
  }
  return params
}
