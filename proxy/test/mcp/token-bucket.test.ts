import { describe, expect, it } from 'vitest'
import { TokenBuckets } from '../../src/mcp/token-bucket.js'

function clock() {
  let t = 1000
  return { now: () => t, advance: (ms: number) => (t += ms) }
}

describe('TokenBuckets', () => {
  it('starts full, drains, and refills tokensPerFill each interval up to maxTokens', () => {
    const c = clock()
    const b = new TokenBuckets({ maxTokens: 3, tokensPerFill: 2, fillIntervalMs: 1000 }, c)
    expect(b.peek('k')).toEqual({ tokens: 3, nextFillMs: 0 })
    b.take('k')
    b.take('k')
    expect(b.take('k')).toEqual({ tokens: 0, nextFillMs: 1000 })
    c.advance(999)
    expect(b.peek('k').tokens).toBe(0)
    expect(b.peek('k').nextFillMs).toBe(1)
    c.advance(1)
    expect(b.peek('k').tokens).toBe(2)
    c.advance(5000)
    expect(b.peek('k')).toEqual({ tokens: 3, nextFillMs: 0 })
  })

  it('says a whole interval until the next fill, not a float above it, on a fractional clock', () => {
    // performance.now() is fractional: (t + 60000) - t is 60000.000000000015 at this t, which the
    // RateLimit header rounded up to t=61 for a 60 s window.
    const t = 76311.55038844315
    const b = new TokenBuckets(
      { maxTokens: 1, tokensPerFill: 1, fillIntervalMs: 60_000 },
      { now: () => t },
    )
    expect(b.take('k')).toEqual({ tokens: 0, nextFillMs: 60_000 })
  })

  it('keeps keys apart', () => {
    const c = clock()
    const b = new TokenBuckets({ maxTokens: 1, tokensPerFill: 1, fillIntervalMs: 1000 }, c)
    b.take('alice')
    expect(b.peek('alice').tokens).toBe(0)
    expect(b.peek('bob').tokens).toBe(1)
  })

  it('bounds the keys it tracks, dropping full buckets before used ones', () => {
    const c = clock()
    const b = new TokenBuckets(
      { maxTokens: 2, tokensPerFill: 1, fillIntervalMs: 1000 },
      {
        ...c,
        maxKeys: 10,
      },
    )
    b.take('used', 2)
    for (let i = 0; i < 9; i++) b.take(`k${i}`)
    c.advance(1000) // every k<i> is full again; "used" holds 1 of 2
    b.take('new')
    expect(b.size).toBeLessThanOrEqual(10)
    expect(b.peek('used').tokens).toBe(1)
  })

  // docs/design/hardening.md: dropping a used bucket handed its key a full one again.
  it('never resets a used bucket: past maxKeys, new keys share one overflow bucket', () => {
    const c = clock()
    const b = new TokenBuckets(
      { maxTokens: 2, tokensPerFill: 1, fillIntervalMs: 60_000 },
      { ...c, maxKeys: 100 },
    )
    b.take('alice', 2)
    b.take('bob', 2)
    for (let i = 0; i < 1000; i++) b.take(`k${i}`)
    expect(b.size).toBeLessThanOrEqual(100)
    expect(b.peek('alice').tokens).toBe(0)
    expect(b.peek('bob').tokens).toBe(0)
    // The overflow bucket is spent too: an invented key gets nothing more.
    expect(b.peek('k999').tokens).toBe(0)
    expect(b.peek('someone-new').tokens).toBe(0)
    // Once buckets are full again they can go, and new keys get buckets of their own.
    c.advance(120_000)
    expect(b.take('carol')).toEqual({ tokens: 1, nextFillMs: 60_000 })
    expect(b.peek('alice').tokens).toBe(2)
  })

  it('stays bounded and cheap under invented keys: a walk at most once per fill', () => {
    const c = clock()
    const b = new TokenBuckets(
      { maxTokens: 5, tokensPerFill: 1, fillIntervalMs: 1000 },
      { ...c, maxKeys: 100 },
    )
    for (let i = 0; i < 1000; i++) b.take(`k${i}`)
    expect(b.size).toBeLessThanOrEqual(100)
    expect(b.walks).toBe(1)
    c.advance(1000)
    for (let i = 1000; i < 2000; i++) b.take(`k${i}`)
    // Every bucket full again after one fill: one walk frees room for the next 100 keys.
    expect(b.walks).toBe(2)
    expect(b.peek('k1050').tokens).toBe(4)
  })
})
