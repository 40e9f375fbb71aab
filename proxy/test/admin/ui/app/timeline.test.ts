import { describe, expect, it } from 'vitest'
import { matches, Timeline } from '../../../../src/admin/ui/app/timeline.js'
import type { TraceEvent } from '../../../../src/telemetry/trace-events.js'

let seq = 0
const ev = (requestId: string, type: string, data: unknown) =>
  ({
    requestId,
    seq: seq++,
    type,
    at: '2026-11-28T07:00:00.000Z',
    elapsedMs: 1,
    data,
  }) as TraceEvent

describe('Timeline', () => {
  it('folds a request into one row: route, auth decision with its rule, MCP tool, backend, status', () => {
    const t = new Timeline()
    t.add(
      ev('r1', 'request_started', {
        method: 'POST',
        path: '/mcp',
        gateway: 'default',
        headers: {},
      }),
    )
    t.add(
      ev('r1', 'route_selected', {
        route: 'mcp',
        rule: 0,
        match: { type: 'PathPrefix', value: '/mcp' },
      }),
    )
    t.add(
      ev('r1', 'authentication', {
        policy: 'auth',
        result: 'ok',
        issuer: 'i',
        subject: 'bob',
        claims: {},
      }),
    )
    t.add(
      ev('r1', 'authorization', {
        policy: 'auth',
        allowed: false,
        rules: [{ expression: '"AI-Users" in jwt.groups', matched: false }],
      }),
    )
    t.add(
      ev('r1', 'mcp_request', {
        batch: false,
        messages: [{ type: 'request', method: 'tools/call', id: 1, tool: 'echo' }],
      }),
    )
    t.add(
      ev('r1', 'request_finished', {
        status: 403,
        durationMs: 2,
        outcome: 'forbidden',
        authFailure: 'rules',
      }),
    )
    const [row] = t.rows()
    expect(row).toMatchObject({
      path: '/mcp',
      route: 'mcp[0]',
      user: 'bob',
      auth: 'bob: denied by auth rule "AI-Users" in jwt.groups',
      rule: '"AI-Users" in jwt.groups',
      mcp: 'tools/call',
      tool: 'echo',
      status: 403,
      done: true,
    })
  })

  it('says why a token was refused, keeps the newest requests first and at most its limit', () => {
    const t = new Timeline(2)
    for (const id of ['a', 'b', 'c']) {
      t.add(ev(id, 'request_started', { method: 'GET', path: `/${id}`, gateway: 'g', headers: {} }))
    }
    t.add(
      ev('c', 'authentication', {
        policy: 'p',
        result: 'failed',
        check: 'expired',
        reason: 'exp in the past',
      }),
    )
    expect(t.rows().map((r) => r.path)).toEqual(['/c', '/b'])
    expect(t.rows()[0]?.auth).toBe('token refused: expired — exp in the past (p)')
  })

  it('filters by path, user, tool and status or status class', () => {
    const row = {
      requestId: 'x',
      at: '',
      method: 'POST',
      path: '/mcp',
      gateway: 'g',
      user: 'alice',
      tool: 'echo',
      status: 403,
      done: true,
    }
    expect(matches(row, { path: '/mc', user: 'ALI', tool: 'ech', status: '4xx' })).toBe(true)
    expect(matches(row, { status: '403' })).toBe(true)
    expect(matches(row, { status: '5xx' })).toBe(false)
    expect(matches(row, { user: 'bob' })).toBe(false)
    expect(matches({ ...row, status: undefined }, { status: '4xx' })).toBe(false)
  })
})
