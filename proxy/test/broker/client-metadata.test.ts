/**
 * Client ID Metadata Documents: the document checks, the cache and the fetch bounds, with a real
 * local server playing the client's web host.
 */
import { once } from 'node:events'
import { createServer, type RequestListener, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import {
  ClientMetadataDocuments,
  type ClientMetadataOptions,
  clientIdUrlProblem,
  MAX_CONCURRENT_FETCHES,
} from '../../src/broker/client-metadata.js'
import { Duration } from '../../src/config/duration.js'
import { RequestError } from '../../src/errors.js'
import { MemoryStore } from '../../src/store/memory.js'
import { pkce } from './browser.js'
import { authorizationUrl, startBrokerStack } from './stack.js'

const servers: Server[] = []
const stores: MemoryStore[] = []
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections()
    await new Promise((r) => s.close(r))
  }
  for (const s of stores.splice(0)) await s.close()
})

async function host(handler: (url: string) => RequestListener) {
  let hits = 0
  let base = ''
  const server = createServer((req, res) => {
    hits++
    handler(base)(req, res)
  })
  servers.push(server)
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return { base, hits: () => hits }
}

function documents(o: Partial<ClientMetadataOptions> = {}) {
  const store = new MemoryStore({ maxEntries: 100 })
  stores.push(store)
  const cimd = new ClientMetadataDocuments(
    {
      enabled: true,
      allowHttp: true,
      allowPrivateAddresses: true,
      maxBytes: 16_384,
      timeout: Duration.of('5s'),
      maxRedirects: 3,
      cacheTtl: Duration.of('5m'),
      ...o,
    },
    store,
  )
  return { cimd, store }
}

/** A host that serves a valid document for its own URL at /client.json. */
function validDocument(extra: Record<string, unknown> = {}) {
  return (base: string): RequestListener =>
    (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify({
          client_id: `${base}${req.url}`,
          client_name: 'Example MCP client',
          redirect_uris: ['http://127.0.0.1:6274/oauth/callback'],
          token_endpoint_auth_method: 'none',
          ...extra,
        }),
      )
    }
}

async function refusal(
  p: Promise<unknown>,
  code: RequestError['code'] = 'GW_ERR_CLIENT_METADATA',
): Promise<RequestError> {
  const err = await p.catch((e: unknown) => e)
  expect(err).toBeInstanceOf(RequestError)
  expect((err as RequestError).code).toBe(code)
  return err as RequestError
}

