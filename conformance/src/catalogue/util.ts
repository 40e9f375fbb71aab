/** Small helpers shared by the checks. */
// The requests module alone: the package's root loads both MCP SDKs, which a check never needs.
import { initializeBody } from '@gatehouse/mock-mcp/requests'
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

/**
 * The protected-resource metadata of `base` (default: the target) as a 2025-11-25 client finds it
 * (MCP: "use the resource metadata URL from the parsed WWW-Authenticate headers when present;
 * otherwise … the well-known URIs"): the URL a 401 names, else the path form, else the root form
 * (RFC 9728 §5.1 allows it). `url` is where it was found.
 */
export async function discoverPrm(
  ctx: CheckContext,
  base: string = ctx.target.base,
): Promise<{ url: string; doc: Record<string, unknown> }> {
  const tried: string[] = []
  const fetchDoc = async (url: string) => {
    const res = await ctx.http(url)
    tried.push(`${url} → ${res.status}`)
    if (res.status !== 200) return undefined
    try {
      const doc: unknown = res.json()
      return doc && typeof doc === 'object' ? (doc as Record<string, unknown>) : undefined
    } catch {
      return undefined
    }
  }
  const named = challengeParams(
    (await postMcp(ctx, { base })).headers.get('www-authenticate'),
  )?.resource_metadata
  for (const url of [
    ...(named ? [reachable(ctx, named)] : []),
    `${base}${PRM_PATH}`,
    `${base}/.well-known/oauth-protected-resource`,
  ]) {
    const doc = await fetchDoc(url)
    if (doc) return { url, doc }
  }
  throw new CheckFailure('protected-resource metadata (200 JSON)', tried.join('; '))
}

/** The target's protected-resource metadata, wherever it is served ({@link discoverPrm}). */
export async function prmDocument(
  ctx: CheckContext,
  base: string = ctx.target.base,
): Promise<Record<string, unknown>> {
  return (await discoverPrm(ctx, base)).doc
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
