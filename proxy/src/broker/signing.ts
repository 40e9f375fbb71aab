/**
 * The broker's secrets at rest and on the wire: random handles (codes, states, refresh tokens,
 * pending-request ids), their store keys (a SHA-256, so a dump of the store holds no usable
 * code or token), and HMAC-SHA256 signatures keyed with `mcp.broker.secret` for what travels
 * through the browser (the consent cookie, CSRF tokens). Comparisons are constant-time.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'

/** A fresh unguessable handle: 32 random bytes, base64url (256 bits; RFC 6749 §10.10). */
export function randomHandle(): string {
  return randomBytes(32).toString('base64url')
}

/** SHA-256 of a value, base64url: the store key of a code or token, never the value itself. */
export function digest(value: string): string {
  return createHash('sha256').update(value).digest('base64url')
}

/** Constant-time equality of two strings (false when the lengths differ). */
export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

/** RFC 7636 §4.2: the S256 code challenge of a verifier. */
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url')
}

/** RFC 7636 §4.1: 43-128 characters of [A-Z] / [a-z] / [0-9] / "-" / "." / "_" / "~". */
export const CODE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/

/** Signs and verifies values with the broker's key (HMAC-SHA256). */
export class Signer {
  readonly #key: Buffer

  /** @param key `mcp.broker.secret`; absent: a random key for this process's lifetime. */
  constructor(key: Buffer | string | undefined) {
    this.#key = typeof key === 'string' ? Buffer.from(key, 'utf8') : (key ?? randomBytes(32))
  }

  /** The MAC of the parts, joined unambiguously, under a purpose label (domain separation). */
  mac(purpose: string, ...parts: string[]): string {
    const h = createHmac('sha256', this.#key).update(purpose)
    for (const p of parts) h.update(`\0${p.length}:${p}`)
    return h.digest('base64url')
  }

  /** `payload.mac`: a value the browser carries and gives back unchanged. */
  seal(purpose: string, payload: string): string {
    return `${payload}.${this.mac(purpose, payload)}`
  }

  /** The payload of a sealed value, or `undefined` when it was altered or is not one. */
  open(purpose: string, sealed: string): string | undefined {
    const dot = sealed.lastIndexOf('.')
    if (dot <= 0) return undefined
    const payload = sealed.slice(0, dot)
    return safeEqual(sealed.slice(dot + 1), this.mac(purpose, payload)) ? payload : undefined
  }
}
