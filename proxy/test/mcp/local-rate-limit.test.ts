import { describe, expect, it } from 'vitest'
import type { McpMessage } from '../../src/mcp/json-rpc.js'
import {
  compileRateLimits,
  compileSharedRateLimits,
  type LocalRateLimitConfig,
} from '../../src/mcp/local-rate-limit.js'
import { BucketTable, type LimitWant } from '../../src/mcp/rate-limit-decision.js'

function clock() {
  let t = 0
  return { now: () => t, advance: (ms: number) => (t += ms) }
}

const call = (name: string, id = 1): McpMessage => ({
  type: 'request',
  id,
  method: 'tools/call',
  target: { kind: 'tool', name },
})
const list: McpMessage = { type: 'request', id: 2, method: 'tools/list', target: undefined }

const perUserTool: LocalRateLimitConfig = {
  name: 'per-user-tool',
  maxTokens: 2,
  tokensPerFill: 1,
  fillIntervalMs: 10_000,
  key: 'jwt.sub + "/" + mcp.tool.name',
  when: 'mcp.method == "tools/call"',
}

describe('compileRateLimits', () => {
  it('limits per key: alice spending her echo budget leaves fetch and bob alone', () => {
    const c = clock()
    const limiter = compileRateLimits([perUserTool], c.now)
    const alice = { sub: 'alice' }
    expect(limiter.admit(alice, [call('echo')]).admitted).toBe(true)
    expect(limiter.admit(alice, [call('echo')]).admitted).toBe(true)
    const refused = limiter.admit(alice, [call('echo')])
    expect(refused).toMatchObject({ admitted: false, retryAfterSec: 10 })
    expect(refused.limits).toEqual([
      {
        name: 'per-user-tool',
        maxTokens: 2,
        windowSec: 20,
        remaining: 0,
        resetSec: 10,
        exceeded: true,
      },
    ])
    expect(limiter.admit(alice, [call('fetch')]).admitted).toBe(true)
    expect(limiter.admit({ sub: 'bob' }, [call('echo')]).admitted).toBe(true)
    c.advance(10_000)
    expect(limiter.admit(alice, [call('echo')]).admitted).toBe(true)
  })

  it('counts only the messages `when` selects', () => {
    const limiter = compileRateLimits([perUserTool], clock().now)
    for (let i = 0; i < 5; i++) {
      const d = limiter.admit({ sub: 'alice' }, [list])
      expect(d.admitted).toBe(true)
      expect(d.limits).toEqual([])
    }
  })

  it('takes one token per message of a batch, and nothing when it refuses', () => {
    const limiter = compileRateLimits(
      [{ name: 'route', maxTokens: 3, tokensPerFill: 1, fillIntervalMs: 1000 }],
      clock().now,
    )
    const batch = [call('a', 1), call('b', 2)]
    expect(limiter.admit({}, batch).admitted).toBe(true)
    expect(limiter.admit({}, batch).admitted).toBe(false)
    // The refused batch took nothing: one token is still there.
    expect(limiter.admit({}, [call('c')]).admitted).toBe(true)
  })

  it('counts a request without messages (GET, DELETE) as one', () => {
    const limiter = compileRateLimits(
      [{ name: 'route', maxTokens: 1, tokensPerFill: 1, fillIntervalMs: 1000 }],
      clock().now,
    )
    expect(limiter.admit({}, []).admitted).toBe(true)
    expect(limiter.admit({}, []).admitted).toBe(false)
  })

  it('admits only when every limit admits', () => {
    const limiter = compileRateLimits(
      [
        { ...perUserTool, maxTokens: 5 },
        { name: 'global', maxTokens: 1, tokensPerFill: 1, fillIntervalMs: 60_000 },
      ],
      clock().now,
    )
    expect(limiter.admit({ sub: 'a' }, [call('echo')]).admitted).toBe(true)
    const d = limiter.admit({ sub: 'b' }, [call('echo')])
    expect(d.admitted).toBe(false)
    expect(d.retryAfterSec).toBe(60)
    expect(d.limits.find((l) => l.exceeded)?.name).toBe('global')
  })

  it('puts messages whose key cannot be evaluated in one shared bucket (fail closed)', () => {
    const limiter = compileRateLimits(
      [{ name: 'per-user', maxTokens: 1, tokensPerFill: 1, fillIntervalMs: 1000, key: 'jwt.sub' }],
      clock().now,
    )
    expect(limiter.admit({}, [call('x')]).admitted).toBe(true)
    expect(limiter.admit({ other: 1 }, [call('x')]).admitted).toBe(false)
    expect(limiter.admit({ sub: 'alice' }, [call('x')]).admitted).toBe(true)
  })

  it('refuses a batch larger than the bucket, with the time to refill it as Retry-After', () => {
    const limiter = compileRateLimits(
      [{ name: 'small', maxTokens: 2, tokensPerFill: 1, fillIntervalMs: 5000 }],
      clock().now,
    )
    const d = limiter.admit({}, [call('a', 1), call('b', 2), call('c', 3)])
    expect(d).toMatchObject({ admitted: false, retryAfterSec: 10 })
  })

  it('names the expression that does not compile', () => {
    expect(() => compileRateLimits([{ ...perUserTool, key: 'jwt.sub +' }])).toThrow(
      /^\[0\]\.key: invalid CEL/,
    )
  })
})

