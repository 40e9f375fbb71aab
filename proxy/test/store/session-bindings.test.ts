/**
 * MCP session bindings in a broker store (proxy/src/store/session-bindings.ts), over the memory
 * store with a fake clock: the first principal keeps a session, a full store refuses new bindings
 * without evicting, a principal past its quota loses only its own, idle sessions expire and used ones are renewed, no session id is stored in
 * clear. Across a real restart on SQLite and Redis: proxy/test/broker/store.restart.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { MemoryStore } from '../../src/store/memory.js'
import { StoredSessionBindings } from '../../src/store/session-bindings.js'

function setup(maxEntries = 100, maxPerPrincipal?: number) {
  const clock = { t: 1_000_000 }
  const store = new MemoryStore({ maxEntries, now: () => clock.t })
  const sessions = new StoredSessionBindings({
    store,
    idleMs: 1000,
    now: () => clock.t,
    ...(maxPerPrincipal ? { maxPerPrincipal } : {}),
  })
  return { clock, store, sessions }
}

describe('StoredSessionBindings', () => {
  it('binds a session to its first principal and never moves it, even when two bind at once', async () => {
    const { sessions } = setup()
    const [a, b] = await Promise.all([sessions.bind('s1', 'alice'), sessions.bind('s1', 'bob')])
    expect([a, b]).toEqual(['alice', 'alice'])
    expect(await sessions.bind('s1', 'bob')).toBe('alice')
    expect(await sessions.owner('s1')).toBe('alice')
    expect(await sessions.owner('s2')).toBeUndefined()
  })

  it('refuses a new binding in a full store instead of evicting one', async () => {
    const { sessions } = setup(100)
    for (let i = 0; i < 100; i++) expect(await sessions.bind(`s${i}`, `u${i}`)).toBe(`u${i}`)
    expect(await sessions.bind('one more', 'mallory')).toBeUndefined()
    expect(await sessions.owner('s0')).toBe('u0')
  })

  it('keeps one principal from filling the store: past its quota it loses its own least recently stored bindings, and others still bind', async () => {
    const { sessions } = setup(100, 10)
    expect(await sessions.bind('alice-1', 'alice')).toBe('alice')
    for (let i = 0; i < 500; i++) expect(await sessions.bind(`m${i}`, 'mallory')).toBe('mallory')
    expect(await sessions.bind('alice-2', 'alice')).toBe('alice')
    expect(await sessions.bind('bob-1', 'bob')).toBe('bob')
    expect(await sessions.owner('alice-1')).toBe('alice')
    expect(await sessions.owner('m490')).toBe('mallory')
    expect(await sessions.owner('m499')).toBe('mallory')
    expect(await sessions.owner('m489')).toBeUndefined()
    expect(await sessions.owner('m0')).toBeUndefined()
  })

  it('holds 1,000 bindings per principal by default', async () => {
    const { sessions } = setup(5000)
    for (let i = 0; i <= 1000; i++) await sessions.bind(`m${i}`, 'mallory')
    expect(await sessions.owner('m0')).toBeUndefined()
    expect(await sessions.owner('m1')).toBe('mallory')
  })

  it('forgets an idle session, renews a used one, and forgets an ended one', async () => {
    const { clock, sessions } = setup()
    await sessions.bind('idle', 'alice')
    await sessions.bind('used', 'alice')
    await sessions.bind('ended', 'alice')
    clock.t += 600
    expect(await sessions.owner('used')).toBe('alice')
    clock.t += 600
    expect(await sessions.owner('idle')).toBeUndefined()
    expect(await sessions.owner('used')).toBe('alice')
    await sessions.forget('ended')
    expect(await sessions.owner('ended')).toBeUndefined()
  })

  it('keeps no session id in clear', async () => {
    const { store, sessions } = setup()
    await sessions.bind('mcp\nsecret-session-id', 'alice')
    expect(await store.get('session', 'mcp\nsecret-session-id')).toBeUndefined()
    expect(store.size('session')).toBe(1)
  })
})
