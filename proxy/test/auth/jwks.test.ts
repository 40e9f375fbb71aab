/**
 * KeySet (proxy/src/auth/jwks.ts) against a real key endpoint: the unknown-kid refetch budget,
 * last-known-good keys while the endpoint fails, recovery, and key sets that must be refused.
 */
import { Writable } from 'node:stream'
import { exportJWK, generateKeyPair, jwtVerify } from 'jose'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { KeySet, KID_REFETCH_BURST, loadStaticJwks, parseJwks } from '../../src/auth/jwks.js'
import { BackendConfig } from '../../src/config/schema.js'
import { createUpstream, type Upstream } from '../../src/http/upstream.js'
import { createLogging } from '../../src/telemetry/logging.js'
import { TaskRegistry } from '../../src/telemetry/tasks.js'
import { startTinyIdp, type TinyIdp } from './tiny-idp.js'

const KEYS_PATH = '/oauth2/default/v1/keys'

let idp: TinyIdp
let upstream: Upstream
let logs: Array<Record<string, unknown>>
let keys: KeySet

function logger() {
  logs = []
  const destination = new Writable({
    write(chunk, _enc, cb) {
      for (const line of String(chunk).split('\n')) if (line) logs.push(JSON.parse(line))
      cb()
    },
  })
  return createLogging({ filter: 'info', destination }).logger('proxy::auth::jwks')
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
  upstream = createUpstream(BackendConfig.parse({ static: { host: '127.0.0.1', port: idp.port } }))
})
afterEach(async () => {
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
    expect(String(logs.find((l) => l.level === 'error')?.msg)).toContain(
      'JWKS keyset is not available',
    )
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

describe('parseJwks', () => {
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
