import type { JWK } from 'jose'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { stringify } from 'yaml'
import { checkAuthPolicy, compileAuthPolicy } from '../../src/auth/policy.js'
import type { AuthStageRequest } from '../../src/auth/types.js'
import { CelCompiler } from '../../src/config/cel.js'
import { createUpstream, type Upstream } from '../../src/http/upstream.js'
import { parseConfig } from '../../src/index.js'
import { TaskRegistry } from '../../src/telemetry/tasks.js'
import { capturedLogging } from '../helpers.js'
import { eventually } from '../reliability/helpers.js'
import { type Es256Signer, es256Signer } from './signer.js'
import { startTinyIdp, type TinyIdp } from './tiny-idp.js'

const ISSUER = 'https://idp.example/oauth2/default'

let jwk: JWK
let sign: Es256Signer['sign']
beforeAll(async () => {
  const signer = await es256Signer({
    iss: ISSUER,
    aud: 'api://default',
    sub: 'alice',
    email: 'alice@example.com',
    groups: ['AI-Users'],
  })
  jwk = signer.jwk
  sign = signer.sign
})

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.()
})

/** A whole configuration with one policy `p` (traffic as given) on route `mcp`. */
function config(
  traffic: Record<string, unknown>,
  o: { targets?: string[]; idpPort?: number } = {},
) {
  return parseConfig(
    stringify({
      config: { adminAddr: 'off' },
      gateways: { default: { port: 3000, address: '127.0.0.1' } },
      backends: {
        backend: { static: { host: '127.0.0.1', port: 9 } },
        idp: { static: { host: '127.0.0.1', port: o.idpPort ?? 9 } },
      },
      routes: {
        mcp: {
          rules: [
            {
              matches: [
                '/mcp',
                '/.well-known/oauth-protected-resource/mcp',
                '/.well-known/oauth-authorization-server/mcp',
              ].map((value) => ({ path: { type: 'PathPrefix', value } })),
              backendRefs: [{ name: 'backend' }],
            },
          ],
          // Some policies under test have no jwtAuthentication.
          allowUnauthenticated: true,
        },
      },
      policies: {
        p: { targetRefs: [{ name: 'mcp' }], traffic },
      },
    }),
    'test.yaml',
  )
}

const inlineJwt = (extra: Record<string, unknown> = {}) => ({
  jwtAuthentication: {
    mode: 'Strict',
    providers: [
      { issuer: ISSUER, audiences: ['api://default'], jwks: { inline: { keys: [jwk] } } },
    ],
    ...extra,
  },
})

function compile(cfg: ReturnType<typeof config>) {
  const logs: Array<Record<string, unknown>> = []
  const upstreams = new Map<string, Upstream>()
  for (const [name, backend] of Object.entries(cfg.backends)) {
    const u = createUpstream(backend)
    upstreams.set(name, u)
    cleanups.push(() => u.close())
  }
  const policy = compileAuthPolicy('p', cfg.policies.p as never, {
    config: cfg,
    upstreams,
    logging: capturedLogging(logs, 'info'),
    tasks: new TaskRegistry(),
  })
  cleanups.push(() => policy.stop())
  return { policy, logs }
}

function request(token?: string): AuthStageRequest {
  const auth = token ? { authorization: `Bearer ${token}` } : {}
  return {
    method: 'POST',
    path: '/mcp',
    headers: auth,
    headersDistinct: token ? { authorization: [`Bearer ${token}`] } : {},
  }
}

describe('checkAuthPolicy', () => {
  it('passes a good policy', () => {
    const cfg = config({
      ...inlineJwt(),
      authorization: { action: 'Allow', policy: { matchExpressions: ['"a" in jwt.groups'] } },
      transformations: { request: { set: [{ name: 'x-user', value: 'jwt.sub' }] } },
    })
    expect(checkAuthPolicy('p', cfg.policies.p as never, new CelCompiler())).toEqual([])
  })

  it('reports each bad expression and an empty key set at its own path', () => {
    const policy = {
      targetRefs: [{ name: 'mcp' }],
      traffic: {
        jwtAuthentication: {
          providers: [
            { issuer: ISSUER, audiences: ['a'], jwks: { inline: { keys: [jwk] } } },
            { issuer: 'https://two.example', audiences: ['a'], jwks: { inline: { keys: [] } } },
            {
              issuer: 'https://three.example',
              audiences: ['a'],
              jwks: { remote: { backendRef: { name: 'idp' }, jwksPath: '/k' } },
            },
          ],
        },
        authorization: { policy: { matchExpressions: ['true', 'jwt.groups.(', 'true'] } },
        transformations: { request: { set: [{ name: 'x', value: '1 +' }] } },
      },
    }
    const issues = checkAuthPolicy('p', policy as never, new CelCompiler())
    expect(issues.map((i) => i.path)).toEqual([
      'policies.p.traffic.authorization.policy.matchExpressions[1]',
      'policies.p.traffic.transformations.request.set[0].value',
      'policies.p.traffic.jwtAuthentication.providers[1].jwks',
    ])
    expect(issues[2]?.message).toBe('the key set has no usable public key')
    expect(issues[0]?.message).not.toBe('')
  })

  it('passes a policy of rules only, and refuses a rule that is not boolean', () => {
    const policy = (expressions: string[]) => ({
      targetRefs: [{ name: 'mcp' }],
      traffic: { authorization: { policy: { matchExpressions: expressions } } },
    })
    expect(checkAuthPolicy('p', policy(['true']) as never, new CelCompiler())).toEqual([])
    const issues = checkAuthPolicy('p', policy(['1 + 1']) as never, new CelCompiler())
    expect(issues.map((i) => i.path)).toEqual([
      'policies.p.traffic.authorization.policy.matchExpressions[0]',
    ])
  })

  it('names an unreadable JWKS file', () => {
    const policy = {
      targetRefs: [{ name: 'mcp' }],
      traffic: {
        jwtAuthentication: {
          providers: [
            { issuer: ISSUER, audiences: ['a'], jwks: { file: '/nonexistent/jwks.json' } },
          ],
        },
      },
    }
    expect(checkAuthPolicy('p', policy as never, new CelCompiler())).toEqual([
      {
        path: 'policies.p.traffic.jwtAuthentication.providers[0].jwks',
        message: expect.stringContaining('cannot read JWKS file /nonexistent/jwks.json'),
      },
    ])
  })
})

