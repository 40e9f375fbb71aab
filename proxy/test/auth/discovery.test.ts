import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { DiscoveryCache } from '../../src/auth/discovery.js'
import { BackendConfigSchema } from '../../src/config/schema.js'
import { createUpstream, type Upstream } from '../../src/http/upstream.js'
import { TaskRegistry } from '../../src/telemetry/tasks.js'
import { capturedLogging } from '../helpers.js'
import { startTinyIdp, type TinyIdp } from './tiny-idp.js'

const DISCOVERY_PATH = '/oauth2/default/.well-known/openid-configuration'

let idp: TinyIdp
let upstream: Upstream
let logs: Array<Record<string, unknown>>

function logger() {
  logs = []
  return capturedLogging(logs, 'info').logger('proxy::auth::mcp')
}

/** A cache of the tiny IdP's discovery document, through the backend unless `direct`. */
function cache(
  options: { direct?: boolean; issuer?: string; tasks?: TaskRegistry } = {},
): DiscoveryCache {
  return new DiscoveryCache(
    options.issuer ?? idp.issuer,
    options.direct ? undefined : upstream,
    logger(),
    options.tasks ?? new TaskRegistry(),
  )
}

/** The tiny IdP's normal document, as JSON text. */
function documentText(extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    issuer: idp.issuer,
    authorization_endpoint: `${idp.issuer}/v1/authorize`,
    token_endpoint: `${idp.issuer}/v1/token`,
    jwks_uri: `${idp.issuer}/v1/keys`,
    ...extra,
  })
}

const fetches = () => idp.hits.filter((h) => h.path === DISCOVERY_PATH).length

beforeEach(async () => {
  idp = await startTinyIdp()
  upstream = createUpstream(
    BackendConfigSchema.parse({ static: { host: '127.0.0.1', port: idp.port } }),
  )
})
afterEach(async () => {
  vi.useRealTimers()
  await upstream.close()
  await idp.stop()
})

describe('DiscoveryCache: where it asks and what it returns', () => {
  it('fetches <issuer path>/.well-known/openid-configuration through the JWKS backend', async () => {
    const d = cache()
    expect(d.url).toBe(`${idp.orgUrl}${DISCOVERY_PATH}`)
    const r = await d.get()
    expect(r).toMatchObject({
      ok: true,
      stale: false,
      document: { issuer: idp.issuer, jwks_uri: `${idp.issuer}/v1/keys` },
    })
    expect(idp.hits.map((h) => h.path)).toEqual([DISCOVERY_PATH])
    // Through the backend's pool (requestUpstream), which asks for JSON.
    expect(idp.hits[0]?.accept).toBe('application/json')
  })

  it('shows the fetch in flight as a discovery_fetch task with the issuer and URL', async () => {
    const tasks = new TaskRegistry()
    const d = cache({ tasks })
    const pending = d.get()
    expect(tasks.tree()).toEqual([
      expect.objectContaining({
        kind: 'background',
        name: 'discovery_fetch',
        detail: { issuer: idp.issuer, url: d.url, reason: 'on demand' },
      }),
    ])
    await pending
    expect(tasks.tree()).toEqual([])
  })

  it('drops a trailing slash of the issuer path before appending the well-known suffix', async () => {
    const issuer = `${idp.issuer}/`
    idp.discoveryDocument({ issuer })
    const d = cache({ issuer })
    expect(d.url).toBe(`${idp.orgUrl}${DISCOVERY_PATH}`)
    expect(await d.get()).toMatchObject({ ok: true, document: { issuer } })
    expect(idp.hits.map((h) => h.path)).toEqual([DISCOVERY_PATH])
  })

  it('fetches the issuer URL itself when the provider has no backend', async () => {
    const d = cache({ direct: true })
    expect(d.url).toBe(`${idp.issuer}/.well-known/openid-configuration`)
    expect(await d.get()).toMatchObject({ ok: true, document: { issuer: idp.issuer } })
    expect(fetches()).toBe(1)
    // Through the same upstream path as the key set (requestUpstream), not the global fetch.
    expect(idp.hits[0]?.accept).toBe('application/json')
    await d.close()
  })

  it('serves the stated document (providers[].endpoints) as it is, never fetching one', async () => {
    const stated = { issuer: idp.issuer, jwks_uri: `${idp.issuer}/v1/keys` }
    const d = new DiscoveryCache(idp.issuer, undefined, logger(), new TaskRegistry(), { stated })
    idp.discoveryDown(true)
    expect(await d.get()).toEqual({ ok: true, document: stated, stale: false })
    expect(d.problem).toBeUndefined()
    expect(d.url).toBe('the configured providers[].endpoints')
    expect(fetches()).toBe(0)
    await d.close()
  })

  it('serves the cached document without asking again within its lifetime', async () => {
    const d = cache()
    await d.get()
    await d.get()
    expect(await d.get()).toMatchObject({ ok: true, stale: false })
    expect(fetches()).toBe(1)
  })
})

