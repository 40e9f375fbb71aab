import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { stringify } from 'yaml'
import { checkProvidersOnline } from '../../src/auth/online-check.js'
import { parseConfig } from '../../src/index.js'
import { startTinyIdp, type TinyIdp } from './tiny-idp.js'

let idp: TinyIdp
beforeAll(async () => {
  idp = await startTinyIdp()
})
afterAll(async () => {
  await idp.stop()
})
beforeEach(() => {
  idp.discoveryDocument(undefined)
  idp.discoveryDown(false)
})

/** A configuration whose one policy has the given provider. */
function config(provider: Record<string, unknown>) {
  return parseConfig(
    stringify({
      gateways: { default: { port: 3000 } },
      backends: {
        backend: { static: { host: '127.0.0.1', port: 9 } },
        idp: { static: { host: '127.0.0.1', port: idp.port } },
      },
      routes: {
        mcp: {
          rules: [
            {
              matches: [{ path: { type: 'PathPrefix', value: '/mcp' } }],
              backendRefs: [{ name: 'backend' }],
            },
          ],
        },
      },
      policies: {
        p: {
          targetRefs: [{ name: 'mcp' }],
          traffic: { jwtAuthentication: { providers: [{ audiences: ['a'], ...provider }] } },
        },
      },
    }),
    'test.yaml',
  )
}

const PATH = 'policies.p.traffic.jwtAuthentication.providers[0]'

describe('checkProvidersOnline', () => {
  it('with stated endpoints: fetches the keys where stated and no discovery document', async () => {
    idp.discoveryDown(true)
    const stated = (jwks: string) =>
      config({ issuer: idp.issuer, preset: 'generic', endpoints: { jwks } })
    expect(await checkProvidersOnline(stated(`${idp.issuer}/v1/keys`))).toEqual([])
    expect(await checkProvidersOnline(stated(`${idp.orgUrl}/nowhere`))).toEqual([
      { path: PATH, message: `the keys at ${idp.orgUrl}/nowhere answer HTTP 404` },
    ])
  })

  it('finds nothing wrong when discovery names the issuer and its jwks_uri serves keys', async () => {
    expect(await checkProvidersOnline(config({ issuer: idp.issuer, preset: 'generic' }))).toEqual(
      [],
    )
    const okta = config({
      issuer: idp.issuer,
      jwks: { remote: { backendRef: { name: 'idp' }, jwksPath: '/oauth2/default/v1/keys' } },
    })
    expect(await checkProvidersOnline(okta)).toEqual([])
  })

  it('reports a discovery document that names another issuer, saying to set issuer to it', async () => {
    idp.discoveryDocument({ issuer: `${idp.issuer}/`, jwks_uri: `${idp.issuer}/v1/keys` })
    const issues = await checkProvidersOnline(config({ issuer: idp.issuer, preset: 'generic' }))
    expect(issues).toEqual([
      {
        path: PATH,
        message: expect.stringContaining(
          `names issuer ${idp.issuer}/, but issuer is ${idp.issuer}`,
        ),
      },
    ])
  })

  it('reports the seed provider whose discovery is wrong although its keys are fine', async () => {
    idp.discoveryDocument({ issuer: 'https://elsewhere.example', jwks_uri: 'x' })
    const okta = config({
      issuer: idp.issuer,
      jwks: { remote: { backendRef: { name: 'idp' }, jwksPath: '/oauth2/default/v1/keys' } },
    })
    const issues = await checkProvidersOnline(okta)
    expect(issues.map((i) => i.message)).toEqual([
      expect.stringContaining('names issuer https://elsewhere.example'),
    ])
  })

  it('reports a discovery URL that answers 404, and the keys it therefore cannot find', async () => {
    const issues = await checkProvidersOnline(
      config({
        issuer: idp.issuer,
        preset: 'generic',
        discoveryUrl: `${idp.orgUrl}/nowhere/.well-known/openid-configuration`,
      }),
    )
    expect(issues.map((i) => i.message)).toEqual([
      `the discovery document at ${idp.orgUrl}/nowhere/.well-known/openid-configuration answers HTTP 404: set discoveryUrl to the IdP's OpenID Connect discovery URL, or correct the issuer`,
    ])
  })

  it('reports a document without jwks_uri when the keys come from it', async () => {
    idp.discoveryDocument({ issuer: idp.issuer })
    const issues = await checkProvidersOnline(config({ issuer: idp.issuer, preset: 'generic' }))
    expect(issues.map((i) => i.message)).toEqual([
      expect.stringContaining('has no jwks_uri, so the keys cannot be found'),
    ])
  })
})
