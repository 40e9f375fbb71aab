/**
 * `npm run bench:broker [-- --duration 10 --connections 20 --codes 100 --write]`: the broker's
 * `/authorize` throughput and token-endpoint latency with the memory store and with Redis (issue
 * #22). Two gatehouse processes from the build (one per store) in front of mock-idp and the MCP
 * backend; Debian's redis-server started on a free port in a temporary directory.
 *
 * - `/authorize`: autocannon GETs a valid authorization request of the configured client (each
 *   answer is the consent page; each request stores one pending authorization).
 * - token endpoint: `--codes` gateway codes are obtained first, each through the whole flow
 *   (consent remembered, mock-idp's sign-in form, callback), then redeemed one after another
 *   (`authorization_code`: one atomic take, a replay marker and the grant written); then the
 *   refresh grant is used as many times (`refresh_token`: the grant taken and written back, and a
 *   refresh at the IdP, whose time is most of it).
 */

import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { startMockIdp } from '@gatehouse/mock-idp'
import { startMcpBackend } from '@gatehouse/mock-mcp'
import { authConfig } from '@gatehouse/proxy/testing/auth-config'
import { pkce, signInThroughBroker, TestBrowser } from '@gatehouse/proxy/testing/broker-browser'
import { authorizationUrl, DEMO_CLIENT } from '@gatehouse/proxy/testing/broker-stack'
import { redisSkipReason, startRedisServer } from '@gatehouse/proxy/testing/redis-server'
import { freePort } from '@gatehouse/support'
import autocannon from 'autocannon'
import { stringify } from 'yaml'
import { startProcess, stopProcesses } from './processes.js'
import { benchOptions, report } from './report.js'

const { duration, connections, codes, write } = benchOptions({
  duration: 10,
  connections: 20,
  codes: 100,
})
const root = new URL('..', import.meta.url).pathname
const REDIRECT = 'http://127.0.0.1:33418/callback'
const SECRET = 'bench-broker-signing-secret-0123456789abcdef'

const skip = redisSkipReason()
if (skip) {
  console.error(`bench:broker needs redis-server: ${skip}`)
  process.exit(2)
}
const redis = await startRedisServer()
const idp = await startMockIdp()
const backend = await startMcpBackend()

/** One gatehouse process with the given store; its issuer is its own address. */
async function gateway(store: Record<string, unknown>): Promise<{ issuer: string }> {
  const port = await freePort()
  const issuer = `http://127.0.0.1:${port}/mcp`
  const config = authConfig({
    idpPort: idp.port,
    backendPort: backend.port,
    issuer: idp.issuer,
    resource: issuer,
    broker: { secret: SECRET, store },
  })
  const file = join(mkdtempSync(join(tmpdir(), 'gatehouse-bench-broker-')), 'gatehouse.yaml')
  writeFileSync(
    file,
    stringify({
      ...config,
      // info: the listening line is how startProcess knows it is up (the access log is drained).
      config: { adminAddr: 'off', logLevel: 'info' },
      gateways: { default: { port, address: '127.0.0.1' } },
    }),
  )
  await startProcess(
    process.execPath,
    [join(root, 'proxy/bin/gatehouse.js'), '-f', file],
    /gatehouse listening/,
  )
  return { issuer }
}

const MAX = 10_000_000

async function authorizeThroughput(issuer: string) {
  const { challenge } = pkce()
  const url = authorizationUrl(
    { authorizeUrl: `${issuer}/oauth/authorize`, issuer },
    {
      redirect_uri: REDIRECT,
      state: 'bench',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    },
  ).toString()
  await autocannon({ url, connections, duration: 2 })
  const r = await autocannon({ url, connections, duration })
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    bad: r.non2xx + r.errors + r.timeouts,
  }
}

async function tokenForm(
  base: string,
  form: Record<string, string>,
): Promise<Record<string, unknown>> {
  const res = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  })
  const body = (await res.json()) as Record<string, unknown>
  if (res.status !== 200)
    throw new Error(`token endpoint: HTTP ${res.status} ${JSON.stringify(body)}`)
  return body
}

function stats(ms: number[]) {
  const s = [...ms].sort((a, b) => a - b)
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? Number.NaN
  return { p50: at(0.5), p99: at(0.99), mean: s.reduce((a, b) => a + b, 0) / s.length }
}

async function tokenLatency(issuer: string) {
  const browser = new TestBrowser()
  const obtained: Array<{ code: string; verifier: string }> = []
  for (let i = 0; i < codes; i++) {
    const { verifier, challenge } = pkce()
    const url = authorizationUrl(
      { authorizeUrl: `${issuer}/oauth/authorize`, issuer },
      {
        redirect_uri: REDIRECT,
        state: `s${i}`,
        code_challenge: challenge,
        code_challenge_method: 'S256',
      },
    )
    const back = await signInThroughBroker(browser, url, 'alice', REDIRECT)
    obtained.push({ code: back.searchParams.get('code') ?? '', verifier })
  }
  const redeem: number[] = []
  let refreshToken = ''
  for (const o of obtained) {
    const t0 = performance.now()
    const body = await tokenForm(issuer, {
      grant_type: 'authorization_code',
      client_id: DEMO_CLIENT,
      code: o.code,
      redirect_uri: REDIRECT,
      code_verifier: o.verifier,
    })
    redeem.push(performance.now() - t0)
    refreshToken = String(body.refresh_token)
  }
  const refresh: number[] = []
  for (let i = 0; i < codes; i++) {
    const t0 = performance.now()
    const body = await tokenForm(issuer, {
      grant_type: 'refresh_token',
      client_id: DEMO_CLIENT,
      refresh_token: refreshToken,
    })
    refresh.push(performance.now() - t0)
    refreshToken = String(body.refresh_token)
  }
  return { redeem: stats(redeem), refresh: stats(refresh) }
}

const f = (n: number) => n.toFixed(2)
const lines = [
  '| store | /authorize req/s | p50 ms | p99 ms | non-2xx/errors | code redemption p50 / p99 / mean ms | refresh p50 / p99 / mean ms |',
  '|---|---:|---:|---:|---:|---:|---:|',
]
try {
  const targets = [
    { name: 'memory', ...(await gateway({ memory: { maxEntries: MAX } })) },
    {
      name: 'redis',
      ...(await gateway({ redis: { url: redis.url, keyPrefix: 'bench:', maxEntries: MAX } })),
    },
  ]
  for (const t of targets) {
    const a = await authorizeThroughput(t.issuer)
    const l = await tokenLatency(t.issuer)
    lines.push(
      `| ${t.name} | ${Math.round(a.rps)} | ${a.p50} | ${a.p99} | ${a.bad} | ${f(l.redeem.p50)} / ${f(l.redeem.p99)} / ${f(l.redeem.mean)} | ${f(l.refresh.p50)} / ${f(l.refresh.p99)} / ${f(l.refresh.mean)} |`,
    )
  }
  report(
    `broker: /authorize ${duration}s × ${connections} connections, ${codes} codes and refreshes`,
    'The broker (docs/design/broker.md), each store in its own gatehouse process from the build, mock-idp and the MCP backend in the benchmark process, redis-server 7 on loopback. `/authorize` answers the consent page and stores one pending authorization per request; code redemption is sequential (one request at a time), refresh includes the refresh at the IdP (mock-idp, in this process). Shared 2-core machine: compare the rows, not the absolute figures.',
    lines,
    write,
  )
} finally {
  stopProcesses()
  await backend.stop()
  await idp.stop()
  await redis.stop()
}
