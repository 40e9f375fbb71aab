/**
 * A flood of unauthenticated `GET /oauth/authorize` against a real gatehouse in broker mode
 * (docs/auth.md, "Broker state"): requests waiting for consent live in their own store namespace
 * with a short life and a per-address limit, so 10,000 of them from one address neither lock out
 * a browser that already consented nor a user signing in from another address.
 */
import { Agent, fetch as undiciFetch } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pkce, TestBrowser } from './browser.js'
import { obtainCode } from './flow.js'
import { authorizationUrl, type BrokerStack, startBrokerStack, tokenRequest } from './stack.js'

let stack: BrokerStack
/** The flooding client's connections (127.0.0.1, keep-alive). */
const flooder = new Agent({ connections: 16 })

beforeAll(async () => {
  stack = await startBrokerStack()
})
afterAll(async () => {
  await stack?.stop()
  await flooder.close()
})

const FLOOD = 10_000
const PARALLEL = 16

/** Sends FLOOD authorization requests, PARALLEL at a time; returns the count of each status. */
async function flood(): Promise<Map<number, number>> {
  const counts = new Map<number, number>()
  let next = 0
  const worker = async () => {
    while (next < FLOOD) {
      next++
      const url = authorizationUrl(stack, {
        state: `flood-${next}`,
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
      })
      const res = await undiciFetch(url, { redirect: 'manual', dispatcher: flooder })
      await res.arrayBuffer()
      counts.set(res.status, (counts.get(res.status) ?? 0) + 1)
    }
  }
  await Promise.all(Array.from({ length: PARALLEL }, worker))
  return counts
}

async function redeem(got: Awaited<ReturnType<typeof obtainCode>>) {
  return tokenRequest(stack, {
    grant_type: 'authorization_code',
    client_id: 'gatehouse-demo-client',
    code: got.code,
    code_verifier: got.verifier,
    redirect_uri: got.redirectUri,
  })
}

describe('a flood of unauthenticated /authorize requests', () => {
  it('leaves sign-in working: after 10,000 GETs from one address, a consented browser and a new user from another address still get tokens', async () => {
    // Alice consents before the flood (the consent cookie remembers it).
    const alice = new TestBrowser()
    const first = await obtainCode(stack, 'alice', { browser: alice })
    expect((await redeem(first)).status).toBe(200)

    const counts = await flood()

    // Alice, from the flooded address, signs in again without a consent page.
    const again = await obtainCode(stack, 'alice', { browser: alice })
    expect((await redeem(again)).status).toBe(200)
    // Bob, from another address, goes through consent and signs in.
    const bob = await obtainCode(stack, 'bob', {
      browser: new TestBrowser({ localAddress: '127.0.0.2' }),
    })
    const tokens = await redeem(bob)
    expect(tokens.status).toBe(200)
    expect(typeof tokens.body.access_token).toBe('string')
    // The flooding address got its few consent pages, then 429s.
    expect(counts.get(429) ?? 0).toBeGreaterThan(FLOOD - 100)
    expect([...counts.keys()].every((s) => s === 200 || s === 429)).toBe(true)
  }, 180_000)
})