describe('compiled policy', () => {
  it('is programmed with static keys', async () => {
    const { policy, logs } = compile(config(inlineJwt()))
    await policy.start()
    expect(logs.filter((l) => l.level === 'error' || l.msg === 'policy programmed')).toEqual([])
    expect(policy.status()).toEqual({
      accepted: true,
      programmed: true,
      reason: 'Programmed',
      message: 'enforced on the data plane',
    })
  })

  it('reports JwksUnavailable with the URL and cause, logs it at start, and logs when it becomes programmed', async () => {
    const idp: TinyIdp = await startTinyIdp({ keysInitiallyDown: true })
    cleanups.push(() => idp.stop())
    const cfg = config(
      {
        jwtAuthentication: {
          providers: [
            {
              issuer: idp.issuer,
              audiences: ['api://default'],
              jwks: {
                remote: { backendRef: { name: 'idp' }, jwksPath: '/oauth2/default/v1/keys' },
              },
            },
          ],
        },
      },
      { idpPort: idp.port },
    )
    const { policy, logs } = compile(cfg)
    const url = `http://127.0.0.1:${idp.port}/oauth2/default/v1/keys`
    expect(policy.status()).toMatchObject({
      accepted: true,
      programmed: false,
      reason: 'JwksUnavailable',
      message: `JWKS keyset is not available at ${url}: not fetched yet`,
    })
    await policy.start()
    expect(policy.status().message).toBe(`JWKS keyset is not available at ${url}: HTTP 500`)
    expect(logs.find((l) => l.module === 'proxy::auth::jwt' && l.level === 'error')).toMatchObject({
      policy: 'p',
      reason: 'JwksUnavailable',
      message: `JWKS keyset is not available at ${url}: HTTP 500`,
      code: 'GW_ERR_JWKS_UNAVAILABLE',
    })
    expect(logs.some((l) => l.msg === 'policy programmed')).toBe(false)
    idp.keysDown(false)
    // The key set retries on its own (after 1 s): the policy becomes programmed and says so.
    await eventually(() => policy.status().programmed, 'the key set retried')
    expect(policy.status().programmed).toBe(true)
    expect(logs.find((l) => l.msg === 'policy programmed')).toMatchObject({
      level: 'info',
      policy: 'p',
      programmed: true,
    })
  })

  it('reports DiscoveryUnavailable while the discovery document names another issuer, then becomes programmed', async () => {
    const idp: TinyIdp = await startTinyIdp()
    cleanups.push(() => idp.stop())
    const good = {
      issuer: idp.issuer,
      jwks_uri: `${idp.issuer}/v1/keys`,
      authorization_endpoint: `${idp.issuer}/v1/authorize`,
    }
    idp.discoveryDocument({ ...good, issuer: 'https://elsewhere.example/' })
    const cfg = config({
      jwtAuthentication: {
        providers: [{ issuer: idp.issuer, preset: 'generic', audiences: ['api://default'] }],
      },
    })
    const { policy, logs } = compile(cfg)
    await policy.start()
    const discovery = `${idp.issuer}/.well-known/openid-configuration`
    expect(policy.status()).toMatchObject({
      accepted: true,
      programmed: false,
      reason: 'DiscoveryUnavailable',
    })
    expect(policy.status().message).toContain(
      `OIDC discovery document is not usable at ${discovery}: the document names issuer https://elsewhere.example/, expected ${idp.issuer}`,
    )
    expect(logs.find((l) => l.module === 'proxy::auth::jwt' && l.level === 'error')).toMatchObject({
      policy: 'p',
      reason: 'DiscoveryUnavailable',
      code: 'GW_ERR_DISCOVERY_UNAVAILABLE',
    })
    // Fixed at the IdP: the policy is programmed again, with the keys from discovery's jwks_uri.
    idp.discoveryDocument(good)
    await eventually(() => policy.status().programmed, 'discovery fetched again')
    await eventually(async () => (await policy.authenticate(request(await idp.sign()))).ok, 'keys')
  })

  it('composes the stages: 401 without a token, 403 outside the rules, claims and headers inside', async () => {
    const { policy } = compile(
      config({
        ...inlineJwt(),
        authorization: {
          action: 'Allow',
          policy: { matchExpressions: ['"AI-Users" in jwt.groups'] },
        },
        transformations: { request: { set: [{ name: 'x-user', value: 'jwt.email' }] } },
      }),
    )
    await policy.start()
    expect(await policy.authenticate(request())).toMatchObject({
      ok: false,
      response: { status: 401 },
    })
    expect(await policy.authenticate(request(await sign({ groups: [] })))).toMatchObject({
      ok: false,
      response: { status: 403 },
    })
    const ok = await policy.authenticate(request(await sign()))
    expect(ok).toMatchObject({
      ok: true,
      claims: { sub: 'alice' },
      requestHeaders: { set: { 'x-user': 'alice@example.com' }, remove: [] },
    })
  })

  it('passes claims without header changes when there is no transformation, and nothing without authentication', async () => {
    const plain = compile(config(inlineJwt())).policy
    const r = await plain.authenticate(request(await sign()))
    expect(r).toMatchObject({ ok: true, claims: { sub: 'alice' } })
    expect(r).not.toHaveProperty('requestHeaders')
    const rulesOnly = compile(
      config({ authorization: { action: 'Allow', policy: { matchExpressions: ['true'] } } }),
    ).policy
    // Nothing but ok: no claims member at all, not one holding undefined.
    expect(await rulesOnly.authenticate(request())).toStrictEqual({ ok: true })
    expect(plain.dump().rules).toEqual([])
    expect(rulesOnly.dump()).toMatchObject({
      mode: null,
      providers: [],
      mcp: null,
      rules: ['true'],
    })
    expect(await rulesOnly.serveOAuth({ ...request(), body: async () => Buffer.alloc(0) })).toBe(
      undefined,
    )
  })

  it('serves its OAuth documents when it has an mcp block', async () => {
    const { policy } = compile(
      config(
        inlineJwt({
          mcp: { provider: 'BridgedIdp', resourceMetadata: { resource: 'https://gw.example/mcp' } },
        }),
      ),
    )
    const res = await policy.serveOAuth({
      ...request(),
      method: 'GET',
      path: '/.well-known/oauth-protected-resource/mcp',
      body: async () => Buffer.alloc(0),
    })
    expect(res?.status).toBe(200)
    expect(res?.body).toMatchObject({ resource: 'https://gw.example/mcp' })
  })

  it('logs nothing about being programmed when its remote keys arrive during start', async () => {
    const idp: TinyIdp = await startTinyIdp()
    cleanups.push(() => idp.stop())
    const { policy, logs } = compile(
      config(
        {
          jwtAuthentication: {
            providers: [
              {
                issuer: idp.issuer,
                audiences: ['api://default'],
                jwks: {
                  remote: { backendRef: { name: 'idp' }, jwksPath: '/oauth2/default/v1/keys' },
                },
              },
            ],
          },
        },
        { idpPort: idp.port },
      ),
    )
    await policy.start()
    expect(policy.status().programmed).toBe(true)
    expect(logs.filter((l) => l.module === 'proxy::auth::jwt')).toEqual([])
  })

  it('dumps mode, providers with their keys, the mcp block and the rules, and no key material', async () => {
    const { policy } = compile(
      config({
        ...inlineJwt({
          mcp: {
            provider: 'BridgedIdp',
            clientId: 'demo-client',
            resourceMetadata: { resource: 'https://gw.example/mcp' },
          },
        }),
        authorization: { action: 'Allow', policy: { matchExpressions: ['true'] } },
      }),
    )
    const dump = policy.dump()
    expect(dump).toEqual({
      name: 'p',
      mode: 'Strict',
      providers: [
        {
          issuer: ISSUER,
          audiences: ['api://default'],
          preset: 'okta',
          clockSkew: '60s',
          keys: expect.objectContaining({ source: 'static', kids: ['k1'] }),
        },
      ],
      mcp: {
        provider: 'BridgedIdp',
        clientId: 'demo-client',
        resource: 'https://gw.example/mcp',
        issuerMode: 'Provider',
        discovery: {
          url: `${ISSUER}/.well-known/openid-configuration`,
          cached: false,
          lastError: null,
        },
      },
      rules: ['true'],
    })
    expect(JSON.stringify(dump)).not.toContain(String(jwk.x))
  })
})
