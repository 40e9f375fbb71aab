/**
 * KeySet (proxy/src/auth/jwks.ts) against a real key endpoint: the unknown-kid refetch budget,
 * last-known-good keys while the endpoint fails, recovery, and key sets that must be refused.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { exportJWK, generateKeyPair, jwtVerify } from 'jose'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  KeySet,
  KID_REFETCH_BURST,
  KID_REFETCH_WINDOW_MS,
  loadStaticJwks,
  parseJwks,
} from '../../src/auth/jwks.js'
import { BackendConfigSchema } from '../../src/config/schema.js'
import { createUpstream, type Upstream } from '../../src/http/upstream.js'
import { TaskRegistry } from '../../src/telemetry/tasks.js'
import { capturedLogging } from '../helpers.js'
import { startTinyIdp, type TinyIdp } from './tiny-idp.js'

const KEYS_PATH = '/oauth2/default/v1/keys'

let idp: TinyIdp
let upstream: Upstream
let logs: Array<Record<string, unknown>>
let keys: KeySet

function logger() {
  logs = []
  return capturedLogging(logs, 'info').logger('proxy::auth::jwks')
}

function keySet(path = KEYS_PATH): KeySet {
  return new KeySet(
    idp.issuer,
    { kind: 'remote', upstream, path, refreshMs: 300_000 },
    logger(),
    new TaskRegistry(),
  )
}

const keyFetches = () => idp.hits.filter((h) => h.path === KEYS_PATH).length

beforeEach(async () => {
  idp = await startTinyIdp()
  upstream = createUpstream(
    BackendConfigSchema.parse({ static: { host: '127.0.0.1', port: idp.port } }),
  )
})
afterEach(async () => {
  vi.useRealTimers()
  keys?.stop()
  await upstream.close()
  await idp.stop()
})

describe('KeySet', () => {
  it('loads the remote key set at start and verifies a token with it', async () => {
    keys = keySet()
    expect(keys.available).toBe(false)
    await keys.start()
    expect(keys.available).toBe(true)
    expect(keys.kids).toEqual(['key-1'])
    const getKey = keys.getKey
    if (!getKey) throw new Error('no key resolver')
    const { payload } = await jwtVerify(await idp.sign(), getKey)
    expect(payload.sub).toBe('alice@example.com')
  })

  it('picks up a rotated key when a token names an unknown kid', async () => {
    keys = keySet()
    await keys.start()
    const kid = await idp.rotate()
    expect(await keys.refetchForUnknownKid()).toBe(true)
    expect(keys.kids).toContain(kid)
  })

  it(`refetches for unknown kids at most ${KID_REFETCH_BURST} times in the window`, async () => {
    keys = keySet()
    await keys.start()
    const before = keyFetches()
    const answers: boolean[] = []
    for (let i = 0; i < KID_REFETCH_BURST + 3; i++) answers.push(await keys.refetchForUnknownKid())
    expect(keyFetches() - before).toBe(KID_REFETCH_BURST)
    expect(answers.slice(KID_REFETCH_BURST)).toEqual([false, false, false])
  })

  it('shares one fetch among concurrent unknown-kid refetches, spending one unit of the budget', async () => {
    keys = keySet()
    await keys.start()
    const before = keyFetches()
    await Promise.all(Array.from({ length: 20 }, () => keys.refetchForUnknownKid()))
    expect(keyFetches() - before).toBe(1)
    // The budget is not spent by the shared ones: two more refetches still go out.
    await keys.refetchForUnknownKid()
    await keys.refetchForUnknownKid()
    expect(keyFetches() - before).toBe(3)
  })

  it('keeps the last-known-good keys when a refresh fails, and says why', async () => {
    keys = keySet()
    await keys.start()
    idp.keysDown(true)
    const before = keyFetches()
    expect(await keys.refresh('test')).toBe(false)
    expect(keyFetches()).toBe(before + 1) // it really asked the failing endpoint
    expect(keys.available).toBe(true)
    expect(keys.kids).toEqual(['key-1'])
    expect(keys.lastError).toBe('HTTP 500')
    expect(keys.dump()).toMatchObject({ available: true, kids: ['key-1'], lastError: 'HTTP 500' })
    const getKey = keys.getKey
    if (!getKey) throw new Error('no key resolver')
    await expect(jwtVerify(await idp.sign(), getKey)).resolves.toBeDefined()
    expect(
      logs.some((l) => l.msg === 'JWKS refresh failed; keeping the last-known-good keys'),
    ).toBe(true)
  })

  it('is unavailable when the first fetch fails, and recovers on the next successful one', async () => {
    idp.keysDown(true)
    keys = keySet()
    let changes = 0
    keys.onChange(() => changes++)
    await keys.start()
    expect(keys.available).toBe(false)
    expect(keys.getKey).toBeUndefined()
    expect(logs.find((l) => l.level === 'error')?.code).toBe('GW_ERR_JWKS_UNAVAILABLE')
    idp.keysDown(false)
    expect(await keys.refresh('test')).toBe(true)
    expect(keys.available).toBe(true)
    expect(changes).toBe(1)
  })

  it('is unavailable behind a wrong jwksPath (the seed: "a wrong path makes key fetch fail")', async () => {
    keys = keySet('/.well-known/jwks.json')
    await keys.start()
    expect(keys.available).toBe(false)
    expect(keys.lastError).toBe('HTTP 404')
  })

  it('never refetches a static key set', async () => {
    keys = new KeySet(
      idp.issuer,
      { kind: 'static', jwks: idp.publicJwks() as never, origin: 'inline' },
      logger(),
      new TaskRegistry(),
    )
    expect(keys.available).toBe(true)
    expect(await keys.refetchForUnknownKid()).toBe(false)
    expect(keyFetches()).toBe(0)
  })
})

describe('KeySet: what it tells', () => {
  const infos = () => logs.filter((l) => l.level === 'info').map((l) => l.msg)

  it('logs "available" once, "changed" with the reason and kids on a rotation, nothing for the same keys; listeners hear each change only', async () => {
    keys = keySet()
    let changes = 0
    keys.onChange(() => changes++)
    await keys.start()
    expect(infos()).toEqual(['JWKS keyset is available'])
    expect(logs[0]).toMatchObject({
      issuer: idp.issuer,
      url: `${idp.orgUrl}${KEYS_PATH}`,
      kids: ['key-1'],
    })
    expect(changes).toBe(1)

    expect(await keys.refresh('interval')).toBe(true)
    expect(infos()).toEqual(['JWKS keyset is available'])
    expect(changes).toBe(1)

    await idp.rotate()
    expect(await keys.refresh('unknown kid')).toBe(true)
    expect(infos()).toEqual(['JWKS keyset is available', 'JWKS keyset changed'])
    expect(logs.at(-1)).toMatchObject({
      issuer: idp.issuer,
      kids: ['key-1', 'key-2'],
      reason: 'unknown kid',
    })
    expect(changes).toBe(2)
    expect(keys.kids).toEqual(['key-1', 'key-2'])
  })

  it('logs the unavailable key set as GW_ERR_JWKS_UNAVAILABLE with the cause and the retry delay', async () => {
    idp.keysDown(true)
    keys = keySet()
    await keys.start()
    const error = logs.find((l) => l.level === 'error')
    expect(error).toMatchObject({
      code: 'GW_ERR_JWKS_UNAVAILABLE',
      issuer: idp.issuer,
      url: `${idp.orgUrl}${KEYS_PATH}`,
      cause: 'HTTP 500',
      retryInMs: 1000,
    })
    expect(error?.msg).toBe(
      `JWKS keyset is not available for issuer ${idp.issuer} at ${idp.orgUrl}${KEYS_PATH}: HTTP 500; requests on this policy's routes are rejected with 401 until it is`,
    )
    expect(logs.some((l) => l.level === 'warn')).toBe(false)
  })

  it('warns with the cause and the reason when a refresh fails while keys are held', async () => {
    keys = keySet()
    await keys.start()
    idp.keysDown(true)
    await keys.refresh('interval')
    expect(logs.find((l) => l.level === 'warn')).toMatchObject({
      msg: 'JWKS refresh failed; keeping the last-known-good keys',
      issuer: idp.issuer,
      url: `${idp.orgUrl}${KEYS_PATH}`,
      cause: 'HTTP 500',
      reason: 'interval',
    })
    expect(logs.some((l) => l.level === 'error')).toBe(false)
  })

  it('publishes every refresh, good or failed, on the gatehouse:jwks:refresh channel', async () => {
    const events: unknown[] = []
    const listener = (message: unknown) => events.push(message)
    subscribe('gatehouse:jwks:refresh', listener)
    try {
      keys = keySet()
      await keys.start()
      idp.keysDown(true)
      await keys.refresh('interval')
    } finally {
      unsubscribe('gatehouse:jwks:refresh', listener)
    }
    expect(events).toEqual([
      { issuer: idp.issuer, reason: 'start', ok: true },
      { issuer: idp.issuer, reason: 'interval', ok: false },
    ])
  })

  it('dumps where the keys come from, their ids, the last fetch and the last error', async () => {
    idp.keysDown(true)
    keys = keySet()
    await keys.start()
    expect(keys.dump()).toEqual({
      source: 'remote',
      url: `${idp.orgUrl}${KEYS_PATH}`,
      available: false,
      kids: [],
      lastFetchAt: null,
      lastError: 'HTTP 500',
    })
    idp.keysDown(false)
    await keys.refresh('test')
    const dump = keys.dump()
    expect(dump).toMatchObject({ available: true, kids: ['key-1'], lastError: null })
    expect(new Date(String(dump.lastFetchAt)).getTime()).toBeGreaterThan(0)
    expect(String(dump.lastFetchAt)).toMatch(/^\d{4}-\d\d-\d\dT/)

    const inline = new KeySet(
      idp.issuer,
      {
        kind: 'static',
        jwks: { keys: [{ kty: 'OKP', crv: 'Ed25519', x: 'AA' }] },
        origin: 'inline',
      },
      logger(),
      new TaskRegistry(),
    )
    expect(inline.dump()).toEqual({
      source: 'static',
      url: 'inline',
      available: true,
      kids: ['(no kid)'],
      lastFetchAt: null,
      lastError: null,
    })
  })
})

describe('KeySet: what it refuses from the key endpoint', () => {
  const answers: Array<[string, Parameters<TinyIdp['keysAnswer']>[0], RegExp | string]> = [
    ['a body that is not JSON', { body: 'not json' }, /JSON/],
    ['a document without keys', { body: '{"kid":"x"}' }, 'an object with a "keys" array'],
    [
      'a key set of symmetric keys only',
      { body: '{"keys":[{"kty":"oct","k":"c2VjcmV0"}]}' },
      'the key set has no usable public key',
    ],
    ['a 204', { status: 204, body: '' }, 'HTTP 204'],
  ]
  for (const [what, answer, cause] of answers) {
    it(`stays unavailable on ${what}, and says why`, async () => {
      idp.keysAnswer(answer)
      keys = keySet()
      await keys.start()
      expect(keys.available).toBe(false)
      expect(keys.lastError).toMatch(cause)
    })
  }

  it('keeps its kid refetch budget per window: spent at the window end, back just after', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const t0 = Date.now()
    keys = keySet()
    await keys.start()
    for (let i = 0; i < KID_REFETCH_BURST; i++) expect(await keys.refetchForUnknownKid()).toBe(true)
    expect(await keys.refetchForUnknownKid()).toBe(false)
    vi.setSystemTime(t0 + KID_REFETCH_WINDOW_MS)
    expect(await keys.refetchForUnknownKid()).toBe(false)
    vi.setSystemTime(t0 + KID_REFETCH_WINDOW_MS + 1)
    const before = keyFetches()
    expect(await keys.refetchForUnknownKid()).toBe(true)
    expect(keyFetches()).toBe(before + 1)
  })

  it('neither fetches nor refreshes a static key set', async () => {
    keys = new KeySet(
      idp.issuer,
      { kind: 'static', jwks: idp.publicJwks() as never, origin: 'file /etc/jwks.json' },
      logger(),
      new TaskRegistry(),
    )
    await keys.start()
    expect(await keys.refresh('test')).toBe(false)
    expect(keyFetches()).toBe(0)
    expect(keys.url).toBe('file /etc/jwks.json')
    expect(keys.kids).toEqual(['key-1'])
  })
})

describe('parseJwks', () => {
  it('reads a JSON text as well as a parsed value', () => {
    expect(parseJwks('{"keys":[{"kty":"EC","kid":"a"}]}')).toEqual({
      keys: [{ kty: 'EC', kid: 'a' }],
    })
  })

  it('refuses what is not an object with a keys array', () => {
    for (const value of [null, 42, 'null', [], { keys: {} }]) {
      expect(() => parseJwks(value)).toThrow(
        'expected a JWKS document: an object with a "keys" array',
      )
    }
  })

  it('strips every private member of an RSA key (RFC 7518 §6.3.2) and skips entries that are no keys', async () => {
    const { privateKey } = await generateKeyPair('RS256', { extractable: true })
    const priv = { ...(await exportJWK(privateKey)), kid: 'rsa', oth: [], k: 'x' }
    for (const m of ['d', 'p', 'q', 'dp', 'dq', 'qi']) expect(priv).toHaveProperty(m)
    const jwks = parseJwks({ keys: [null, 'junk', priv] })
    expect(jwks.keys).toHaveLength(1)
    expect(Object.keys(jwks.keys[0] ?? {}).sort()).toEqual(['e', 'kid', 'kty', 'n'])
  })

  it('loads a JWKS file, and names the file when its content is wrong', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-jwks-'))
    const good = join(dir, 'good.json')
    writeFileSync(good, '{"keys":[{"kty":"EC","kid":"f"}]}')
    expect(loadStaticJwks({ file: good })).toEqual({ keys: [{ kty: 'EC', kid: 'f' }] })
    const bad = join(dir, 'bad.json')
    writeFileSync(bad, '{"key":[]}')
    expect(() => loadStaticJwks({ file: bad })).toThrow(
      `JWKS file ${bad}: expected a JWKS document: an object with a "keys" array`,
    )
    expect(loadStaticJwks({ inline: { keys: [] } })).toEqual({ keys: [] })
  })

  it('drops symmetric keys and strips private members', async () => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true })
    const priv = { ...(await exportJWK(privateKey)), kid: 'ec' }
    const jwks = parseJwks({ keys: [priv, { kty: 'oct', k: 'c2VjcmV0', kid: 'hmac' }] })
    expect(jwks.keys.map((k) => k.kid)).toEqual(['ec'])
    expect(jwks.keys[0]).not.toHaveProperty('d')
  })

  it('refuses a document without a keys array', () => {
    expect(() => parseJwks({ key: [] })).toThrow('an object with a "keys" array')
    expect(() => loadStaticJwks({ file: '/nonexistent/jwks.json' })).toThrow(
      'cannot read JWKS file /nonexistent/jwks.json',
    )
  })
})
