import { describe, expect, it } from 'vitest'
import { TRACE_EVENT_TYPES } from '../../src/telemetry/trace-events.js'

describe('TRACE_EVENT_TYPES', () => {
  it('names each event type once, from request_started to request_finished', () => {
    expect(new Set(TRACE_EVENT_TYPES).size).toBe(TRACE_EVENT_TYPES.length)
    expect(TRACE_EVENT_TYPES[0]).toBe('request_started')
    expect(TRACE_EVENT_TYPES.at(-1)).toBe('request_finished')
    expect(TRACE_EVENT_TYPES).toContain('mcp_session')
  })
})
