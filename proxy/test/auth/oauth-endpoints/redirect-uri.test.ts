import { describe, expect, it } from 'vitest'
import {
  isLoopbackRedirect,
  redirectUriProblem,
  redirectUrisProblem,
} from '../../../src/auth/oauth-endpoints/redirect-uri.js'

describe('redirectUriProblem', () => {
  it.each([
    'https://app.example.com/callback',
    'https://app.example.com/cb?x=1',
    'http://localhost:6274/oauth/callback',
    'http://127.0.0.1:33418/',
    'http://[::1]:8080/cb',
    'https://127.0.0.1/cb',
  ])('accepts %s', (uri) => {
    expect(redirectUriProblem(uri)).toBeUndefined()
  })

  it.each([
    ['', /empty/],
    ['/callback', /not an absolute URI/],
    ['callback', /not an absolute URI/],
    ['//evil.example/cb', /not an absolute URI/],
    ['javascript:alert(1)', /scheme "javascript:"/],
    ['JavaScript:alert(1)', /scheme "javascript:"/],
    ['data:text/html,<script>alert(1)</script>', /scheme "data:"/],
    ['file:///etc/passwd', /scheme "file:"/],
    ['vbscript:msgbox', /scheme "vbscript:"/],
    ['https://app.example.com/cb#frag', /fragment/],
    ['https://app.example.com/cb#', /fragment/],
    ['https://user:pw@app.example.com/cb', /userinfo/],
    ['https://evil.example@app.example.com/cb', /userinfo/],
    ['https://@app.example.com/cb', /userinfo/],
    ['http://app.example.com/cb', /not loopback/],
    ['http://localhost.evil.example/cb', /not loopback/],
    ['http://127.0.0.1.nip.io/cb', /not loopback/],
    [' https://app.example.com/cb', /whitespace/],
    ['https://app.example.com/c\tb', /whitespace/],
    ['https://evil.example\\@app.example.com/cb', /backslash/],
    ['https:app.example.com/cb', /no host/],
    ['https:///cb', /no host/],
    [`https://a.example/${'x'.repeat(2000)}`, /longer than/],
  ])('refuses %j', (uri, reason) => {
    expect(redirectUriProblem(uri)).toMatch(reason)
  })

  it('refuses a value that is not a string', () => {
    expect(redirectUriProblem(42)).toMatch(/expected a string/)
  })
})

describe('redirectUrisProblem', () => {
  it('names the member that fails', () => {
    expect(redirectUrisProblem(['https://a.example/cb', 'javascript:x'])).toMatch(
      /^redirect_uris\[1\]: uses the scheme "javascript:"/,
    )
  })

  it('refuses an empty list, a non-list and too many', () => {
    expect(redirectUrisProblem([])).toMatch(/is empty/)
    expect(redirectUrisProblem('https://a.example/cb')).toMatch(/expected an array/)
    expect(
      redirectUrisProblem(Array.from({ length: 21 }, (_, i) => `https://a.example/${i}`)),
    ).toMatch(/at most 20/)
  })

  it('accepts a list of valid URIs', () => {
    expect(redirectUrisProblem(['https://a.example/cb', 'http://127.0.0.1:1/cb'])).toBeUndefined()
  })
})

describe('isLoopbackRedirect', () => {
  it('is true only for valid loopback redirect URIs', () => {
    expect(isLoopbackRedirect('http://127.0.0.1:5000/cb')).toBe(true)
    expect(isLoopbackRedirect('http://localhost/cb')).toBe(true)
    expect(isLoopbackRedirect('https://app.example.com/cb')).toBe(false)
    expect(isLoopbackRedirect('http://localhost/cb#x')).toBe(false)
  })
})