describe('ClientMetadataDocuments', () => {
  it('resolves a URL client id to the client its document describes', async () => {
    const h = await host(validDocument())
    const { cimd } = documents()
    const client = await cimd.resolve(`${h.base}/client.json`)
    expect(client).toEqual({
      clientId: `${h.base}/client.json`,
      clientName: 'Example MCP client',
      redirectUris: ['http://127.0.0.1:6274/oauth/callback'],
      tokenEndpointAuthMethod: 'none',
      source: 'metadata-document',
    })
  })

  it('serves a second lookup from the cache, and concurrent lookups from one fetch', async () => {
    const h = await host(validDocument())
    const { cimd } = documents()
    const url = `${h.base}/client.json`
    await Promise.all(Array.from({ length: 10 }, () => cimd.resolve(url)))
    await cimd.resolve(url)
    expect(h.hits()).toBe(1)
  })

  it('fetches again every time with cacheTtl 0s', async () => {
    const h = await host(validDocument())
    const { cimd } = documents({ cacheTtl: Duration.of('0s') })
    await cimd.resolve(`${h.base}/client.json`)
    await cimd.resolve(`${h.base}/client.json`)
    expect(h.hits()).toBe(2)
  })

  it.each(['no-store', 'no-cache', 'max-age=0'])(
    'does not cache a document sent with Cache-Control: %s (draft §4.4)',
    async (control) => {
      const valid = validDocument()
      const h = await host((base) => (req, res) => {
        res.setHeader('cache-control', control)
        valid(base)(req, res)
      })
      const { cimd } = documents()
      await cimd.resolve(`${h.base}/client.json`)
      await cimd.resolve(`${h.base}/client.json`)
      expect(h.hits()).toBe(2)
    },
  )

  it('does not cache a refused document (draft §4.4: MUST NOT cache invalid documents)', async () => {
    const h = await host(validDocument({ redirect_uris: ['javascript:x'] }))
    const { cimd, store } = documents()
    await refusal(cimd.resolve(`${h.base}/client.json`))
    await refusal(cimd.resolve(`${h.base}/client.json`))
    expect(h.hits()).toBe(2)
    expect(store.size('cimd')).toBe(0)
  })

  it('refuses a document whose client_id is not its own URL', async () => {
    const h = await host(() => (_req, res) => {
      res.end(
        JSON.stringify({
          client_id: 'https://trusted.example/client.json',
          redirect_uris: ['https://evil.example/cb'],
        }),
      )
    })
    const err = await refusal(documents().cimd.resolve(`${h.base}/client.json`))
    expect(err.status).toBe(400)
    expect(err.error).toBe('invalid_client')
    expect(err.message).toMatch(
      /names client_id "https:\/\/trusted\.example\/client\.json"; it must be the document's own URL/,
    )
  })

  it.each([
    [
      { redirect_uris: ['javascript:alert(1)'] },
      /redirect_uris\[0\]: uses the scheme "javascript:"/,
    ],
    [{ redirect_uris: [] }, /redirect_uris: is empty/],
    [{ redirect_uris: ['https://app.example/cb#x'] }, /fragment/],
    [{ token_endpoint_auth_method: 'client_secret_basic' }, /only "none"/],
    [{ client_secret: 'abc' }, /contains a client_secret/],
  ])('refuses a document with %j', async (extra, reason) => {
    const h = await host(validDocument(extra))
    const err = await refusal(documents().cimd.resolve(`${h.base}/client.json`))
    expect(err.message).toMatch(reason)
  })

  it('refuses a document that is not JSON, or lacks redirect_uris', async () => {
    const notJson = await host(() => (_req, res) => res.end('<html>'))
    expect((await refusal(documents().cimd.resolve(`${notJson.base}/c`))).message).toMatch(
      /is not JSON/,
    )
    const h = await host(
      (base) => (req, res) => res.end(JSON.stringify({ client_id: `${base}${req.url}` })),
    )
    expect((await refusal(documents().cimd.resolve(`${h.base}/c`))).message).toMatch(
      /invalid: redirect_uris/,
    )
  })

  it('refuses a document at a private address with the default guards, without fetching it', async () => {
    const h = await host(validDocument())
    const err = await refusal(
      documents({ allowPrivateAddresses: false }).cimd.resolve(`${h.base}/client.json`),
    )
    expect(err.message).toMatch(/was not fetched: .*127\.0\.0\.1 is not a public address/)
    expect(h.hits()).toBe(0)
  })

  it('refuses an http client id unless allowHttp', async () => {
    const err = await refusal(
      documents({ allowHttp: false }).cimd.resolve('http://client.example/client.json'),
    )
    expect(err.message).toMatch(/is not an https URL/)
  })

  it('refuses a 10 MB document, a redirect loop and a slow answer', async () => {
    const big = await host(() => (_req, res) => {
      res.writeHead(200, { 'content-length': String(10 * 1024 * 1024) })
      res.write('{')
    })
    expect((await refusal(documents().cimd.resolve(`${big.base}/c`))).message).toMatch(
      /larger than 16384 bytes/,
    )
    const loop = await host(() => (req, res) => {
      res.writeHead(302, { location: req.url === '/a' ? '/b' : '/a' }).end()
    })
    expect((await refusal(documents().cimd.resolve(`${loop.base}/a`))).message).toMatch(
      /redirects in a loop/,
    )
    const slow = await host(() => () => {})
    expect(
      (await refusal(documents({ timeout: Duration.of('200ms') }).cimd.resolve(`${slow.base}/c`)))
        .message,
    ).toMatch(/did not answer in time/)
  })

  it(`answers 503 rather than start more than ${MAX_CONCURRENT_FETCHES} fetches at once`, async () => {
    const slow = await host(() => () => {})
    const { cimd } = documents({ timeout: Duration.of('30s') })
    const pending = Array.from({ length: MAX_CONCURRENT_FETCHES }, (_, i) =>
      cimd.resolve(`${slow.base}/c${i}`).catch(() => undefined),
    )
    const err = await refusal(cimd.resolve(`${slow.base}/one-more`), 'GW_ERR_CLIENT_METADATA_BUSY')
    expect(err.status).toBe(503)
    // Let every fetch reach the host, then cut them all.
    for (let i = 0; i < 500 && slow.hits() < MAX_CONCURRENT_FETCHES; i++) {
      await new Promise((r) => setTimeout(r, 10))
    }
    for (const s of servers) s.closeAllConnections()
    await Promise.all(pending)
    expect(slow.hits()).toBe(MAX_CONCURRENT_FETCHES)
  })
})

describe('clientIdUrlProblem', () => {
  it.each([
    ['https://app.example/client.json', undefined],
    ['https://app.example/', /has no path/],
    ['https://app.example', /has no path/],
    ['https://app.example/a#b', /fragment/],
    ['https://u@app.example/c', /userinfo/],
    ['https://app.example/a/../c', /dot segment/],
    ['https://APP.example/c', /normalised form/],
    ['http://app.example/c', /not an https URL/],
    ['not a url', /not a URL/],
  ])('judges %s', (url, problem) => {
    const got = clientIdUrlProblem(url, false)
    if (problem === undefined) expect(got).toBeUndefined()
    else expect(got).toMatch(problem)
  })
})

describe('Client ID Metadata Documents through the authorization endpoint', () => {
  async function authorize(stackUrl: string, issuer: string, clientId: string) {
    const { challenge } = pkce()
    const url = authorizationUrl(
      { authorizeUrl: stackUrl, issuer },
      {
        client_id: clientId,
        redirect_uri: 'http://127.0.0.1:6274/oauth/callback',
        state: 's',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      },
    )
    const res = await fetch(url, { redirect: 'manual' })
    return { status: res.status, text: await res.text(), location: res.headers.get('location') }
  }

  it('shows the consent page for a URL client id, with the name its document gives', async () => {
    const stack = await startBrokerStack({
      broker: { clientMetadataDocuments: { allowHttp: true, allowPrivateAddresses: true } },
    })
    try {
      const h = await host(validDocument())
      const page = await authorize(stack.authorizeUrl, stack.issuer, `${h.base}/client.json`)
      expect(page.status).toBe(200)
      expect(page.text).toContain('Example MCP client')
      expect(h.hits()).toBe(1)
    } finally {
      await stack.stop()
    }
  })

  it('refuses a document at a private address with a page naming the guard, never fetching it or redirecting', async () => {
    const stack = await startBrokerStack({
      broker: { clientMetadataDocuments: { allowHttp: true } },
    })
    try {
      const h = await host(validDocument())
      const page = await authorize(stack.authorizeUrl, stack.issuer, `${h.base}/client.json`)
      expect(page.status).toBe(400)
      expect(page.location).toBeNull()
      expect(page.text).toMatch(/127\.0\.0\.1 is not a public address/)
      expect(h.hits()).toBe(0)
    } finally {
      await stack.stop()
    }
  })
})
