import { once } from 'node:events'
import { PassThrough, type Readable } from 'node:stream'
import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { filterResponseBody } from '../../src/mcp/response-filter.js'

const visible = (_kind: string, name: string) => !name.startsWith('secret')

const toolsResult = (id: number) => ({
  jsonrpc: '2.0',
  id,
  result: { tools: [{ name: 'echo' }, { name: 'secret_admin' }, { name: 'fetch' }] },
})

async function collect(stream: Readable): Promise<string> {
  let out = ''
  for await (const chunk of stream) out += String(chunk)
  return out
}

function sseEvents(text: string): unknown[] {
  return text
    .split(/\r?\n\r?\n/)
    .filter((e) => e.includes('data:'))
    .map((e) =>
      JSON.parse(
        e
          .split(/\r?\n/)
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(5).trim())
          .join('\n'),
      ),
    )
}

describe('filterResponseBody, text/event-stream', () => {
  it('removes hidden tools from the targeted list response and keeps the event id', async () => {
    const source = new PassThrough()
    const headers: Record<string, string> = {
      'content-type': 'text/event-stream',
      'content-length': '999',
    }
    const hidden: Array<[string, number]> = []
    const out = filterResponseBody(source, headers, 200, {
      visible,
      onHidden: (kind, n) => hidden.push([kind, n]),
    })
    source.end(`event: message\nid: ev-1\ndata: ${JSON.stringify(toolsResult(1))}\n\n`)
    const text = await collect(out)
    expect(headers['content-length']).toBeUndefined()
    expect(text).toContain('event: message\nid: ev-1\n')
    expect(sseEvents(text)).toEqual([
      { jsonrpc: '2.0', id: 1, result: { tools: [{ name: 'echo' }, { name: 'fetch' }] } },
    ])
    expect(hidden).toEqual([['tool', 1]])
  })

  it('sends each event as soon as it is complete, without waiting for the stream to end', async () => {
    const source = new PassThrough()
    const out = filterResponseBody(source, { 'content-type': 'text/event-stream' }, 200, {
      visible,
    })
    const progress = { jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } }
    source.write(`data: ${JSON.stringify(progress)}\n\n`)
    const [first] = (await once(out, 'data')) as [Buffer]
    expect(String(first)).toBe(`data: ${JSON.stringify(progress)}\n\n`)
    source.end(`data: ${JSON.stringify(toolsResult(1))}\n\n`)
    const rest = await collect(out)
    expect(rest).not.toContain('secret_admin')
  })

  it('filters whatever the chunk boundaries, CRLF line ends included', async () => {
    const event = `id: 7\r\ndata: ${JSON.stringify(toolsResult(1))}\r\n\r\n`
    const tail =
      'data: {"jsonrpc":"2.0","method":"notifications/message","params":{"x":"é"}}\r\n\r\n'
    const whole = Buffer.from(event + tail)
    for (let cut = 1; cut < whole.length; cut += 7) {
      const source = new PassThrough()
      const out = filterResponseBody(source, { 'content-type': 'text/event-stream' }, 200, {
        visible,
      })
      source.write(whole.subarray(0, cut))
      source.end(whole.subarray(cut))
      const text = await collect(out)
      expect(text, `cut at ${cut}`).not.toContain('secret_admin')
      expect(text, `cut at ${cut}`).toContain('"fetch"')
      expect(text, `cut at ${cut}`).toContain('id: 7\n')
      expect(text.endsWith(tail), `cut at ${cut}`).toBe(true)
    }
  })

  it('leaves events that hold no list byte for byte', async () => {
    const source = new PassThrough()
    const out = filterResponseBody(source, { 'content-type': 'text/event-stream' }, 200, {
      visible,
    })
    // Formatted as the backend formatted it: a result without a list, a notification.
    const other =
      'data: {"jsonrpc":"2.0", "id":2, "result":{"content":[{"type":"text","text":"secret_x"}]}}\n\n' +
      'data: {"jsonrpc":"2.0",  "method":"notifications/message","params":{"data":"result"}}\n\n'
    source.end(other + `data: ${JSON.stringify(toolsResult(1))}\n\n`)
    const text = await collect(out)
    expect(text.startsWith(other)).toBe(true)
    expect(text.slice(other.length)).not.toContain('secret_admin')
  })

  it('filters a list whatever id it answers (docs/design/hardening.md: ids may repeat)', async () => {
    for (const id of ['1', 0, 99]) {
      const source = new PassThrough()
      const out = filterResponseBody(source, { 'content-type': 'text/event-stream' }, 200, {
        visible,
      })
      const prompts = { jsonrpc: '2.0', id, result: { prompts: [{ name: 'secret_p' }] } }
      source.end(`data: ${JSON.stringify(prompts)}\n\n`)
      expect(sseEvents(await collect(out))).toEqual([
        { jsonrpc: '2.0', id, result: { prompts: [] } },
      ])
    }
  })

  it('drops an event that may hold a result but does not parse, keeping its id', async () => {
    const source = new PassThrough()
    const out = filterResponseBody(source, { 'content-type': 'text/event-stream' }, 200, {
      visible,
    })
    const broken = `id: 9\ndata: ${JSON.stringify(toolsResult(1)).slice(0, -1)}\n\n`
    source.end(`${broken}data: "no list here"\n\n`)
    expect(await collect(out)).toBe('id: 9\n\ndata: "no list here"\n\n')
  })

  it('hides items it cannot name, and resources by uri', async () => {
    const source = new PassThrough()
    const out = filterResponseBody(source, { 'content-type': 'text/event-stream' }, 200, {
      visible,
    })
    const list = {
      jsonrpc: '2.0',
      id: 3,
      result: { resources: [{ uri: 'file:///ok' }, { uri: 'secret://x' }, { name: 'no uri' }] },
    }
    source.end(`data: ${JSON.stringify(list)}\n\n`)
    expect(sseEvents(await collect(out))).toEqual([
      { jsonrpc: '2.0', id: 3, result: { resources: [{ uri: 'file:///ok' }] } },
    ])
  })

  it('cuts the stream off when an event outgrows the bound before the list went by', async () => {
    const source = new PassThrough()
    const out = filterResponseBody(source, { 'content-type': 'text/event-stream' }, 200, {
      visible,
      maxMessageBytes: 64,
    })
    source.write(`data: ${'x'.repeat(100)}`)
    const [err] = (await once(out, 'error')) as [Error]
    expect(err.message).toContain('above 64 bytes')
  })
})

