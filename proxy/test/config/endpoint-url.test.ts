import { describe, expect, it } from 'vitest'
import { endpointUrlProblem, isLoopbackHost } from '../../src/config/endpoint-url.js'

describe('endpointUrlProblem', () => {
  it.each([
    'https://idp.example.com/oauth2/token',
    'http://127.0.0.1:9000/token',
    'http://127.8.9.10/token',
    'http://localhost:9000/token',
    'http://[::1]:9000/token',
  ])('accepts %s (https, or http on a loopback host)', (url) => {
    expect(endpointUrlProblem(url)).toBeUndefined()
  })

  it.each([
    [
      'http://idp.example.com/token',
      /uses http on idp\.example\.com, which is not a loopback host/,
    ],
    ['http://10.0.0.5/token', /uses http on 10\.0\.0\.5/],
    ['http://127.0.0.1.evil.example/token', /uses http on 127\.0\.0\.1\.evil\.example/],
    ['ftp://idp.example.com/keys', /uses ftp: expected https/],
    ['https://user:pw@idp.example.com/token', /carries credentials/],
    ['https://idp.example.com/authorize#x', /has a fragment/],
    ['/oauth2/token', /is not an absolute URL/],
  ])('refuses %s, saying why', (url, why) => {
    expect(endpointUrlProblem(url)).toMatch(why)
  })

  it('never repeats the credentials of a URL it refuses', () => {
    expect(endpointUrlProblem('https://user:s3cret@idp.example.com/token')).not.toContain('s3cret')
  })
})

describe('isLoopbackHost', () => {
  it('is true for localhost, 127/8 and ::1 only', () => {
    expect(['localhost', 'a.localhost', '127.0.0.1', '[::1]'].map(isLoopbackHost)).toEqual([
      true,
      true,
      true,
      true,
    ])
    expect(
      ['example.com', '128.0.0.1', '::2', 'localhost.example.com'].map(isLoopbackHost),
    ).toEqual([false, false, false, false])
  })
})
