import { describe, expect, it } from 'vitest'
import { decodeHeaderValue, isSafeHeaderValue } from '../../src/mcp/header-value.js'

const b64 = (s: string) => `=?base64?${Buffer.from(s, 'utf8').toString('base64')}?=`

describe('decodeHeaderValue (MCP 2026-07-28 §Value Encoding)', () => {
  it('keeps a plain ASCII value', () => {
    expect(decodeHeaderValue('us-west1')).toEqual({ value: 'us-west1' })
  })

  it("decodes the revision's examples", () => {
    expect(decodeHeaderValue('=?base64?SGVsbG8sIOS4lueVjA==?=')).toEqual({ value: 'Hello, 世界' })
    expect(decodeHeaderValue('=?base64?IHBhZGRlZCA=?=')).toEqual({ value: ' padded ' })
    expect(decodeHeaderValue('=?base64?bGluZTEKbGluZTI=?=')).toEqual({ value: 'line1\nline2' })
    expect(decodeHeaderValue('=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=')).toEqual({
      value: '=?base64?literal?=',
    })
  })

  it('refuses raw non-ASCII (what Node reads as latin1 bytes) and control characters', () => {
    expect(decodeHeaderValue('donn\u00c3\u00a9es')).toHaveProperty('invalid')
    expect(decodeHeaderValue('a\u0000b')).toHaveProperty('invalid')
  })

  it('refuses a sentinel whose content is not canonical Base64 or not UTF-8', () => {
    expect(decodeHeaderValue('=?base64?not base64!?=')).toHaveProperty('invalid')
    expect(decodeHeaderValue('=?base64?abc?=')).toHaveProperty('invalid')
    expect(decodeHeaderValue(`=?base64?${Buffer.from([0xff, 0xfe]).toString('base64')}?=`)).toEqual(
      { invalid: 'does not decode to UTF-8' },
    )
  })

  it('treats the markers case-sensitively: an upper-case sentinel is a plain value', () => {
    expect(decodeHeaderValue('=?BASE64?YQ==?=')).toEqual({ value: '=?BASE64?YQ==?=' })
    expect(decodeHeaderValue(b64('x'))).toEqual({ value: 'x' })
  })

  it('isSafeHeaderValue allows visible ASCII, space and tab only', () => {
    expect(isSafeHeaderValue('a b\tc~')).toBe(true)
    expect(isSafeHeaderValue('é')).toBe(false)
  })
})