describe('compileRateLimits, keys per token', () => {
  it('keeps deciding per claims object and per tool once keys are remembered', () => {
    const limiter = compileRateLimits([perUserTool], clock().now)
    const alice = { sub: 'alice' }
    const bob = { sub: 'bob' }
    for (let i = 0; i < 2; i++) {
      expect(limiter.admit(alice, [call('echo')]).admitted).toBe(true)
      expect(limiter.admit(bob, [call('fetch')]).admitted).toBe(true)
    }
    expect(limiter.admit(alice, [call('echo')]).admitted).toBe(false)
    expect(limiter.admit(alice, [call('fetch')]).admitted).toBe(true)
    expect(limiter.admit(bob, [call('fetch')]).admitted).toBe(false)
    expect(limiter.admit(alice, [list]).limits).toEqual([])
  })

  it('evaluates again for every message when the key reads tool arguments', () => {
    const limiter = compileRateLimits(
      [
        {
          name: 'per-url',
          maxTokens: 1,
          tokensPerFill: 1,
          fillIntervalMs: 60_000,
          key: 'mcp.tool.arguments.url',
        },
      ],
      clock().now,
    )
    const fetchUrl = (url: string): McpMessage => ({
      type: 'request',
      id: 1,
      method: 'tools/call',
      target: { kind: 'tool', name: 'fetch', arguments: { url } },
    })
    const claims = { sub: 'alice' }
    expect(limiter.admit(claims, [fetchUrl('http://a')]).admitted).toBe(true)
    expect(limiter.admit(claims, [fetchUrl('http://b')]).admitted).toBe(true)
    expect(limiter.admit(claims, [fetchUrl('http://a')]).admitted).toBe(false)
  })
})

describe('compileSharedRateLimits with a BucketTable (the cluster primary)', () => {
  const alice = { sub: 'alice' }
  const bob = { sub: 'bob' }
  /** Two workers' limiters deciding through one table, as over IPC. */
  function twoWorkers(config: LocalRateLimitConfig) {
    const table = new BucketTable(clock().now)
    const shared = { decide: async (wants: LimitWant[]) => table.decide(wants) }
    return [
      compileSharedRateLimits([config], shared, 'route-a'),
      compileSharedRateLimits([config], shared, 'route-a'),
    ] as const
  }

  it('admits maxTokens in total across the processes that share the table', async () => {
    const [one, two] = twoWorkers(perUserTool)
    const decisions = [
      await one.admit(alice, [call('echo')]),
      await two.admit(alice, [call('echo')]),
      await one.admit(alice, [call('echo')]),
    ]
    expect(decisions.map((d) => d.admitted)).toEqual([true, true, false])
    expect(decisions[2]?.limits[0]).toMatchObject({ name: 'per-user-tool', exceeded: true })
    expect((await two.admit(bob, [call('echo')])).admitted).toBe(true)
  })

  it('decides without asking the table when no limit selects the request', async () => {
    const asked: LimitWant[][] = []
    const limiter = compileSharedRateLimits(
      [perUserTool],
      {
        decide: async (wants) => {
          asked.push(wants)
          return new BucketTable().decide(wants)
        },
      },
      'route-a',
    )
    expect(await limiter.admit(alice, [list])).toEqual({
      admitted: true,
      retryAfterSec: 0,
      limits: [],
    })
    expect(asked).toEqual([])
    await limiter.admit(alice, [call('echo')])
    expect(asked).toHaveLength(1)
  })

  it('keeps buckets apart per route, and gives a limit whose settings changed new ones', async () => {
    const table = new BucketTable(clock().now)
    const shared = { decide: async (wants: LimitWant[]) => table.decide(wants) }
    const a = compileSharedRateLimits([perUserTool], shared, 'route-a')
    const b = compileSharedRateLimits([perUserTool], shared, 'route-b')
    const wider = compileSharedRateLimits([{ ...perUserTool, maxTokens: 3 }], shared, 'route-a')
    await a.admit(alice, [call('echo')])
    await a.admit(alice, [call('echo')])
    expect((await a.admit(alice, [call('echo')])).admitted).toBe(false)
    expect((await b.admit(alice, [call('echo')])).admitted).toBe(true)
    expect((await wider.admit(alice, [call('echo')])).admitted).toBe(true)
    expect(table.size('route-a\u00000')).toBe(2)
  })
})
