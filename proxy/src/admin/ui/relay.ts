/**
 * `POST /ui/relay`: the OAuth flow debugger's one network path. The debugger walks the flow a
 * native MCP client walks (MCP authorization: 401 → metadata → registration → token → MCP
 * request); a page cannot (the gateway's `WWW-Authenticate` is not readable cross-origin, a
 * gateway's Origin check refuses the admin page's origin, and redirects would be followed
 * silently), so the page hands each request to the admin interface, which sends it as a client
 * would and answers with the whole exchange.
 *
 * It is reachable only from the admin's own pages (browser-guard.ts; its content type, which no
 * form can send, also forces a preflight) and only towards origins the running configuration
 * names: a gateway, a policy's resource or a provider's issuer. It keeps nothing: the answer goes
 * back to the page, which holds tokens in its memory only, and nothing of a request is logged.
 */
import { z } from 'zod'
import type { AdminContext } from '../context.js'

/** The content type the page sends (one a form cannot send, so a browser preflights it). */
export const RELAY_CONTENT_TYPE = 'application/vnd.gatehouse.relay+json'

/** What the page asks the relay to send. */
export const RelayRequestSchema = z.strictObject({
  method: z.enum(['GET', 'POST', 'DELETE']),
  url: z.url({ protocol: /^https?$/ }),
  headers: z.record(z.string(), z.string()).default({}),
  body: z.string().max(65_536).optional(),
})

/** What the relay sent and what came back. */
export interface RelayAnswer {
  status: number
  statusText: string
  headers: Array<[string, string]>
  body: string
  /** The body was longer than {@link RELAY_BODY_LIMIT} and was cut. */
  truncated: boolean
  durationMs: number
}

/** Bytes of a response body passed back to the page. */
export const RELAY_BODY_LIMIT = 262_144
/** How long one relayed request may take. */
const RELAY_TIMEOUT_MS = 15_000

/** The origins the relay may reach: those the running configuration names. */
export function relayOrigins(ctx: Pick<AdminContext, 'config' | 'gateways'>): Set<string> {
  const origins = new Set<string>()
  const add = (url: string | undefined) => {
    if (!url) return
    try {
      origins.add(new URL(url).origin)
    } catch {
      // A value that is no URL names no origin.
    }
  }
  for (const g of ctx.gateways()) {
    add(g.url)
    // A gateway bound to every interface is reached on loopback.
    if (g.address === '0.0.0.0' || g.address === '::') add(`http://127.0.0.1:${g.port}`)
  }
  for (const policy of Object.values(ctx.config().policies)) {
    const jwt = policy.traffic.jwtAuthentication
    add(jwt?.mcp?.resourceMetadata?.resource)
    for (const provider of jwt?.providers ?? []) add(provider.issuer)
  }
  return origins
}

/** Why the relay refuses a target, or `undefined`. */
export function relayRefusal(url: string, allowed: ReadonlySet<string>): string | undefined {
  const origin = new URL(url).origin
  if (allowed.has(origin)) return undefined
  return `the debugger reaches only the origins the configuration names (${[...allowed].join(', ') || 'none'}), not ${origin}`
}

/** Reads at most `limit` bytes of a body as text. */
async function readCapped(
  res: Response,
  limit: number,
): Promise<{ text: string; truncated: boolean }> {
  if (!res.body) return { text: '', truncated: false }
  const chunks: Uint8Array[] = []
  let size = 0
  let truncated = false
  const reader = res.body.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    chunks.push(value)
    size += value.byteLength
    if (size > limit) {
      truncated = true
      await reader.cancel()
      break
    }
  }
  const text = new TextDecoder().decode(Buffer.concat(chunks).subarray(0, limit))
  return { text, truncated }
}

/** Sends one request as a client would: no redirect followed, no cookie, bounded. */
export async function relay(request: z.output<typeof RelayRequestSchema>): Promise<RelayAnswer> {
  const started = performance.now()
  const res = await fetch(request.url, {
    method: request.method,
    headers: request.headers,
    ...(request.body !== undefined ? { body: request.body } : {}),
    redirect: 'manual',
    signal: AbortSignal.timeout(RELAY_TIMEOUT_MS),
  })
  const { text, truncated } = await readCapped(res, RELAY_BODY_LIMIT)
  return {
    status: res.status,
    statusText: res.statusText,
    headers: [...res.headers],
    body: text,
    truncated,
    durationMs: Math.round(performance.now() - started),
  }
}
