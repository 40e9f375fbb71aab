/**
 * The HTML the broker shows people: the consent page and error pages. Every value that came
 * from a request or a client's metadata is escaped; pages are never cached, never framed
 * (clickjacking of the consent button) and load nothing.
 */
import { ERRORS, type RequestErrorCode } from '../errors.js'
import type { LocalResponse } from '../http/local-response.js'

/** Escapes text for HTML element content and double-quoted attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

/** Headers of every broker page. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  pragma: 'no-cache',
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  // No Referer to other sites (the IdP); not `no-referrer`, which makes browsers send
  // `Origin: null` on the consent form's POST (Fetch, "append a request Origin header").
  'referrer-policy': 'same-origin',
  // No script, no external resource, no framing (CSP Level 3 frame-ancestors).
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
}

const STYLE =
  'body{font:16px system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;line-height:1.4}' +
  'code{background:#f3f3f3;padding:0 .2rem}button{font:inherit;padding:.5rem 1rem;margin:.5rem .5rem 0 0}' +
  'dt{font-weight:600;margin-top:.6rem}'

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} — gatehouse</title><style>${STYLE}</style></head><body>${body}</body></html>`
}

/**
 * An error shown to the person in the browser, for errors that must not be sent to a redirect
 * URI (it is unknown or does not match the client's: RFC 6749 §4.1.2.1). The status is the
 * code's (errors.ts); the code is kept for logs, never sent.
 */
export function errorPage(
  code: RequestErrorCode,
  title: string,
  detail: string,
  extra?: Record<string, string>,
): LocalResponse {
  return {
    status: ERRORS[code].status,
    code,
    headers: { ...PAGE_HEADERS, ...extra },
    body: page(
      title,
      `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(detail)}</p><p><small>Nothing was sent to the application. Start again from the application you were using.</small></p>`,
    ),
  }
}

/** What the consent page shows and posts back. */
export interface ConsentView {
  /** The client's display name, or its id when it gave none. */
  clientName: string
  clientId: string
  /** Host (and port) of the redirect URI the code will be sent to. */
  redirectHost: string
  /** Scopes the client asked for (empty: none named). */
  scopes: string[]
  /** The resource the tokens are for. */
  resource: string
  /** The form's target (`<issuer>/oauth/consent`). */
  action: string
  /** Hidden fields: the pending request and its CSRF token. */
  request: string
  csrf: string
}

/** The consent page (MCP security best practices, "Confused Deputy": per-client consent). */
export function consentPage(v: ConsentView): LocalResponse {
  const named = v.clientName !== v.clientId
  const scopes =
    v.scopes.length > 0
      ? `<ul>${v.scopes.map((s) => `<li><code>${escapeHtml(s)}</code></li>`).join('')}</ul>`
      : '<p>No particular scope.</p>'
  const body = `<h1>Allow access?</h1>
<p>The application <strong>${escapeHtml(v.clientName)}</strong>${named ? ` (client id <code>${escapeHtml(v.clientId)}</code>)` : ''} asks to use <code>${escapeHtml(v.resource)}</code> in your name.</p>
<dl><dt>It will receive the result at</dt><dd><code>${escapeHtml(v.redirectHost)}</code></dd><dt>Scopes requested</dt><dd>${scopes}</dd></dl>
<p>Only allow it if you started this from that application just now. You then sign in at your identity provider.</p>
<form method="post" action="${escapeHtml(v.action)}">
<input type="hidden" name="request" value="${escapeHtml(v.request)}">
<input type="hidden" name="csrf" value="${escapeHtml(v.csrf)}">
<button type="submit" name="decision" value="approve">Allow</button><button type="submit" name="decision" value="deny">Deny</button>
</form>`
  return { status: 200, headers: { ...PAGE_HEADERS }, body: page('Allow access?', body) }
}
