/**
 * Remembered consent (MCP security best practices, "Confused Deputy": a proxy that uses one
 * static IdP client for many dynamically registered clients MUST obtain the user's consent for
 * each client; consent may be remembered per client). The cookie holds the approvals this browser
 * gave — client id, redirect URI, the scopes approved, expiry — signed with the broker's key, so
 * it can be neither forged nor stretched to another client, redirect URI or more scopes.
 */
import type { FlowContext } from './flow.js'

/** One approval. */
interface Approval {
  /** Client id. */
  c: string
  /** Redirect URI. */
  r: string
  /** Scopes approved. */
  s: string[]
  /** Expiry, seconds since the epoch. */
  e: number
}

/** At most this many approvals are kept (the most recent); a cookie stays well under 4 KiB. */
const MAX_APPROVALS = 8
const PURPOSE = 'consent'

function read(ctx: Pick<FlowContext, 'signer'>, cookie: string | undefined): Approval[] {
  if (!cookie) return []
  const payload = ctx.signer.open(PURPOSE, cookie)
  if (!payload) return []
  try {
    const list = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown
    if (!Array.isArray(list)) return []
    const now = Date.now() / 1000
    return list.filter(
      (a): a is Approval =>
        typeof a?.c === 'string' &&
        typeof a.r === 'string' &&
        Array.isArray(a.s) &&
        typeof a.e === 'number' &&
        a.e > now,
    )
  } catch {
    return []
  }
}

/** Whether the cookie approves this client, redirect URI and every one of these scopes. */
export function rememberedConsent(
  ctx: Pick<FlowContext, 'signer'>,
  cookie: string,
  clientId: string,
  redirectUri: string,
  scopes: readonly string[],
): boolean {
  return read(ctx, cookie).some(
    (a) => a.c === clientId && a.r === redirectUri && scopes.every((s) => a.s.includes(s)),
  )
}

/**
 * The `Set-Cookie` value that adds an approval, or `undefined` when consent is not remembered
 * (`consentTtl: 0s`).
 */
export function rememberConsent(
  ctx: Pick<FlowContext, 'signer' | 'cookies' | 'ttl'>,
  cookie: string | undefined,
  clientId: string,
  redirectUri: string,
  scopes: readonly string[],
): string | undefined {
  if (ctx.ttl.consentMs <= 0) return undefined
  const seconds = ctx.ttl.consentMs / 1000
  const kept = read(ctx, cookie).filter((a) => !(a.c === clientId && a.r === redirectUri))
  const approval: Approval = {
    c: clientId,
    r: redirectUri,
    s: [...scopes],
    e: Math.floor(Date.now() / 1000 + seconds),
  }
  const list = [...kept, approval].slice(-MAX_APPROVALS)
  const payload = Buffer.from(JSON.stringify(list)).toString('base64url')
  return ctx.cookies.set(ctx.cookies.consentName, ctx.signer.seal(PURPOSE, payload), seconds)
}
