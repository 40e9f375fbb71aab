/** How `npm start` prints gatehouse's log (scripts/demo-log.ts). */
import { describe, expect, it } from 'vitest'
import { demoLogLine } from '../demo-log.js'

const access = (fields: Record<string, unknown>) =>
  JSON.stringify({
    level: 'info',
    time: '2026-11-25T17:00:00.000Z',
    name: 'gatehouse',
    module: 'proxy::access',
    gateway: 'default',
    route: 'mcp',
    method: 'POST',
    path: '/mcp',
    client: '127.0.0.1',
    msg: 'request',
    ...fields,
  })

describe('demoLogLine', () => {
  it('shows an access line as method, path, status, user, MCP method and tool, and ms', () => {
    const line = access({
      status: 200,
      durationMs: 3.214,
      outcome: 'allowed',
      subject: 'alice',
      mcp: { method: 'tools/call', id: 4, tool: 'echo' },
    })
    expect(demoLogLine(line)).toBe('[gatehouse] POST /mcp 200 alice tools/call echo 3.2 ms')
  })

  it('says why a request was refused, and - for no user', () => {
    expect(
      demoLogLine(
        access({
          status: 401,
          durationMs: 0.8,
          outcome: 'unauthenticated',
          authFailure: 'missing_token',
        }),
      ),
    ).toBe('[gatehouse] POST /mcp 401 (unauthenticated: missing_token) - 0.8 ms')
    expect(
      demoLogLine(
        access({
          status: 200,
          durationMs: 1,
          outcome: 'mcp_denied',
          subject: 'bob',
          mcp: { method: 'tools/call', id: 5, tool: 'fetch' },
          denied: ['tool:fetch'],
        }),
      ),
    ).toBe('[gatehouse] POST /mcp 200 (mcp_denied: tool:fetch) bob tools/call fetch 1.0 ms')
    expect(
      demoLogLine(
        access({
          method: 'GET',
          path: '/.well-known/oauth-protected-resource/mcp',
          status: 200,
          durationMs: 0.4,
          outcome: 'oauth_endpoint',
        }),
      ),
    ).toBe('[gatehouse] GET /.well-known/oauth-protected-resource/mcp 200 - 0.4 ms')
  })

  it('shows other lines as level, module and message, and a line that is not JSON as it is', () => {
    const listening = JSON.stringify({
      level: 'info',
      module: 'proxy::index',
      msg: 'gatehouse listening',
    })
    expect(demoLogLine(listening)).toBe('[gatehouse] info proxy::index gatehouse listening')
    expect(demoLogLine('not json')).toBe('[gatehouse] not json')
  })
})
