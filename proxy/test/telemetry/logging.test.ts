import { Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { createLogging, safeLine } from '../../src/telemetry/logging.js'

const JWT = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl'

function capture(): { lines: string[]; destination: Writable } {
  const lines: string[] = []
  const destination = new Writable({
    write(chunk, _enc, cb) {
      lines.push(...String(chunk).split('\n').filter(Boolean))
      cb()
    },
  })
  return { lines, destination }
}

describe('createLogging', () => {
  it('redacts credentials in any field, header object, URL, error or message', () => {
    const { lines, destination } = capture()
    const log = createLogging({ filter: 'trace', destination }).logger('proxy::dataplane')
    log.info(
      {
        headers: { authorization: `Bearer\t${JWT}`, 'x-api-key': 'k-live-1', accept: '*/*' },
        upstream: { headers: { cookie: 'sid=s-1' } },
        url: '/callback?code=auth-code-1&state=s1',
        err: new Error(`refused ${JWT}`),
        client_secret: 'cs-1',
      },
      `request with Authorization: ${JWT}`,
    )
    expect(lines).toHaveLength(1)
    const line = lines[0] ?? ''
    for (const secret of ['c2lnbmF0dXJl', 'k-live-1', 's-1', 'auth-code-1', 'cs-1'])
      expect(line).not.toContain(secret)
    expect(JSON.parse(line)).toMatchObject({
      headers: { authorization: '[redacted]', 'x-api-key': '[redacted]', accept: '*/*' },
      url: '/callback?code=[redacted]&state=s1',
      msg: 'request with Authorization: [redacted]',
    })
  })

  it('passes a line marked safe as built, without the marker, and redacts an unmarked twin', () => {
    const { lines, destination } = capture()
    const log = createLogging({ destination }).logger('proxy::access')
    // A safe line is the caller's word that it holds no secret: here it is tested with one, to
    // see that the generic pass really is skipped (the access line redacts its own fields).
    log.info(safeLine({ note: `Bearer ${JWT}` }), 'request')
    log.info({ note: `Bearer ${JWT}` }, 'request')
    expect(lines.map((l) => JSON.parse(l).note)).toEqual([`Bearer ${JWT}`, 'Bearer [redacted]'])
    expect(lines[0]).not.toContain('safe-line')
  })

  it('writes a safe line whole exactly as pino writes it: same fields, same order', () => {
    const { lines, destination } = capture()
    const logging = createLogging({ destination })
    const line = {
      gateway: 'default',
      route: null,
      path: '/mcp "quoted"\ttab \u2028 é',
      status: 200,
      durationMs: 1.234,
      upstreamMs: Number.NaN,
      client: undefined,
      mcp: { method: 'tools/call', id: 7, tool: 'echo' },
      denied: ['tool:x'],
      hidden: {},
    }
    logging.logger('proxy::access').info(safeLine({ ...line }), 'request')
    logging.safeLines('proxy::access').write(line, 'request')
    expect(lines).toHaveLength(2)
    const [viaPino, whole] = lines.map((l) => l.replace(/"time":"[^"]+"/, '"time":""'))
    expect(whole).toBe(viaPino)
  })

  it('reports safe lines enabled as the module filter says, also after a change', () => {
    const logging = createLogging({ destination: capture().destination })
    const access = logging.safeLines('proxy::access')
    expect(access.enabled).toBe(true)
    logging.setFilter('info,proxy::access=off')
    expect(access.enabled).toBe(false)
    logging.setFilter('warn')
    expect(access.enabled).toBe(false)
    logging.setFilter('warn,proxy::access=info')
    expect(access.enabled).toBe(true)
  })

  it('stamps every line with the ISO time of its millisecond', () => {
    const { lines, destination } = capture()
    const log = createLogging({ destination }).logger('proxy::access')
    const before = Date.now()
    log.info('one')
    log.info('two')
    const after = Date.now()
    for (const line of lines) {
      const { time } = JSON.parse(line) as { time: string }
      expect(time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
      expect(Date.parse(time)).toBeGreaterThanOrEqual(before)
      expect(Date.parse(time)).toBeLessThanOrEqual(after)
    }
  })
})
