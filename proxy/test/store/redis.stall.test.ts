/**
 * A gatehouse in broker mode on a Redis server that stalls (docs/auth.md, "Redis store": a store
 * that does not answer within `commandTimeout` is a 503, never a hang): a real redis-server made
 * slow by `DEBUG SLEEP`, then stopped by SIGSTOP; the broker's endpoints answer 503 while it is.
 */
import { createClient } from '@redis/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pkce } from '../broker/browser.js'
import {
  authorizationUrl,
  type BrokerStack,
  registerClient,
  startBrokerStack,
  tokenRequest,
} from '../broker/stack.js'
import { type RedisServer, redisSkipReason, startRedisServer } from './redis-server.js'

const skip = redisSkipReason()
let redis: RedisServer
let stack: BrokerStack
let clientId: string

beforeAll(async () => {
  if (skip) return
  redis = await startRedisServer()
  stack = await startBrokerStack({
    broker: {
      secret: 'stall-tests-share-this-signing-secret-0123456789',
      store: { redis: { url: redis.url, keyPrefix: 'stall:', commandTimeout: '1s' } },
    },
  })
  ;({ clientId } = await registerClient(stack, {
    redirect_uris: ['http://127.0.0.1:33418/callback'],
    token_endpoint_auth_method: 'none',
  }))
}, 60_000)

afterAll(async () => {
  // A stall test that timed out leaves the server stopped: wake it so that it can exit.
  if (redis) process.kill(redis.pid, 'SIGCONT')
  await stack?.stop()
  await redis?.stop()
})

function authorize(): Promise<Response> {
  const url = authorizationUrl(stack, {
    client_id: clientId,
    state: 's',
    code_challenge: pkce().challenge,
    code_challenge_method: 'S256',
  })
  return fetch(url, { redirect: 'manual' })
}

function register(): Promise<Response> {
  return fetch(`${stack.issuer}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      redirect_uris: ['http://127.0.0.1:1/cb'],
      token_endpoint_auth_method: 'none',
    }),
  })
}

describe.skipIf(skip !== undefined)(
  `broker endpoints on a stalled Redis${skip ? ` (skipped: ${skip})` : ''}`,
  () => {
    it('answers authorize, register and token 503 within commandTimeout while Redis sleeps (DEBUG SLEEP 4, timeout 1 s)', async () => {
      expect((await authorize()).status).toBe(200)
      const admin = createClient({ url: redis.url })
      await admin.connect()
      try {
        let slept = false
        const sleep = admin.sendCommand(['DEBUG', 'SLEEP', '4']).then(() => {
          slept = true
        })
        const [a, r, t] = await Promise.all([
          authorize(),
          register(),
          tokenRequest(stack, {
            grant_type: 'authorization_code',
            client_id: clientId,
            code: 'x'.repeat(43),
            code_verifier: pkce().verifier,
          }),
        ])
        expect(a.status).toBe(503)
        expect(r.status).toBe(503)
        expect(t.status).toBe(503)
        expect(t.body.error).toBe('temporarily_unavailable')
        // All three were answered while the server was still asleep.
        expect(slept).toBe(false)
        await sleep
      } finally {
        await admin.close().catch(() => undefined)
      }
    })

    it('answers 200 parallel /authorize requests 503 while redis-server is stopped (SIGSTOP)', async () => {
      process.kill(redis.pid, 'SIGSTOP')
      try {
        const statuses = await Promise.all(
          Array.from({ length: 200 }, () =>
            authorize().then(
              async (res) => {
                await res.body?.cancel()
                return res.status
              },
              (err: unknown) => String(err),
            ),
          ),
        )
        expect(statuses).toEqual(Array.from({ length: 200 }, () => 503))
      } finally {
        process.kill(redis.pid, 'SIGCONT')
      }
      // Back to normal once the server runs again.
      for (let i = 0; i < 100; i++) {
        const res = await authorize()
        await res.body?.cancel()
        if (res.status === 200) return
      }
      throw new Error('/authorize did not recover after SIGCONT')
    })
  },
)
