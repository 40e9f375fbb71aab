import { describe, expect, it } from 'vitest'
import { describeEvent } from '../../src/trace/describe.js'
import type { TraceEvent } from '../../src/trace/events.js'

function event(type: string, data: Record<string, unknown>): TraceEvent {
  return { requestId: 'req-1', seq: 0, type, at: '', elapsedMs: 0, data }
}

describe('describeEvent, MCP-aware policy events', () => {
  it('lists the messages of a request', () => {
    const d = describeEvent(
      event('mcp_request', {
        batch: false,
        messages: [{ type: 'request', method: 'tools/call', id: 3, tool: 'echo' }],
      }),
    )
    expect(d).toMatchObject({ label: 'mcp request', detail: '1 message', failed: false })
    expect(d.lines).toEqual([{ ok: undefined, text: 'tools/call echo (id 3)' }])
  })

  it('marks a refused body as failed', () => {
    expect(
      describeEvent(event('mcp_request', { error: 'Parse error', code: -32700 })),
    ).toMatchObject({ detail: 'Parse error', failed: true })
  })

  it('shows each authorization decision and fails the step on a denial', () => {
    const d = describeEvent(
      event('mcp_authorization', {
        decisions: [
          { method: 'tools/call', kind: 'tool', name: 'echo', allowed: true },
          { method: 'tools/call', kind: 'tool', name: 'fetch', allowed: false },
        ],
      }),
    )
    expect(d).toMatchObject({ label: 'mcp authorization', detail: '1 denied', failed: true })
    expect(d.lines.map((l) => l.ok)).toEqual([true, false])
  })

  it('shows a refused rate limit with its retry time and the limit that ran out', () => {
    const d = describeEvent(
      event('rate_limit', {
        admitted: false,
        retryAfterSec: 7,
        limits: [{ name: 'calls', maxTokens: 5, remaining: 0, exceeded: true }],
      }),
    )
    expect(d).toMatchObject({ detail: 'refused, retry after 7 s', failed: true })
    expect(d.lines).toEqual([{ ok: false, text: 'calls 0/5 left' }])
  })

  it('says how many items a list lost', () => {
    expect(describeEvent(event('mcp_list_filtered', { kind: 'tool', hidden: 2 })).detail).toBe(
      '2 tool item(s) hidden from a list',
    )
  })
})
