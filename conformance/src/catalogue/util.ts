/** Small helpers shared by the checks. */
import { initializeBody } from '@gatehouse/mock-mcp'
import { type CheckContext, CheckFailure, type HttpResult } from '../types.js'

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

/** The protected-resource metadata path the gateway must serve for `/mcp` (RFC 9728 §3.1). */
export const PRM_PATH = '/.well-known/oauth-protected-resource/mcp'

/** The gateway's protected-resource metadata (path form), read from `base` (default: the target). */
export async function prmDocument(
  ctx: CheckContext,
  base: string = ctx.target.base,
): Promise<Record<string, unknown>> {
  const res = await ctx.http(`${base}${PRM_PATH}`)
  if (res.status !== 200)
    throw new CheckFailure('the protected-resource metadata (200)', `${res.status}`)
  return res.json()
}

/**
 * The URL to request for one the gateway announced: the configured base (which may name a host
 * clients reach through DNS the harness lacks) replaced by the address the suite connects to.
 */
export function reachable(ctx: CheckContext, url: string): string {
  const { base, configuredBase } = ctx.target
  return url.startsWith(configuredBase) ? `${base}${url.slice(configuredBase.length)}` : url
}

/** JSON with object keys sorted, so documents compare by content, not member order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) =>
            a < b ? -1 : a > b ? 1 : 0,
          ),
        )
      : v,
  )
}
