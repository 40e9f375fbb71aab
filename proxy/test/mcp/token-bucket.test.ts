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

  it('stays bounded when every bucket is in use, dropping the least recently used', () => {
    const c = clock()
    const b = new TokenBuckets(
      { maxTokens: 5, tokensPerFill: 1, fillIntervalMs: 60_000 },
      {
        ...c,
        maxKeys: 100,
      },
    )
    for (let i = 0; i < 1000; i++) b.take(`k${i}`)
    expect(b.size).toBeLessThanOrEqual(100)
    expect(b.peek('k999').tokens).toBe(4)
  })
})