describe('DiscoveryCache: what it refuses, and says why', () => {
  const cases: Array<[string, () => void, () => string]> = [
    ['a 500', () => idp.discoveryDown(true), () => 'HTTP 500'],
    [
      'a 200 that is not a discovery document',
      () => idp.discoveryDocument({ jwks_uri: 'x' }),
      () =>
        'not an OpenID Connect discovery document (issuer: Invalid input: expected string, received undefined)',
    ],
    [
      'a document naming another issuer (OpenID Connect Discovery §4.3)',
      () => idp.discoveryDocument({ issuer: 'https://evil.example' }),
      () =>
        `the document names issuer https://evil.example, expected ${idp.issuer} (compared exactly, trailing slash included): set providers[].issuer to the document's issuer`,
    ],
  ]
  for (const [what, setup, cause] of cases) {
    for (const direct of [false, true]) {
      it(`${what}${direct ? ', fetched directly' : ''}: ok false with the URL and the cause`, async () => {
        setup()
        const d = cache({ direct })
        expect(await d.get()).toEqual({ ok: false, url: d.url, cause: cause() })
      })
    }
  }

  for (const direct of [false, true]) {
    it(`a body over 1 MiB${direct ? ', fetched directly' : ''}: refused unread, with the cap as the cause`, async () => {
      idp.discoveryAnswer({ body: documentText({ padding: 'x'.repeat(1024 * 1024) }) })
      const d = cache({ direct })
      expect(await d.get()).toEqual({
        ok: false,
        url: d.url,
        cause: 'response larger than 1048576 bytes',
      })
      await d.close()
    })
  }

  it('a document fetched at its own URL naming an http endpoint on a non-loopback host: refused, naming the member', async () => {
    idp.discoveryDocument({
      issuer: idp.issuer,
      token_endpoint: 'http://idp.example.com/token',
      jwks_uri: `${idp.issuer}/v1/keys`,
    })
    const d = cache({ direct: true })
    const r = await d.get()
    expect(r).toMatchObject({ ok: false })
    if (!r.ok)
      expect(r.cause).toMatch(/^its token_endpoint uses http on idp\.example\.com, .*use https$/)
    expect(d.problem).toMatch(/token_endpoint/)
    await d.close()
  })

  it("a document fetched through the okta preset's JWKS backend: its endpoints' hosts are the backend's, kept as the seed's", async () => {
    idp.discoveryDocument({ issuer: idp.issuer, token_endpoint: 'http://idp.example.com/token' })
    expect(await cache().get()).toMatchObject({ ok: true })
  })

  it('a body that is not JSON: the parser says so', async () => {
    idp.discoveryAnswer({ body: '<html>' })
    const r = await cache().get()
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.cause).toMatch(/JSON/)
  })

  it('warns with the issuer, URL and cause, and that nothing is served yet', async () => {
    idp.discoveryDown(true)
    const d = cache()
    await d.get()
    expect(logs).toEqual([
      expect.objectContaining({
        level: 'warn',
        code: 'GW_ERR_DISCOVERY_UNAVAILABLE',
        issuer: idp.issuer,
        url: `${idp.orgUrl}${DISCOVERY_PATH}`,
        cause: 'HTTP 500',
        serving: 'nothing',
      }),
    ])
    expect(d.dump()).toEqual({
      url: `${idp.orgUrl}${DISCOVERY_PATH}`,
      cached: false,
      lastError: 'HTTP 500',
    })
  })
})