describe('filterResponseBody, application/json', () => {
  it('filters a single JSON response and a batch of them', async () => {
    for (const payload of [
      toolsResult(1),
      [toolsResult(1), { jsonrpc: '2.0', id: 2, result: {} }],
    ]) {
      const source = new PassThrough()
      const headers: Record<string, string> = { 'content-type': 'application/json' }
      const out = filterResponseBody(source, headers, 200, {
        visible,
      })
      source.end(JSON.stringify(payload))
      const text = await collect(out)
      expect(text).not.toContain('secret_admin')
      expect(text).toContain('"fetch"')
    }
  })

  it('passes a body that holds no list unchanged, formatting included', async () => {
    const source = new PassThrough()
    const out = filterResponseBody(
      source,
      { 'content-type': 'application/json; charset=utf-8' },
      200,
      { visible },
    )
    const original = '{ "jsonrpc": "2.0", "id": 1, "result": { "content": [ {"type": "text"} ] } }'
    source.end(original)
    expect(await collect(out)).toBe(original)
  })

  it('decodes a gzip body and sends it filtered and unencoded', async () => {
    for (const encoding of ['gzip', 'x-gzip']) {
      const source = new PassThrough()
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        'content-encoding': encoding,
      }
      const out = filterResponseBody(source, headers, 200, { visible })
      source.end(gzipSync(JSON.stringify(toolsResult(1))))
      const text = await collect(out)
      expect(JSON.parse(text).result.tools).toEqual([{ name: 'echo' }, { name: 'fetch' }])
      expect(headers['content-encoding']).toBeUndefined()
    }
  })

  it('cuts off a body that does not decode as its content-encoding says', async () => {
    const source = new PassThrough()
    const out = filterResponseBody(
      source,
      { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      200,
      { visible },
    )
    source.end(JSON.stringify(toolsResult(1)))
    const [err] = (await once(out, 'error')) as [Error]
    expect(err.message).toContain('does not decode')
  })

  it('refuses a content-encoding it cannot decode with 502, before anything is sent', () => {
    const source = new PassThrough()
    expect(() =>
      filterResponseBody(
        source,
        { 'content-type': 'application/json', 'content-encoding': 'gzip, x-custom' },
        200,
        { visible },
      ),
    ).toThrow(
      expect.objectContaining({ status: 502, message: expect.stringContaining('"x-custom"') }),
    )
    expect(source.destroyed).toBe(true)
    // Codings stacked past two are refused too: each would be another decoder to run.
    expect(() =>
      filterResponseBody(
        new PassThrough(),
        { 'content-type': 'application/json', 'content-encoding': 'gzip, gzip, gzip' },
        200,
        { visible },
      ),
    ).toThrow(expect.objectContaining({ status: 502 }))
  })

  it('passes an empty body, and a non-JSON error page, unchanged', async () => {
    for (const [status, payload] of [
      [200, ''],
      [404, 'Not Found'],
    ] as const) {
      const source = new PassThrough()
      const out = filterResponseBody(source, { 'content-type': 'text/plain' }, status, { visible })
      source.end(payload)
      expect(await collect(out)).toBe(payload)
    }
  })
})

// A parser that keeps the first of two equal keys would read what JSON.parse dropped.
describe('filterResponseBody, duplicate keys', () => {
  const twice =
    '{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"secret_admin"}]},"result":{"tools":[]}}'

  it('re-serializes a JSON body that may hold a list, so every parser reads what was judged', async () => {
    const source = new PassThrough()
    const out = filterResponseBody(source, { 'content-type': 'application/json' }, 200, {
      visible,
    })
    source.end(twice)
    expect(await collect(out)).toBe('{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}')
  })

  it('re-serializes such an event too', async () => {
    const source = new PassThrough()
    const out = filterResponseBody(source, { 'content-type': 'text/event-stream' }, 200, {
      visible,
    })
    source.end(`id: 3\ndata: ${twice}\n\n`)
    expect(await collect(out)).toBe(
      'id: 3\ndata: {"jsonrpc":"2.0","id":1,"result":{"tools":[]}}\n\n',
    )
  })
})
