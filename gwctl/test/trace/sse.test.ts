import { describe, expect, it } from 'vitest'
import { readSse, type SseMessage } from '../../src/trace/sse.js'

async function collect(chunks: string[]): Promise<SseMessage[]> {
  const body = (async function* () {
    for (const c of chunks) yield new TextEncoder().encode(c)
  })()
  const out: SseMessage[] = []
  for await (const m of readSse(body)) out.push(m)
  return out
}

describe('readSse', () => {
  it('yields event and data of each frame and skips comments', async () => {
    const msgs = await collect([
      ': waiting for the next request\n\n: keep-alive\n\n',
      'event: route_selected\ndata: {"a":1}\n\n',
    ])
    expect(msgs).toEqual([{ event: 'route_selected', data: '{"a":1}' }])
  })

  it('joins a frame split across chunks, also inside a CRLF line ending', async () => {
    const msgs = await collect(['event: resp', 'onse\r', '\ndata: {"status"', ':200}\r\n\r\n'])
    expect(msgs).toEqual([{ event: 'response', data: '{"status":200}' }])
  })

  it('joins several data lines with a newline and defaults the event name to message', async () => {
    const msgs = await collect(['data: one\ndata:two\n\n'])
    expect(msgs).toEqual([{ event: 'message', data: 'one\ntwo' }])
  })

  it('drops an incomplete frame at the end of the stream', async () => {
    const msgs = await collect(['event: a\ndata: 1\n\nevent: b\ndata: 2\n'])
    expect(msgs).toEqual([{ event: 'a', data: '1' }])
  })

  it('decodes a multi-byte character split between chunks', async () => {
    const bytes = new TextEncoder().encode('data: ✓\n\n')
    const body = (async function* () {
      yield bytes.slice(0, 7)
      yield bytes.slice(7)
    })()
    const out: SseMessage[] = []
    for await (const m of readSse(body)) out.push(m)
    expect(out).toEqual([{ event: 'message', data: '✓' }])
  })
})
