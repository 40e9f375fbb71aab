import { describe, expect, it } from 'vitest'
import {
  type BrokerClient,
  type ClientMetadataResolver,
  ClientRegistry,
  newClientId,
  newClientSecret,
  redirectUriAllowed,
} from '../../src/broker/clients.js'
import { MemoryStore } from '../../src/store/memory.js'

function registered(o: Partial<BrokerClient> = {}): BrokerClient {
  return {
    clientId: newClientId(),
    redirectUris: ['https://app.example/cb'],
    tokenEndpointAuthMethod: 'none',
    source: 'registered',
    ...o,
  }
}

describe('ClientRegistry', () => {
  it('finds a saved client, and nothing for an unknown id', async () => {
    const store = new MemoryStore({ maxEntries: 100 })
    const registry = new ClientRegistry({ store })
    const c = registered({ clientName: 'Inspector', scope: 'openid' })
    await registry.save(c, 60_000)
    expect(await registry.lookup(c.clientId)).toEqual(c)
    expect(await registry.lookup('gh_unknown')).toBeUndefined()
    expect(await registry.lookup('')).toBeUndefined()
    await store.close()
  })

  it('keeps a registration nobody used only for its short life, and a used one until its expiresAt', async () => {
    let now = 1_000_000
    const store = new MemoryStore({ maxEntries: 100, now: () => now })
    const registry = new ClientRegistry({ store })
    const hour = 3_600_000
    const unused = registered({ expiresAt: now + 720 * hour, used: false })
    const used = registered({ expiresAt: now + 720 * hour, used: false })
    await registry.save(unused, hour)
    await registry.save(used, hour)
    const found = await registry.lookup(used.clientId)
    if (!found) throw new Error('saved client not found')
    await registry.markUsed(found, now)
    now += hour
    expect(await registry.lookup(unused.clientId)).toBeUndefined()
    expect(await registry.lookup(used.clientId)).toMatchObject({ used: true })
    now += 719 * hour - 1
    expect(await registry.lookup(used.clientId)).toBeDefined()
    now += 1
    expect(await registry.lookup(used.clientId)).toBeUndefined()
    await store.close()
  })

  it('accepts mcp.clientId as a public client without a store entry', async () => {
    const store = new MemoryStore({ maxEntries: 100 })
    const registry = new ClientRegistry({ store, configuredClientId: 'demo-client' })
    expect(await registry.lookup('demo-client')).toMatchObject({
      clientId: 'demo-client',
      tokenEndpointAuthMethod: 'none',
      source: 'configured',
    })
    await store.close()
  })

  it('sends URL client ids to the metadata documents, and knows none without them', async () => {
    const store = new MemoryStore({ maxEntries: 100 })
    const asked: string[] = []
    const resolver: ClientMetadataResolver = {
      resolve: async (url) => {
        asked.push(url)
        return registered({ clientId: url, source: 'metadata-document' })
      },
    }
    const url = 'https://app.example/client.json'
    expect(await new ClientRegistry({ store }).lookup(url)).toBeUndefined()
    const found = await new ClientRegistry({ store, metadataDocuments: resolver }).lookup(url)
    expect(found?.source).toBe('metadata-document')
    expect(asked).toEqual([url])
    await store.close()
  })

  it('ignores a store entry of the wrong shape (the store is shared)', async () => {
    const store = new MemoryStore({ maxEntries: 100 })
    await store.put('client', 'gh_bad', { clientId: 'gh_bad', redirectUris: 'x' }, 60_000)
    await store.put('client', 'gh_cfg', { ...registered(), source: 'configured' }, 60_000)
    const registry = new ClientRegistry({ store })
    expect(await registry.lookup('gh_bad')).toBeUndefined()
    expect(await registry.lookup('gh_cfg')).toBeUndefined()
    await store.close()
  })

  it('verifies a secret against its hash, and never for a public client', () => {
    const registry = new ClientRegistry({ store: new MemoryStore({ maxEntries: 100 }) })
    const { secret, hash } = newClientSecret()
    const c = registered({ tokenEndpointAuthMethod: 'client_secret_basic', clientSecretHash: hash })
    expect(hash).not.toContain(secret)
    expect(registry.verifySecret(c, secret)).toBe(true)
    expect(registry.verifySecret(c, `${secret}x`)).toBe(false)
    expect(registry.verifySecret(c, '')).toBe(false)
    expect(registry.verifySecret(registered(), secret)).toBe(false)
  })
})

describe('redirectUriAllowed', () => {
  it('matches registered redirect URIs exactly, with no prefix or case folding', () => {
    const c = registered({ redirectUris: ['https://app.example/cb'] })
    expect(redirectUriAllowed(c, 'https://app.example/cb')).toBe(true)
    for (const uri of [
      'https://app.example/cb/',
      'https://app.example/cb?x=1',
      'https://app.example/cb/../evil',
      'https://APP.example/cb',
      'https://app.example/c',
      'https://app.example.evil.example/cb',
    ]) {
      expect(redirectUriAllowed(c, uri)).toBe(false)
    }
  })

  it('lets the configured client use any loopback port (RFC 8252 §7.3), and nothing else', () => {
    const c: BrokerClient = {
      clientId: 'demo-client',
      redirectUris: [],
      tokenEndpointAuthMethod: 'none',
      source: 'configured',
    }
    expect(redirectUriAllowed(c, 'http://127.0.0.1:53111/callback')).toBe(true)
    expect(redirectUriAllowed(c, 'http://localhost:6274/oauth/callback')).toBe(true)
    expect(redirectUriAllowed(c, 'https://evil.example/cb')).toBe(false)
    expect(redirectUriAllowed(c, 'http://127.0.0.1:1/cb#frag')).toBe(false)
  })
})
