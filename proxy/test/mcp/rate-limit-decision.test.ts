import { describe, expect, it } from 'vitest'
import { rateLimitHeaders } from '../../src/mcp/rate-limit-decision.js'

describe('rateLimitHeaders', () => {
  it('writes RateLimit-Policy, RateLimit and, on refusal, Retry-After', () => {
    const headers = rateLimitHeaders({
      admitted: false,
      retryAfterSec: 7,
      limits: [
        {
          name: 'per-user-tool',
          maxTokens: 10,
          windowSec: 60,
          remaining: 0,
          resetSec: 7,
          exceeded: true,
        },
        {
          name: 'global',
          maxTokens: 100,
          windowSec: 1,
          remaining: 40,
          resetSec: 1,
          exceeded: false,
        },
      ],
    })
    expect(headers).toEqual({
      'ratelimit-policy': '"per-user-tool";q=10;w=60, "global";q=100;w=1',
      ratelimit: '"per-user-tool";r=0;t=7, "global";r=40;t=1',
      'retry-after': '7',
    })
  })

  it('writes nothing when no limit applied', () => {
    expect(rateLimitHeaders({ admitted: true, retryAfterSec: 0, limits: [] })).toEqual({})
  })
})
