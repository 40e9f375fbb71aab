import { describe, expect, it } from 'vitest'
import { parseTraceEvent } from '../../src/trace/events.js'

const JWT = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl'

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

  it('redacts a token the proxy left in the data (an older proxy)', () => {
    const e = parseTraceEvent(
      'request_started',
      JSON.stringify({ data: { headers: { authorization: JWT, 'x-api-key': 'k-123' } } }),
    )
    expect(e.data).toEqual({ headers: { authorization: '[redacted]', 'x-api-key': '[redacted]' } })
  })

  it('takes the type from the SSE event name when the payload has none', () => {
    expect(parseTraceEvent('response', '{"data":{"status":200}}').type).toBe('response')
  })
})
