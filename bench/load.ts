/**
 * The load of `npm run bench` and `npm run bench:workers`: `POST /mcp` tools/call from autocannon
 * (in this process) against one target, measured as CPU µs per request of the process tree that
 * serves it plus req/s and latency; the gatehouse configuration both benchmarks run; and the
 * check that a JWT target really verifies.
 */
import autocannon from 'autocannon'
import { cpuPerRequest, treeCpuUs } from './cpu.js'
import { PER_USER_TOOL_BUCKET } from './growth.js'
import { treeRss } from './rss.js'
import { BENCH_ISSUER, type BenchSigner } from './token.js'

export const BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'echo', arguments: { text: 'hi' } },
})

/**
 * {@link BODY} as a 2026-07-28 client sends it: the protocol version in `_meta`, beside the
 * request headers of {@link MODERN_HEADERS} (MCP 2026-07-28 Streamable HTTP §Standard Request
 * Headers), which the gateway validates against the body.
 */
export const MODERN_BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: {
    name: 'echo',
    arguments: { text: 'hi' },
    _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' },
  },
})

/** The headers a 2026-07-28 client sends with {@link MODERN_BODY}. */
export const MODERN_HEADERS: Readonly<Record<string, string>> = {
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'tools/call',
  'mcp-name': 'echo',
}

/**
 * That `url` validates the 2026-07-28 headers as the benchmark assumes: {@link MODERN_BODY} with
 * its headers is admitted (200) and with an `Mcp-Name` the body does not say refused (400).
 */
export async function checkHeaderValidation(url: string, token: string): Promise<void> {
  for (const [name, want] of [
    ['echo', 200],
    ['other', 400],
  ] as const) {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${token}`,
        ...MODERN_HEADERS,
        'mcp-name': name,
      },
      body: MODERN_BODY,
    })
    await res.arrayBuffer()
    if (res.status !== want) {
      throw new Error(
        `${url} answered ${res.status} to a 2026-07-28 request with Mcp-Name ${name}, not ${want}: it does not validate the headers as the benchmark assumes`,
      )
    }
  }
}

/** One target: where to send the load, with which token(s), and the process tree serving it. */
export interface Target {
  name: string
  url: string
  /** One token for every request, or a function giving each request its own. */
  token?: string | (() => string)
  pid: number
  /** The request body (default {@link BODY}). */
  body?: string
  /** Headers beside content-type and authorization (the MCP 2026-07-28 request headers). */
  headers?: Record<string, string>
  /** A path for each request (replacing the URL's), e.g. cycling over many routes. */
  path?: () => string
  /**
   * Warm-up requests instead of the 2 s warm-up, e.g. one per distinct user so that every user's
   * state (rate-limit key, cached token) exists before the measurement.
   */
  warmupRequests?: number
  /** Seconds of warm-up load before the measurement when {@link warmupRequests} is not given (2). */
  warmupSeconds?: number
}

export interface Sample {
  rps: number
  p50: number
  p99: number
  errors: number
  cpuUs: number
  /** RSS of the target's process tree as the load ends, in bytes. */
  rss: number
}

export async function measure(t: Target, duration: number, connections: number): Promise<Sample> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...t.headers }
  if (typeof t.token === 'string') headers.authorization = `Bearer ${t.token}`
  const fresh = typeof t.token === 'function' ? t.token : undefined
  const path = t.path
  const opts = {
    url: t.url,
    method: 'POST' as const,
    body: t.body ?? BODY,
    headers,
    connections,
    ...((fresh || path) && {
      requests: [
        {
          setupRequest: (req: { headers: Record<string, string>; path?: string }) => {
            if (fresh) req.headers = { ...headers, authorization: `Bearer ${fresh()}` }
            if (path) req.path = path()
            return req
          },
        },
      ],
    }),
  }
  // warm-up: JIT, pools, verification cache
  await autocannon(
    t.warmupRequests === undefined
      ? { ...opts, duration: t.warmupSeconds ?? 2 }
      : { ...opts, amount: t.warmupRequests },
  )
  const before = treeCpuUs(t.pid)
  const r = await autocannon({ ...opts, duration })
  const cpuUs = cpuPerRequest(before, treeCpuUs(t.pid), r.requests.total)
  const rss = treeRss(t.pid)
  return {
    rss,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.non2xx + r.errors + r.timeouts,
    cpuUs,
  }
}

/**
 * That the JWT targets really verify: each must refuse a token with a forged signature, another
 * audience, another issuer or an expired one (401), and admit a good one (200). Throws otherwise.
 */
export async function checkRefusals(signer: BenchSigner, urls: string[]): Promise<void> {
  const good = signer.sign({ groups: ['AI-Users'] })
  const [h, p, sig] = good.split('.') as [string, string, string]
  const forged = `${h}.${p}.${sig.slice(0, -4)}${sig.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`
  const cases: Array<[string, string, number]> = [
    ['a good token', good, 200],
    ['a forged signature', forged, 401],
    ['another audience', signer.sign({ groups: ['AI-Users'], aud: 'api://other' }), 401],
    ['another issuer', signer.sign({ groups: ['AI-Users'], iss: 'https://evil.example' }), 401],
    ['an expired token', signer.sign({ groups: ['AI-Users'], exp: 1_000_000 }), 401],
  ]
  for (const url of urls) {
    for (const [what, token, want] of cases) {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: BODY,
      })
      await res.arrayBuffer()
      if (res.status !== want) {
        throw new Error(
          `${url} answered ${res.status} to ${what}, not ${want}: it does not verify as the benchmark assumes`,
        )
      }
    }
  }
}

/** The gatehouse configuration: /mcp open, /auth JWT + CEL, /aware that plus the MCP policy. */
export function gatehouseConfig(
  port: number,
  upstreamPort: number,
  jwk: unknown,
  workers = 1,
): unknown {
  const route = (path: string) => ({
    rules: [
      {
        matches: [{ path: { type: 'PathPrefix', value: path } }],
        backendRefs: [{ name: 'upstream' }],
      },
    ],
  })
  const auth = {
    jwtAuthentication: {
      mode: 'Strict',
      providers: [
        { issuer: BENCH_ISSUER, audiences: ['api://default'], jwks: { inline: { keys: [jwk] } } },
      ],
    },
    authorization: { action: 'Allow', policy: { matchExpressions: ['"AI-Users" in jwt.groups'] } },
  }
  return {
    // info: the start-up line tells the benchmark the proxy is ready, and the access log (a line
    // per request) is on, as by default.
    config: { adminAddr: 'off', logLevel: 'info', ...(workers !== 1 && { workers }) },
    gateways: { default: { port, address: '127.0.0.1' } },
    backends: { upstream: { static: { host: '127.0.0.1', port: upstreamPort } } },
    routes: {
      // open: the unauthenticated baseline, public on purpose.
      open: { ...route('/mcp'), allowUnauthenticated: true },
      authed: route('/auth'),
      aware: route('/aware'),
    },
    policies: {
      jwt: { targetRefs: [{ name: 'authed' }], traffic: auth },
      // The MCP-aware policy (docs/auth.md): the body is read and parsed, the tool authorized and a
      // per-user, per-tool bucket consulted (large enough never to answer 429 here).
      'jwt-aware': {
        targetRefs: [{ name: 'aware' }],
        traffic: {
          ...auth,
          mcpAuthorization: {
            rules: ['mcp.tool.name in ["echo", "progress"]', { allow: '"admins" in jwt.groups' }],
          },
          localRateLimit: [PER_USER_TOOL_BUCKET],
        },
      },
    },
  }
}
