import { describe, expect, it } from 'vitest'
import { accessLine, ShownText } from '../../src/telemetry/access-log.js'

const JWT = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0.c2lnbmF0dXJl'

const facts = {
  gateway: 'default',
  route: 'mcp',
  method: 'POST',
  path: '/mcp',
  status: 200,
  seconds: 0.0012345,
  outcome: { policy: 'allowed' } as const,
  client: '127.0.0.1',
}

describe('accessLine', () => {
  it('shows the chosen fields, the outcome and the auth failure of the explicit outcome', () => {
    expect(accessLine(facts, new ShownText())).toEqual({
      gateway: 'default',
      route: 'mcp',
      method: 'POST',
      path: '/mcp',
      status: 200,
      durationMs: 1.235,
      outcome: 'allowed',
      client: '127.0.0.1',
    })
    const refused = accessLine(
      { ...facts, status: 401, outcome: { policy: 'unauthenticated', authFailure: 'expired' } },
      new ShownText(),
    )
    expect(refused).toMatchObject({ outcome: 'unauthenticated', authFailure: 'expired' })
  })

  it('redacts each string a client chose, and leaves configuration names alone', () => {
    const line = accessLine(
      {
        ...facts,
        route: '',
        path: `/mcp/${JWT}`,
        subject: `Bearer ${JWT}`,
        backend: 'mcp-backend',
        mcp: [{ type: 'request', method: 'tools/call', id: `id ${JWT}`, tool: JWT }],
        mcpError: `not JSON: ${JWT}`,
        denied: [`tool:${JWT}`],
        rateLimited: ['per-user'],
      },
      new ShownText(),
    )
    expect(JSON.stringify(line)).not.toContain('eyJ')
    expect(line).toMatchObject({
      route: null,
      path: '/mcp/[redacted]',
      subject: 'Bearer [redacted]',
      backend: 'mcp-backend',
      mcp: { method: 'tools/call', id: 'id [redacted]', tool: '[redacted]' },
      mcpError: 'not JSON: [redacted]',
      denied: ['tool:[redacted]'],
      rateLimited: ['per-user'],
    })
  })
})

describe('ShownText', () => {
  it('gives the same redaction for a remembered string, and cuts a long one at 64 KiB', () => {
    const shown = new ShownText()
    expect(shown.of(`/a/${JWT}`)).toBe('/a/[redacted]')
    expect(shown.of(`/a/${JWT}`)).toBe('/a/[redacted]')
    const long = shown.of('x'.repeat(70_000))
    expect(long.length).toBeLessThan(66_000)
    expect(long).toContain('[truncated:')
  })
})
