/** The recording proxy over real HTTP: what it records, what it passes on, how a shaper acts. */
import { createServer, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Recorder, startRecorder } from '../../src/client/recorder.js'
import { Traffic } from '../../src/client/traffic.js'

let upstream: Server
let recorder: Recorder
const traffic = new Traffic()
/** The SSE answer the upstream holds open until the test lets it finish. */
let held: ServerResponse | undefined
const seen: Array<Record<string, string | string[] | undefined>> = []

beforeAll(async () => {
  upstream = createServer((req, res) => {
    seen.push({ ...req.headers })
    let body = ''
    req.on('data', (c) => {
      body += c
    })
    req.on('end', () => {
      if (req.url === '/sse') {
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        res.write('data: first\n\n')
        held = res
        return
      }
      res.writeHead(401, {
        'content-type': 'application/json',
        'www-authenticate': 'Bearer resource_metadata="http://gw.example/prm"',
        'set-cookie': ['a=1; Path=/', 'b=2; Path=/'],
      })
      res.end(JSON.stringify({ echoed: body }))
    })
  })
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r))
  recorder = await startRecorder('gateway', traffic)
  recorder.setUpstream((upstream.address() as AddressInfo).port)
})
afterAll(async () => {
  await recorder.stop()
  upstream.closeAllConnections()
  await new Promise((r) => upstream.close(r))
})

describe('startRecorder', () => {
  it('records request and answer whole, and passes both on unchanged (cookies apart, hop-by-hop dropped)', async () => {
    traffic.clear()
    const res = await fetch(`${recorder.origin}/mcp?x=1`, {
      method: 'POST',
      headers: {
        authorization: 'Bearer abc',
        connection: 'keep-alive',
        'content-type': 'text/plain',
      },
      body: 'hello',
    })
    expect(res.status).toBe(401)
    expect(res.headers.get('www-authenticate')).toBe(
      'Bearer resource_metadata="http://gw.example/prm"',
    )
    expect(res.headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2; Path=/'])
    expect(await res.json()).toEqual({ echoed: 'hello' })
    expect(seen.at(-1)?.authorization).toBe('Bearer abc')
    const [e] = traffic.entries
    expect(e).toMatchObject({
      seq: 1,
      side: 'gateway',
      method: 'POST',
      requestBody: 'hello',
      status: 401,
      responseBody: '{"echoed":"hello"}',
    })
    expect(e?.url.href).toBe(`${recorder.origin}/mcp?x=1`)
    expect(e?.requestHeaders.authorization).toBe('Bearer abc')
  })

  it('streams an answer as it comes (an SSE event arrives while the upstream still holds it open)', async () => {
    traffic.clear()
    const res = await fetch(`${recorder.origin}/sse`)
    const reader = res.body?.getReader()
    const first = await reader?.read()
    expect(new TextDecoder().decode(first?.value)).toBe('data: first\n\n')
    expect(traffic.entries[0]?.responseBody).toBe('data: first\n\n')
    held?.end('data: second\n\n')
    let rest = ''
    for (;;) {
      const chunk = await reader?.read()
      if (!chunk || chunk.done) break
      rest += new TextDecoder().decode(chunk.value)
    }
    expect(rest).toBe('data: second\n\n')
    expect(traffic.entries[0]?.responseBody).toBe('data: first\n\ndata: second\n\n')
  })

  it('lets a shaper answer itself, change the answer’s headers, and see the whole exchange after', async () => {
    traffic.clear()
    const answered: number[] = []
    recorder.setShaper({
      request: (e) =>
        e.url.pathname === '/gone'
          ? { status: 410, body: 'gone', note: 'answered 410' }
          : undefined,
      response(_e, headers) {
        headers['www-authenticate'] = 'Bearer'
        return 'challenge emptied'
      },
      answered: (e) => {
        answered.push(e.status)
      },
    })
    try {
      const gone = await fetch(`${recorder.origin}/gone`)
      expect(gone.status).toBe(410)
      expect(await gone.text()).toBe('gone')
      const reshaped = await fetch(`${recorder.origin}/mcp`, { method: 'POST', body: 'x' })
      expect(reshaped.headers.get('www-authenticate')).toBe('Bearer')
      await reshaped.text()
      await new Promise((r) => setTimeout(r, 20))
      expect(traffic.entries.map((e) => e.reshaped)).toEqual(['answered 410', 'challenge emptied'])
      expect(answered).toEqual([410, 401])
    } finally {
      recorder.setShaper(undefined)
    }
  })

  it('answers 502 and records no answer when the upstream is gone', async () => {
    traffic.clear()
    const lost = await startRecorder('idp', traffic)
    try {
      const s = createServer()
      await new Promise<void>((r) => s.listen(0, '127.0.0.1', r))
      lost.setUpstream((s.address() as AddressInfo).port)
      await new Promise((r) => s.close(r))
      const res = await fetch(`${lost.origin}/x`)
      expect(res.status).toBe(502)
      expect(traffic.entries[0]).toMatchObject({ side: 'idp', status: 0 })
    } finally {
      await lost.stop()
    }
  })
})
