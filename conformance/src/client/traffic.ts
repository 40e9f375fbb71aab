/**
 * What a client under test sent and was answered, as the recording proxies in front of the
 * gateway and the IdP saw it: the evidence every client check is judged from. Bodies and
 * credentials are kept whole in memory (the checks compare tokens, codes and verifiers); they are
 * redacted only when shown ({@link toEvidence}).
 */
import { redactHeaders, redactText, redactUrl } from '@gatehouse/redact'
import type { Exchange } from '../types.js'

/** Which recording proxy saw an exchange. */
export type Side = 'gateway' | 'idp'

/** One request of the client and the answer it got. */
export interface Recorded {
  /** Arrival order across both proxies of a run, from 1. */
  seq: number
  side: Side
  method: string
  /** The URL as the client addressed it (the proxy's origin, path and query). */
  url: URL
  /** Lower-case names. */
  requestHeaders: Record<string, string>
  /** The first 64 KiB. */
  requestBody: string
  /** 0 when no answer was given (the upstream was unreachable, or the client went away). */
  status: number
  responseHeaders: Record<string, string>
  /** The first 64 KiB (a stream: what had arrived when the run was judged). */
  responseBody: string
  /** What the proxy changed in the answer, or answered itself, in words. */
  reshaped?: string
}

/** The bodies kept per exchange. */
export const BODY_LIMIT = 64 * 1024

/** The traffic of one client run, in arrival order. */
export class Traffic {
  readonly entries: Recorded[] = []
  #seq = 0

  /** Appends an exchange whose request has arrived (its answer is filled in later). */
  add(entry: Omit<Recorded, 'seq'>): Recorded {
    const recorded = { ...entry, seq: ++this.#seq }
    this.entries.push(recorded)
    return recorded
  }

  /** Forgets everything (a new run on the same stack). */
  clear(): void {
    this.entries.length = 0
    this.#seq = 0
  }
}

/** The bearer token of a request's `Authorization` header, if it has one. */
export function bearerOf(e: Recorded): string | undefined {
  const m = /^bearer\s+(\S+)\s*$/i.exec(e.requestHeaders.authorization ?? '')
  return m?.[1]
}

/** A form (or query) body as parameters. */
export function formOf(e: Recorded): URLSearchParams {
  return new URLSearchParams(e.requestBody)
}

/** A JSON response body, or undefined when it is not JSON. */
export function jsonOf(body: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(body) as unknown
    return v && typeof v === 'object' && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : undefined
  } catch {
    return undefined
  }
}

/** The `Location` of a redirect answer, resolved. */
export function locationOf(e: Recorded): URL | undefined {
  const l = e.responseHeaders.location
  return l && URL.canParse(l, e.url.href) ? new URL(l, e.url) : undefined
}

/** The parameters of a `Bearer` challenge (RFC 6750 §3) in `WWW-Authenticate`. */
export function challengeOf(e: Recorded): Record<string, string> | undefined {
  const h = e.responseHeaders['www-authenticate']
  if (!h || !/^bearer\b/i.test(h)) return undefined
  const params: Record<string, string> = {}
  for (const m of h.matchAll(/([a-z_]+)=(?:"([^"]*)"|([^\s,]+))/gi)) {
    params[(m[1] ?? '').toLowerCase()] = m[2] ?? m[3] ?? ''
  }
  return params
}

/** An exchange as evidence in a report, every credential redacted (`@gatehouse/redact`). */
export function toEvidence(e: Recorded): Exchange {
  const lower = (h: Record<string, string | string[]>) =>
    Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), String(v)]))
  return {
    method: e.method,
    url: redactUrl(e.url.href),
    requestHeaders: lower(redactHeaders(e.requestHeaders)),
    ...(e.requestBody ? { requestBody: redactText(e.requestBody).slice(0, 300) } : {}),
    status: e.status,
    headers: lower(redactHeaders(e.responseHeaders)),
    bodyExcerpt: `${e.reshaped ? `[recorder: ${e.reshaped}] ` : ''}${redactText(e.responseBody).slice(0, 300)}`,
  }
}
