/**
 * Each seeded auth fault (proxy/src/faults.ts) changes exactly the behaviour it names, so the
 * conformance suite's mutation check has something real to catch.
 */
import { initializeRequest, type McpBackend, startMcpBackend } from '@gatehouse/mock-mcp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Fault, faultSet } from '../../src/faults.js'
import { startTestGatehouse } from '../helpers.js'
import { type AuthConfigOptions, authConfig } from './config.js'
import { startTinyIdp, type TinyIdp } from './tiny-idp.js'

let idp: TinyIdp
let backend: McpBackend

beforeAll(async () => {
  idp = await startTinyIdp()
  backend = await startMcpBackend()
})
afterAll(async () => {
  await backend.stop()
  await idp.stop()
})

const post = (base: string, token?: string, path = '/mcp') =>
  fetch(`${base}${path}`, initializeRequest({ bearer: token || undefined }))
const register = (base: string) =>
  fetch(`${base}/.well-known/oauth-authorization-server/mcp/client-registration`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:1/cb'] }),
  })
const json = async (res: Response) => (await res.json()) as Record<string, unknown>

/** fault → [config options, a probe whose answer must differ between healthy and faulty proxy] */
const cases: Array<[Fault, Partial<AuthConfigOptions>, (base: string) => Promise<unknown>]> = [
  ['no-www-authenticate', {}, async (b) => (await post(b)).headers.has('www-authenticate')],
  ['resource-metadata-from-host', {}, async (b) => (await post(b)).headers.get('www-authenticate')],
  [
    'skip-aud-check',
    {},
    async (b) => (await post(b, await idp.sign({ aud: 'api://other' }))).status,
  ],
  [
    'skip-iss-check',
    {},
    async (b) => (await post(b, await idp.sign({ iss: 'https://evil.example' }))).status,
  ],
  [
    'accept-expired',
    {},
    async (b) =>
      (await post(b, await idp.sign({ exp: Math.floor(Date.now() / 1000) - 600 }))).status,
  ],
  [
    'skip-signature',
    {},
    async (b) => {
      // bob's signature on alice's claims: a well-formed token with an invalid signature.
      const [header, , signature] = (await idp.sign({ sub: 'bob', groups: [] })).split('.')
      const [, alicePayload] = (await idp.sign()).split('.')
      return (await post(b, `${header}.${alicePayload}.${signature}`)).status
    },
  ],
  [
    'fail-open-no-keys',
    { jwksPath: '/oauth2/wrong/v1/keys' },
    async (b) => (await post(b, await idp.sign())).status,
  ],
  [
    'token-in-query',
    {},
    async (b) => (await post(b, undefined, `/mcp?access_token=${await idp.sign()}`)).status,
  ],
  ['forbidden-as-401', {}, async (b) => (await post(b, await idp.sign({ groups: [] }))).status],
  [
    'cel-error-allows',
    {},
    async (b) => (await post(b, await idp.sign({ groups: undefined }))).status,
  ],
  [
    'no-audience-param',
    {},
    async (b) =>
      (await json(await fetch(`${b}/.well-known/oauth-authorization-server/mcp`)))
        .authorization_endpoint,
  ],
  [
    'registration-endpoint-not-rewritten',
    {},
    async (b) =>
      (await json(await fetch(`${b}/.well-known/oauth-authorization-server/mcp`)))
        .registration_endpoint,
  ],
  [
    'registration-to-issuer',
    { clientId: null },
    async (b) => {
      await register(b)
      return idp.hits.filter((h) => h.path.endsWith('/clients')).at(-1)?.path
    },
  ],
  ['ignore-client-id', {}, async (b) => (await register(b)).status],
  [
    'prm-authorization-servers-idp',
    {},
    async (b) =>
      (await json(await fetch(`${b}/.well-known/oauth-protected-resource/mcp`)))
        .authorization_servers,
  ],
]

describe('seeded auth faults', () => {
  it.each(cases)('%s changes the observable behaviour', async (fault, options, probe) => {
    const config = authConfig({
      idpPort: idp.port,
      backendPort: backend.port,
      issuer: idp.issuer,
      ...options,
    })
    const healthy = await startTestGatehouse(config)
    const faulty = await startTestGatehouse(config, { faults: faultSet([fault]) })
    try {
      const good = await probe(healthy.url)
      const bad = await probe(faulty.url)
      expect(good).toBeDefined()
      expect(bad).not.toEqual(good)
    } finally {
      await healthy.stop('done')
      await faulty.stop('done')
    }
  })
})
