/**
 * Profile `cors`: the seed's CORS filter (allowCredentials true, allowOrigins *, exposeHeaders
 * Origin + Mcp-Session-Id, maxAge 86400) as browsers need it. Sources: seed "CORS filter fields",
 * Fetch standard §3.2 (CORS protocol), and the MCP transport's own request headers, which the
 * seed's allowHeaders omit (CORS-006, a SHOULD: the harness configures them).
 */
import { CheckSkipped, must, type Requirement } from '../types.js'
import { postMcp } from './util.js'

const ORIGIN = 'http://conformance-app.example'

const preflight = (ctx: Parameters<Requirement['check']>[0]) =>
  ctx.http(`${ctx.target.base}/mcp`, {
    method: 'OPTIONS',
    headers: {
      origin: ORIGIN,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type',
    },
  })

/** Profile `cors`: what browsers need of the route's CORS filter. */
export const cors: Requirement[] = [
  {
    id: 'CORS-001',
    level: 'MUST',
    quote:
      'preflight is answered before any auth runs; with credentials and * the origin is reflected (browsers reject * with credentials) and Vary: Origin set.',
    profile: 'cors',
    source:
      'Fetch standard §3.2.2 (a preflight carries no credentials); seed: HTTPRoute CORS filter; docs/design/errors.md (preflight before auth)',
    text: 'A CORS preflight to /mcp is answered (2xx) with Access-Control-Allow-Origin, before any authentication.',
    async check(ctx) {
      const res = await preflight(ctx)
      must(res.status >= 200 && res.status < 300, '2xx', `${res.status}`)
      must(
        res.headers.get('access-control-allow-origin') !== null,
        'Access-Control-Allow-Origin',
        'none',
      )
    },
  },
  {
    id: 'CORS-002',
    level: 'MUST',
    quote:
      'preflight is answered before any auth runs; with credentials and * the origin is reflected (browsers reject * with credentials) and Vary: Origin set.',
    profile: 'cors',
    source:
      'Fetch standard §3.2.5 ("*" is not allowed with credentials); seed: allowCredentials true, allowOrigins *; docs/design/errors.md (origin reflected with credentials)',
    text: 'With credentials allowed and origins "*", the origin is reflected (not "*"), with Access-Control-Allow-Credentials: true and Vary: Origin.',
    async check(ctx) {
      const res = await preflight(ctx)
      must(
        res.headers.get('access-control-allow-origin') === ORIGIN,
        ORIGIN,
        String(res.headers.get('access-control-allow-origin')),
      )
      must(
        res.headers.get('access-control-allow-credentials') === 'true',
        'Access-Control-Allow-Credentials: true',
        String(res.headers.get('access-control-allow-credentials')),
      )
      must(
        /\borigin\b/i.test(res.headers.get('vary') ?? ''),
        'Vary: Origin',
        String(res.headers.get('vary')),
      )
    },
  },
  {
    id: 'CORS-003',
    level: 'MUST',
    quote:
      'CORS headers on 401/403 too, with WWW-Authenticate exposed, so browser clients can read the challenge.',
    profile: 'cors',
    source:
      'MCP authorization 2025-06-18 §2.3 (browser clients read the challenge); Fetch standard §3.2.3; docs/auth.md (CORS on 401/403)',
    text: 'A 401 carries the CORS headers and exposes WWW-Authenticate, so a browser client can read the challenge.',
    async check(ctx) {
      const res = await postMcp(ctx, { headers: { origin: ORIGIN } })
      must(res.status === 401, '401', `${res.status}`)
      must(
        res.headers.get('access-control-allow-origin') === ORIGIN,
        `Access-Control-Allow-Origin: ${ORIGIN}`,
        String(res.headers.get('access-control-allow-origin')),
      )
      must(
        /www-authenticate/i.test(res.headers.get('access-control-expose-headers') ?? ''),
        'WWW-Authenticate exposed',
        String(res.headers.get('access-control-expose-headers')),
      )
    },
  },
  {
    id: 'CORS-004',
    level: 'SHOULD',
    quote: 'CORS filter fields: exposeHeaders | list | Origin, Mcp-Session-Id',
    profile: 'cors',
    source: 'seed: CORS filter (exposeHeaders Origin, Mcp-Session-Id)',
    text: 'Forwarded answers expose Mcp-Session-Id to the browser.',
    async check(ctx) {
      const token = (await ctx.target.idp.control.token({ sub: 'alice' })).access_token
      const res = await postMcp(ctx, { token, headers: { origin: ORIGIN } })
      must(
        /mcp-session-id/i.test(res.headers.get('access-control-expose-headers') ?? ''),
        'Mcp-Session-Id exposed',
        String(res.headers.get('access-control-expose-headers')),
      )
    },
  },
  {
    id: 'CORS-005',
    level: 'SHOULD',
    quote: 'CORS maxAge | 86400 seconds in the reference setup | CORS filter',
    profile: 'cors',
    source: 'seed: CORS filter (maxAge 86400); seed: Limits',
    text: 'The preflight answer carries Access-Control-Max-Age: 86400.',
    async check(ctx) {
      const res = await preflight(ctx)
      must(
        res.headers.get('access-control-max-age') === '86400',
        '86400',
        String(res.headers.get('access-control-max-age')),
      )
    },
  },
  {
    id: 'CORS-006',
    level: 'SHOULD',
    quote:
      "Found doing it: with the seed's reference allowHeaders (Origin, Authorization, Content-Type) a browser refuses every request after initialize, because the MCP transport sends Mcp-Session-Id and MCP-Protocol-Version",
    profile: 'cors',
    source:
      'MCP 2025-06-18 Transports (Session Management: Mcp-Session-Id; Protocol Version Header); Fetch standard §3.2.2 (the preflight must allow every requested header); docs/auth.md (the reference allowHeaders break sessions)',
    text: 'A preflight for a request within a session allows Mcp-Session-Id and MCP-Protocol-Version, so a browser client can go on after initialize.',
    async check(ctx) {
      const requested = ['authorization', 'content-type', 'mcp-protocol-version', 'mcp-session-id']
      const res = await ctx.http(`${ctx.target.base}/mcp`, {
        method: 'OPTIONS',
        headers: {
          origin: ORIGIN,
          'access-control-request-method': 'POST',
          'access-control-request-headers': requested.join(', '),
        },
      })
      const allowed = (res.headers.get('access-control-allow-headers') ?? '')
        .split(',')
        .map((h) => h.trim().toLowerCase())
      // "*" counts only without credentials (Fetch §3.2.5); the seed's filter allows credentials.
      const wildcard =
        allowed.includes('*') && res.headers.get('access-control-allow-credentials') !== 'true'
      const missing = wildcard ? [] : requested.filter((h) => !allowed.includes(h))
      must(
        missing.length === 0,
        `Access-Control-Allow-Headers allowing ${requested.join(', ')}`,
        `${String(res.headers.get('access-control-allow-headers'))} (missing ${missing.join(', ')})`,
      )
    },
  },
  {
    id: 'CORS-007',
    level: 'SHOULD',
    quote:
      'An origin server SHOULD send a Vary header field when its algorithm for selecting a representation varies based on aspects of the request message other than the method and target URI',
    profile: 'cors',
    source:
      'Fetch standard §3.2.5 (CORS protocol and HTTP caches: a reflected origin needs Vary: Origin); RFC 9110 §12.5.5 (Vary)',
    text: 'A forwarded response that reflects the request Origin in Access-Control-Allow-Origin carries Vary: Origin, so a cache never serves it to another origin.',
    async check(ctx) {
      // Found by Stryker (mutation/STRYKER.md): nothing judged Vary outside preflights.
      // Not a preflight (whose Vary CORS-002 judges): the protected-resource metadata, answered
      // without a token, through the route's CORS filter.
      const res = await ctx.http(`${ctx.target.base}/.well-known/oauth-protected-resource/mcp`, {
        headers: { origin: ORIGIN },
      })
      const reflected = res.headers.get('access-control-allow-origin')
      // "*" (or no CORS at all) does not vary by Origin: nothing for a cache to mix up.
      if (reflected === null)
        throw new CheckSkipped('the answer carries no Access-Control-Allow-Origin (no CORS here)')
      if (reflected === '*')
        throw new CheckSkipped('Access-Control-Allow-Origin: * does not vary by Origin')
      must(reflected === ORIGIN, `Access-Control-Allow-Origin: ${ORIGIN}`, String(reflected))
      must(
        /(^|,)\s*origin\s*(,|$)/i.test(res.headers.get('vary') ?? ''),
        'Vary: Origin',
        String(res.headers.get('vary')),
      )
    },
  },
]
