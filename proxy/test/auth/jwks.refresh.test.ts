/**
 * KeySet (proxy/src/auth/jwks.ts): when a fetched key set counts as changed. A refetch that
 * brings the same key ids logs nothing and keeps the verifier's cached verdicts; one that adds
 * or withdraws a key logs "JWKS keyset changed" with the new ids and tells the listeners.
 */
import { Writable } from 'node:stream'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { KeySet } from '../../src/auth/jwks.js'
import { BackendConfigSchema } from '../../src/config/schema.js'
import { createUpstream, type Upstream } from '../../src/http/upstream.js'
import { createLogging } from '../../src/telemetry/logging.js'
import { TaskRegistry } from '../../src/telemetry/tasks.js'
import { capturedLogging } from '../helpers.js'
import { startTinyIdp, type TinyIdp } from './tiny-idp.js'

let idp: TinyIdp
let upstream: Upstream
let keys: KeySet
let logs: Array<Record<string, unknown>>

beforeEach(async () => {
  idp = await startTinyIdp()
  upstream = createUpstream(
    BackendConfigSchema.parse({ static: { host: '127.0.0.1', port: idp.port } }),
  )
  logs = []
  keys = new KeySet(
    idp.issuer,
    { kind: 'remote', upstream, path: '/oauth2/default/v1/keys', refreshMs: 300_000 },
    capturedLogging(logs, 'info').logger('proxy::auth::jwks'),
    new TaskRegistry(),
  )
})
afterEach(async () => {
  vi.useRealTimers()
  keys.stop()
  await upstream.close()
  await idp.stop()
})

const infos = () =>
  logs.filter((l) => l.level === 'info').map((l) => ({ msg: l.msg, kids: l.kids }))

describe('KeySet: what counts as a change', () => {
  it('two keys fetched again unchanged: no log line, no listener call', async () => {
    await idp.rotate()
    let changes = 0
    keys.onChange(() => changes++)
    await keys.start()
    expect(changes).toBe(1)
    expect(await keys.refresh('interval')).toBe(true)
    expect(await keys.refresh('interval')).toBe(true)
    expect(infos()).toEqual([{ msg: 'JWKS keyset is available', kids: ['key-1', 'key-2'] }])
    expect(changes).toBe(1)
  })

  it('a key withdrawn and another added (same count): changed, with the new ids', async () => {
    let changes = 0
    keys.onChange(() => changes++)
    await keys.start()
    await idp.rotate(true)
    expect(await keys.refresh('interval')).toBe(true)
    expect(infos()).toEqual([
      { msg: 'JWKS keyset is available', kids: ['key-1'] },
      { msg: 'JWKS keyset changed', kids: ['key-2'] },
    ])
    expect(changes).toBe(2)
    expect(keys.kids).toEqual(['key-2'])
  })

  it('a key added to two: changed; the same three again: nothing more', async () => {
    await idp.rotate()
    let changes = 0
    keys.onChange(() => changes++)
    await keys.start()
    await idp.rotate()
    await keys.refresh('unknown kid')
    await keys.refresh('interval')
    expect(infos()).toEqual([
      { msg: 'JWKS keyset is available', kids: ['key-1', 'key-2'] },
      { msg: 'JWKS keyset changed', kids: ['key-1', 'key-2', 'key-3'] },
    ])
    expect(changes).toBe(2)
  })

  it('every listener hears a change', async () => {
    const heard: string[] = []
    keys.onChange(() => heard.push('a'))
    keys.onChange(() => heard.push('b'))
    await keys.start()
    expect(heard).toEqual(['a', 'b'])
  })
})

