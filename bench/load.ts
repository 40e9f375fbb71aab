/**
 * The load of `npm run bench` and `npm run bench:workers`: `POST /mcp` tools/call from autocannon
 * (in this process) against one target, measured as CPU µs per request of the process tree that
 * serves it plus req/s and latency; the gatehouse configuration both benchmarks run; and the
 * check that a JWT target really verifies.
 */
import autocannon from 'autocannon'
import { cpuPerRequest, treeCpuUs } from './cpu.js'
import { BENCH_ISSUER, type BenchSigner } from './token.js'

export const BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'echo', arguments: { text: 'hi' } },
})

/** One target: where to send the load, with which token(s), and the process tree serving it. */
export interface Target {
  name: string
  url: string
  /** One token for every request, or a function giving each request its own. */
  token?: string | (() => string)
  pid: number
}

export interface Sample {
  rps: number
  p50: number
  p99: number
  errors: number
  cpuUs: number
}

export async function measure(t: Target, duration: number, connections: number): Promise<Sample> {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (typeof t.token === 'string') headers.authorization = `Bearer ${t.token}`
  const fresh = typeof t.token === 'function' ? t.token : undefined
  const opts = {
    url: t.url,
    method: 'POST' as const,
    body: BODY,
    headers,
    connections,
    ...(fresh && {
      requests: [
        {
          setupRequest: (req: { headers: Record<string, string> }) => {
            req.headers = { ...headers, authorization: `Bearer ${fresh()}` }
            return req
          },
        },
      ],
    }),
  }
  await autocannon({ ...opts, duration: 2 }) // warm-up: JIT, pools, verification cache
  const before = treeCpuUs(t.pid)
  const r = await autocannon({ ...opts, duration })
  const cpuUs = cpuPerRequest(before, treeCpuUs(t.pid), r.requests.total)
  return {
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
          localRateLimit: [
            {
              name: 'per-user-tool',
              maxTokens: 1_000_000_000,
              tokensPerFill: 1_000_000_000,
              fillInterval: '1s',
              key: 'jwt.sub + "/" + mcp.tool.name',
              when: 'mcp.method == "tools/call"',
            },
          ],
        },
      },
    },
  }
}
