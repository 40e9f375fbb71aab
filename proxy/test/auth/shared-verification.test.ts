/**
 * Policies of one compilation whose providers verify alike share their key sets and verifier
 * (proxy/src/auth/shared-verification.ts): one JWKS fetch for all of them, against a real key
 * server (tiny-idp) through a real upstream; providers that differ keep their own.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { stringify } from 'yaml'
import { compileAuthPolicy } from '../../src/auth/policy.js'
import type { AuthContext, AuthPolicy, AuthStageRequest } from '../../src/auth/types.js'
import { createUpstream, type Upstream } from '../../src/http/upstream.js'
import { parseConfig } from '../../src/index.js'
import { TaskRegistry } from '../../src/telemetry/tasks.js'
import { capturedLogging } from '../helpers.js'
import { startTinyIdp, type TinyIdp } from './tiny-idp.js'

const KEYS_PATH = '/oauth2/default/v1/keys'
const cleanups: Array<() => unknown> = []
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.()
})

/** Policies `a`, `b`, `c` with the given audiences, each on a route of its own, keys from `idp`. */
async function compileThree(idp: TinyIdp, audiences: [string, string, string]) {
  const names = ['a', 'b', 'c'] as const
  const provider = (audience: string) => ({
    issuer: idp.issuer,
    audiences: [audience],
    jwks: { remote: { backendRef: { name: 'idp' }, jwksPath: KEYS_PATH } },
  })
  const config = parseConfig(
    stringify({
      config: { adminAddr: 'off' },
      gateways: { default: { port: 3000, address: '127.0.0.1' } },
      backends: {
        backend: { static: { host: '127.0.0.1', port: 9 } },
        idp: { static: { host: '127.0.0.1', port: idp.port } },
      },
      routes: Object.fromEntries(
        names.map((n) => [
          n,
          {
            rules: [
              {
                matches: [{ path: { type: 'PathPrefix', value: `/${n}` } }],
                backendRefs: [{ name: 'backend' }],
              },
            ],
          },
        ]),
      ),
      policies: Object.fromEntries(
        names.map((n, i) => [
          n,
          {
            targetRefs: [{ name: n }],
            traffic: {
              jwtAuthentication: { providers: [provider(audiences[i] as string)] },
            },
          },
        ]),
      ),
    }),
    'test.yaml',
  )
  const upstreams = new Map<string, Upstream>()
  for (const [name, backend] of Object.entries(config.backends)) {
    const u = createUpstream(backend)
    upstreams.set(name, u)
    cleanups.push(() => u.close())
  }
  // One context per compilation, as lifecycle/compile.ts builds it.
  const ctx: AuthContext = {
    config,
    upstreams,
    logging: capturedLogging([], 'error'),
    tasks: new TaskRegistry(),
  }
  const policies = names.map((n) => compileAuthPolicy(n, config.policies[n] as never, ctx))
  for (const p of policies) cleanups.push(() => p.stop())
  await Promise.all(policies.map((p) => p.start()))
  return policies
}

function request(token: string): AuthStageRequest {
  return {
    method: 'POST',
    path: '/mcp',
    headers: { authorization: `Bearer ${token}` },
    headersDistinct: { authorization: [`Bearer ${token}`] },
  }
}

const fetchesOf = (idp: TinyIdp) => idp.hits.filter((h) => h.path === KEYS_PATH).length

describe('shared verification', () => {
  it('three policies on one issuer, key source and audience: one JWKS fetch, all verify', async () => {
    const idp = await startTinyIdp()
    cleanups.push(() => idp.stop())
    const policies = await compileThree(idp, ['api://default', 'api://default', 'api://default'])
    expect(fetchesOf(idp)).toBe(1)
    const token = await idp.sign({ aud: 'api://default' })
    for (const p of policies) expect((await p.authenticate(request(token))).ok).toBe(true)
  })

  it('a policy with another audience keeps its own key set and refuses the others’ token', async () => {
    const idp = await startTinyIdp()
    cleanups.push(() => idp.stop())
    const [a, b, c] = (await compileThree(idp, ['api://one', 'api://one', 'api://two'])) as [
      AuthPolicy,
      AuthPolicy,
      AuthPolicy,
    ]
    expect(fetchesOf(idp)).toBe(2)
    const token = await idp.sign({ aud: 'api://one' })
    expect((await a.authenticate(request(token))).ok).toBe(true)
    expect((await b.authenticate(request(token))).ok).toBe(true)
    expect((await c.authenticate(request(token))).ok).toBe(false)
  })

  it('one policy stopped: the one sharing its keys still verifies a token of a rotated key', async () => {
    const idp = await startTinyIdp()
    cleanups.push(() => idp.stop())
    const [a, b] = (await compileThree(idp, [
      'api://default',
      'api://default',
      'api://default',
    ])) as [AuthPolicy, AuthPolicy]
    a.stop()
    await idp.rotate(true)
    const token = await idp.sign({ aud: 'api://default' })
    expect((await b.authenticate(request(token))).ok).toBe(true)
    expect(b.status().programmed).toBe(true)
  })
})