describe('KeySet: what else it tells', () => {
  it('says a refetch for an unknown kid was the reason of the change', async () => {
    await keys.start()
    await idp.rotate()
    expect(await keys.refetchForUnknownKid()).toBe(true)
    expect(logs.at(-1)).toMatchObject({ msg: 'JWKS keyset changed', reason: 'unknown kid' })
  })

  it('shows a fetch in flight as a jwks_fetch task with the issuer, URL and reason', async () => {
    const tasks = new TaskRegistry()
    const ks = new KeySet(
      idp.issuer,
      { kind: 'remote', upstream, path: '/oauth2/default/v1/keys', refreshMs: 300_000 },
      createLogging({ filter: 'error' }).logger('proxy::auth::jwks'),
      tasks,
    )
    const pending = ks.refresh('interval')
    expect(tasks.tree()).toEqual([
      expect.objectContaining({
        kind: 'background',
        name: 'jwks_fetch',
        detail: { issuer: idp.issuer, url: ks.url, reason: 'interval' },
      }),
    ])
    expect(await pending).toBe(true)
    expect(tasks.tree()).toEqual([])
    ks.stop()
  })

  it('a static key set asked to refresh does nothing: no fetch, no log line, no error', async () => {
    const ks = new KeySet(
      idp.issuer,
      { kind: 'static', jwks: idp.publicJwks() as never, origin: 'inline' },
      createLogging({
        filter: 'info',
        destination: new Writable({
          write(chunk, _enc, cb) {
            logs.push(JSON.parse(String(chunk)))
            cb()
          },
        }),
      }).logger('proxy::auth::jwks'),
      new TaskRegistry(),
    )
    expect(await ks.refresh('test')).toBe(false)
    expect(await ks.refetchForUnknownKid()).toBe(false)
    expect(logs).toEqual([])
    expect(ks.lastError).toBeUndefined()
    expect(idp.hits).toEqual([])
  })
})

/**
 * A task registry that counts the refreshes a key set starts: a refresh registers its background
 * task synchronously as it starts (refreshing-document.ts), so a refresh the fake timers fired has
 * been counted by the time they return, and ends it once the fetch is done.
 */
class CountingTasks extends TaskRegistry {
  started = 0
  readonly #ended: Promise<void>[] = []
  override background(name: string, detail?: Record<string, unknown>): () => void {
    this.started++
    const done = super.background(name, detail)
    let end = () => {}
    this.#ended.push(new Promise<void>((r) => (end = r)))
    return () => {
      done()
      end()
    }
  }
  /** Resolves once every refresh started so far has ended (and scheduled the next one). */
  async settled(): Promise<void> {
    await Promise.all(this.#ended)
  }
}

describe('KeySet: the refresh loop', () => {
  const HOUR = 3_600_000
  const fetches = () => idp.hits.filter((h) => h.path === '/oauth2/default/v1/keys').length
  let tasks: CountingTasks
  /**
   * Moves the (fake) timers on by `ms`; then `expected` refreshes have started (no waiting: a
   * refresh the timers fired has started when they return), and once they ended the IdP has seen
   * as many key fetches.
   */
  async function after(ms: number, expected: number): Promise<void> {
    await vi.advanceTimersByTimeAsync(ms)
    expect(tasks.started).toBe(expected)
    await tasks.settled()
    expect(fetches()).toBe(expected)
  }
  function remote(refreshMs: number): KeySet {
    tasks = new CountingTasks()
    return new KeySet(
      idp.issuer,
      { kind: 'remote', upstream, path: '/oauth2/default/v1/keys', refreshMs },
      createLogging({ filter: 'error' }).logger('proxy::auth::jwks'),
      tasks,
    )
  }

  it('fetches again after refreshMs, and never after stop', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const ks = remote(120_000)
    await ks.start()
    expect(fetches()).toBe(1)
    await after(119_999, 1)
    await after(1, 2)
    await after(120_000, 3)
    ks.stop()
    await after(24 * HOUR, 3)
  })

  it('shared by two holders: keeps refreshing after one stops, stops after both', async () => {
    // Regression for shared key sets (auth/shared-verification.ts): a policy that stops must not
    // stop the refresh loop of a key set another policy still verifies with.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const ks = remote(120_000)
    ks.share()
    await ks.start()
    ks.stop()
    await after(120_000, 2)
    ks.stop()
    await after(24 * HOUR, 2)
  })

  it("keeps keys at most 24 hours, whatever the IdP's max-age says", async () => {
    idp.keysAnswer({
      headers: { 'cache-control': 'max-age=31536000', 'content-type': 'application/json' },
      body: JSON.stringify(idp.publicJwks()),
    })
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const ks = remote(120_000)
    await ks.start()
    await after(24 * HOUR - 1, 1)
    await after(1, 2)
    ks.stop()
  })
})
