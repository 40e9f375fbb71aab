import { describe, expect, it } from 'vitest'
import { clip, escapeHtml, shown, shownHeader } from '../../../src/report/html/escape.js'
import { JWT } from './fixtures.js'

describe('escapeHtml', () => {
  it('escapes the five characters that could open markup or end an attribute', () => {
    expect(escapeHtml(`<script>alert("x")</script> & 'y'`)).toBe(
      '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;',
    )
  })

  it('replaces characters XML 1.0 forbids (they would end the inline SVG) but keeps tab and newline', () => {
    expect(escapeHtml('a\u0000b\u001bc\td\ne\uffff')).toBe('a\ufffdb\ufffdc\td\ne\ufffd')
  })
})

describe('shown', () => {
  it('redacts a JWT, a bearer credential and secret form members before escaping', () => {
    const out = shown(
      `got <${JWT}> then Bearer abcdefgh12345678 body grant_type=x&client_secret=s3cr3t-value`,
    )
    expect(out).not.toContain(JWT)
    expect(out).not.toContain('abcdefgh12345678')
    expect(out).not.toContain('s3cr3t-value')
    expect(out).toContain('&lt;[redacted]&gt;')
  })
})

describe('shownHeader', () => {
  it('keeps only the scheme of an Authorization value and hides a cookie whole', () => {
    expect(shownHeader('authorization', 'Bearer opaque-token-123')).toBe('Bearer [redacted]')
    expect(shownHeader('cookie', 'sid=abc')).toBe('[redacted]')
    expect(shownHeader('content-type', 'text/html; "x"')).toBe('text/html; &quot;x&quot;')
  })
})

describe('clip', () => {
  it('cuts to the length asked for, marking the cut', () => {
    expect(clip('abcdef', 4)).toBe('abc…')
    expect(clip('abc', 4)).toBe('abc')
  })
})
