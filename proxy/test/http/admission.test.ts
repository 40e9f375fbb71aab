import { describe, expect, it } from 'vitest'
import { Admission } from '../../src/http/admission.js'

const never = new AbortController().signal

describe('Admission', () => {
  it('grants up to its limit at once and the next request when a slot is released, in order', async () => {
    const a = new Admission(2)
    const one = await a.acquire(1000, never)
    const two = await a.acquire(1000, never)
    expect(one.ok && two.ok).toBe(true)
    const order: number[] = []
    const granted = (n: number) => () => {
      order.push(n)
    }
    const three = a.acquire(5000, never).then(granted(3))
    const four = a.acquire(5000, never).then(granted(4))
    expect(a.waiting).toBe(2)
    if (one.ok) one.release()
    if (one.ok) one.release() // idempotent: frees one slot, not two
    await three
    expect(order).toEqual([3])
    expect(a.active).toBe(2)
    if (two.ok) two.release()
    await four
    expect(order).toEqual([3, 4])
    expect(a.waiting).toBe(0)
  })

  it('gives up after the timeout, saying how long it waited', async () => {
    const a = new Admission(1)
    await a.acquire(1000, never)
    const r = await a.acquire(50, never)
    expect(r.ok).toBe(false)
    if (!r.ok && r.failure.kind === 'timeout') expect(r.failure.waitedMs).toBeGreaterThanOrEqual(40)
    else throw new Error(`expected a timeout, got ${JSON.stringify(r)}`)
    expect(a.waiting).toBe(0)
  })

  it('leaves the queue at once when the client goes away', async () => {
    const a = new Admission(1)
    const held = await a.acquire(1000, never)
    const ac = new AbortController()
    const waiting = a.acquire(60_000, ac.signal)
    expect(a.waiting).toBe(1)
    ac.abort()
    expect(await waiting).toEqual({ ok: false, failure: { kind: 'aborted' } })
    expect(a.waiting).toBe(0)
    if (held.ok) held.release()
    expect(a.active).toBe(0)
  })
})
