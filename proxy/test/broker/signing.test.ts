/** The broker's handles, digests and signatures (`proxy/src/broker/signing.ts`). */
import { describe, expect, it } from 'vitest'
import {
  CODE_VERIFIER,
  digest,
  randomHandle,
  Signer,
  s256,
  safeEqual,
} from '../../src/broker/signing.js'

describe('broker signing', () => {
  it('computes the RFC 7636 Appendix B S256 challenge', () => {
    expect(s256('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe(
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    )
  })

  it('accepts only RFC 7636 §4.1 verifiers (43-128 unreserved characters)', () => {
    expect(CODE_VERIFIER.test('a'.repeat(43))).toBe(true)
    expect(CODE_VERIFIER.test('a'.repeat(128))).toBe(true)
    expect(CODE_VERIFIER.test('a'.repeat(42))).toBe(false)
    expect(CODE_VERIFIER.test('a'.repeat(129))).toBe(false)
    expect(CODE_VERIFIER.test(`${'a'.repeat(42)}+`)).toBe(false)
  })

  it('mints distinct 256-bit handles and stores only their digests', () => {
    const a = randomHandle()
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(randomHandle()).not.toBe(a)
    expect(digest(a)).not.toContain(a)
    expect(digest(a)).toBe(digest(a))
  })

  it('opens what it sealed, and nothing altered or sealed for another purpose or key', () => {
    const signer = new Signer('k'.repeat(32))
    const sealed = signer.seal('consent', 'payload')
    expect(signer.open('consent', sealed)).toBe('payload')
    expect(signer.open('csrf', sealed)).toBeUndefined()
    expect(signer.open('consent', sealed.replace('payload', 'paylOad'))).toBeUndefined()
    expect(signer.open('consent', 'payload')).toBeUndefined()
    expect(new Signer('j'.repeat(32)).open('consent', sealed)).toBeUndefined()
    // Without a configured secret each process has its own random key.
    expect(
      new Signer(undefined).open('consent', new Signer(undefined).seal('consent', 'x')),
    ).toBeUndefined()
  })

  it('joins MAC parts unambiguously (("ab","c") is not ("a","bc"))', () => {
    const signer = new Signer('k'.repeat(32))
    expect(signer.mac('csrf', 'ab', 'c')).not.toBe(signer.mac('csrf', 'a', 'bc'))
  })

  it('compares in constant time and refuses different lengths', () => {
    expect(safeEqual('abc', 'abc')).toBe(true)
    expect(safeEqual('abc', 'abd')).toBe(false)
    expect(safeEqual('abc', 'abcd')).toBe(false)
  })
})