describe('DiscoveryCache: lifetime, backoff and last-known-good', () => {
  const MINUTE = 60_000
  let t0: number
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] })
    t0 = Date.now()
  })
  /** Asks at `t0 + ms` and returns how many fetches that caused. */
  async function askAt(d: DiscoveryCache, ms: number): Promise<number> {
    vi.setSystemTime(t0 + ms)
    const before = fetches()
    await d.get()
    return fetches() - before
  }

  it('keeps a document 5 minutes when the IdP sends no max-age', async () => {
    const d = cache()
    expect(await askAt(d, 0)).toBe(1)
    expect(await askAt(d, 5 * MINUTE - 1)).toBe(0)
    expect(await askAt(d, 5 * MINUTE)).toBe(1)
  })

  for (const direct of [false, true]) {
    it(`keeps a document for the IdP's max-age${direct ? ' (fetched directly)' : ''}`, async () => {
      idp.discoveryAnswer({
        headers: { 'cache-control': 'public, max-age=120' },
        body: documentText(),
      })
      const d = cache({ direct })
      expect(await askAt(d, 0)).toBe(1)
      expect(await askAt(d, 2 * MINUTE - 1)).toBe(0)
      expect(await askAt(d, 2 * MINUTE)).toBe(1)
    })
  }

  it('keeps a document at least 1 minute and at most 24 hours, whatever max-age says', async () => {
    idp.discoveryAnswer({ headers: { 'cache-control': 'max-age=1' }, body: documentText() })
    const short = cache()
    expect(await askAt(short, 0)).toBe(1)
    expect(await askAt(short, MINUTE - 1)).toBe(0)
    expect(await askAt(short, MINUTE)).toBe(1)

    idp.discoveryAnswer({ headers: { 'cache-control': 'max-age=31536000' }, body: documentText() })
    const long = cache()
    t0 = Date.now()
    expect(await askAt(long, 0)).toBe(1)
    expect(await askAt(long, 24 * 60 * MINUTE - 1)).toBe(0)
    expect(await askAt(long, 24 * 60 * MINUTE)).toBe(1)
  })

  it('after a failure, answers from the cache for 2 s before asking again, every time', async () => {
    idp.discoveryDown(true)
    const d = cache()
    expect(await askAt(d, 0)).toBe(1)
    expect(await askAt(d, 1999)).toBe(0)
    expect(await askAt(d, 2000)).toBe(1)
    // The wait does not grow: the next try is 2 s later again.
    expect(await askAt(d, 3999)).toBe(0)
    expect(await askAt(d, 4000)).toBe(1)
    idp.discoveryDown(false)
    expect(await askAt(d, 6000)).toBe(1)
    expect(await d.get()).toMatchObject({ ok: true, stale: false })
  })

  it('serves the last-known-good document, marked stale, when a refresh fails, and warns so', async () => {
    const d = cache()
    await askAt(d, 0)
    idp.discoveryDown(true)
    vi.setSystemTime(t0 + 5 * MINUTE)
    const r = await d.get()
    expect(r).toMatchObject({ ok: true, stale: true, document: { issuer: idp.issuer } })
    expect(fetches()).toBe(2)
    expect(logs).toEqual([
      expect.objectContaining({
        level: 'warn',
        code: 'GW_ERR_DISCOVERY_UNAVAILABLE',
        cause: 'HTTP 500',
        serving: 'last-known-good',
      }),
    ])
    expect(d.dump()).toEqual({
      url: `${idp.orgUrl}${DISCOVERY_PATH}`,
      cached: true,
      lastError: 'HTTP 500',
    })
  })

  it('dumps a cached document without an error', async () => {
    const d = cache()
    expect(d.dump()).toEqual({
      url: `${idp.orgUrl}${DISCOVERY_PATH}`,
      cached: false,
      lastError: null,
    })
    await d.get()
    expect(d.dump()).toEqual({
      url: `${idp.orgUrl}${DISCOVERY_PATH}`,
      cached: true,
      lastError: null,
    })
  })
})
