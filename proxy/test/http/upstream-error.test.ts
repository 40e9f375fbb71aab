/**
 * One reading of a failed upstream request (docs/design/layering.md): the auth layer's descriptions and
 * the data plane's 502/504 come from the same describeUpstreamError.
 */
import { describe, expect, it } from 'vitest'
import { describeUpstreamError, mapUpstreamError } from '../../src/http/upstream-error.js'

const withCode = (code: string, message = `${code} happened`) =>
  Object.assign(new Error(message), { code })
/** What undici's fetch throws: the socket error is the cause. */
const fetchFailed = (cause: Error) => new TypeError('fetch failed', { cause })

describe('describeUpstreamError', () => {
  it.each([
    ['a connect refusal', withCode('ECONNREFUSED'), 'unreachable', 'ECONNREFUSED'],
    ['an unknown host', withCode('ENOTFOUND'), 'unreachable', 'ENOTFOUND'],
    ['no route', withCode('EHOSTUNREACH'), 'unreachable', 'EHOSTUNREACH'],
    [
      'a headers timeout',
      withCode('UND_ERR_HEADERS_TIMEOUT'),
      'timeout',
      'UND_ERR_HEADERS_TIMEOUT',
    ],
    [
      'a refusal inside fetch',
      fetchFailed(withCode('ECONNREFUSED')),
      'unreachable',
      'ECONNREFUSED',
    ],
    ['a reset', withCode('ECONNRESET'), 'other', 'ECONNRESET'],
  ])('reads %s', (_name, err, kind, code) => {
    const f = describeUpstreamError(err)
    expect([f.kind, f.code]).toEqual([kind, code])
    expect(f.text).toBe(`${code} (${code} happened)`)
  })

  it('calls an aborted signal a timeout, and a bare error by its message', () => {
    expect(describeUpstreamError(new DOMException('x', 'TimeoutError'))).toMatchObject({
      kind: 'timeout',
      text: 'timed out',
    })
    expect(describeUpstreamError(new Error('socket hang up'))).toEqual({
      kind: 'other',
      code: '',
      text: 'socket hang up',
    })
  })
})

describe('mapUpstreamError', () => {
  it.each([
    [withCode('ECONNREFUSED'), 502, 'upstream_unavailable', 'cannot be reached (ECONNREFUSED)'],
    [withCode('EAI_AGAIN'), 502, 'upstream_unavailable', 'cannot be reached (EAI_AGAIN)'],
    [
      withCode('UND_ERR_CONNECT_TIMEOUT'),
      504,
      'upstream_timeout',
      'did not answer in time (UND_ERR_CONNECT_TIMEOUT)',
    ],
    [withCode('ECONNRESET'), 502, 'upstream_error', 'failed: ECONNRESET'],
    [new Error('socket hang up'), 502, 'upstream_error', 'failed: socket hang up'],
  ])('maps %s to %i %s', (err, status, error, text) => {
    const e = mapUpstreamError(err, 'b')
    expect([e.status, e.error]).toEqual([status, error])
    expect(e.message).toBe(`backend "b" ${text}`)
  })
})
