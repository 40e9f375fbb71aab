import { describe, expect, it } from 'vitest'
import { parseTraceEvent, redact } from '../../src/trace/events.js'

const JWT = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl'

describe('redact', () => {
  it('keeps only the scheme of an authorization header', () => {
    expect(redact({ headers: { Authorization: `Bearer ${JWT}` } })).toEqual({
      headers: { Authorization: 'Bearer [redacted]' },
    })
  })

  it('redacts cookies, token fields and client secrets whatever their value', () => {
    expect(
      redact({
        cookie: 'sid=1',
        access_token: 'opaque',
        client_secret: 's3cret',
        nested: [{ token: 7 }],
      }),
    ).toEqual({
      cookie: '[redacted]',
      access_token: '[redacted]',
      client_secret: '[redacted]',
      nested: [{ token: '[redacted]' }],
    })
  })

  it('replaces a JWT found in any string', () => {
    expect(redact({ note: `got ${JWT} from the client` })).toEqual({
      note: 'got [redacted] from the client',
    })
  })

  it('leaves an already redacted header and plain values alone', () => {
    const value = { authorization: 'Bearer [redacted]', status: 200, path: '/mcp', ok: true }
    expect(redact(value)).toEqual(value)
  })
})

describe('parseTraceEvent', () => {
  it('redacts the data of a frame and keeps its envelope', () => {
    const e = parseTraceEvent(
      'request_started',
      JSON.stringify({
        requestId: 'req-1',
        seq: 0,
        type: 'request_started',
        at: '2026-11-22T14:00:00.000Z',
        elapsedMs: 0.5,
        data: { headers: { authorization: `Bearer ${JWT}` } },
      }),
    )
    expect(e).toEqual({
      requestId: 'req-1',
      seq: 0,
      type: 'request_started',
      at: '2026-11-22T14:00:00.000Z',
      elapsedMs: 0.5,
      data: { headers: { authorization: 'Bearer [redacted]' } },
    })
  })

  it('takes the type from the SSE event name when the payload has none', () => {
    expect(parseTraceEvent('response', '{"data":{"status":200}}').type).toBe('response')
  })
})
