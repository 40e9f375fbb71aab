/**
 * docs/reliability.md: long-lived event streams must not starve ordinary requests. Every MCP session
 * holds a GET event stream; with one capped pool per backend, stream 129 and every request after
 * it hung. Liveness bounds only: figures (5,000 streams, latency, RSS) are in bench/streams.ts.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { simpleConfig, startTestGatehouse, type TestGatehouse } from '../helpers.js'
import {
  eventually,
  gatewayConnections,
  INITIALIZE,
  openStreams,
  type StreamBackend,
  startStreamBackend,
} from './helpers.js'

const STREAMS = 1000

const cleanups: Array<() => Promise<unknown> | unknown> = []
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.()
})

async function setUp(
  extra: { admin?: boolean } = {},
): Promise<{ backend: StreamBackend; gh: TestGatehouse }> {
  const backend = await startStreamBackend()
  cleanups.push(() => backend.close())
  const config = simpleConfig(backend.port)
  if (extra.admin) config.config = { adminAddr: '127.0.0.1:0' }
  const gh = await startTestGatehouse(config)
  cleanups.push(() => gh.stop())
  return { backend, gh }
}

function initialize(url: string): Promise<Response> {
  return fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: INITIALIZE,
    signal: AbortSignal.timeout(10_000),
  })
}

describe('event streams through one gateway', () => {
  it(`answers a fresh initialize while ${STREAMS} event streams are open to the same backend`, async () => {
    const { backend, gh } = await setUp()
    const streams = await openStreams(`${gh.url}/mcp`, STREAMS)
    cleanups.push(() => {
      for (const s of streams) s.abort()
    })
    expect(streams.every((s) => s.status === 200)).toBe(true)
    await backend.waitForStreams(STREAMS, 30_000)
    const res = await initialize(gh.url)
    expect(res.status).toBe(200)
    expect(res.headers.get('mcp-session-id')).toBe('session-1')
    expect(((await res.json()) as { result: unknown }).result).toEqual({
      protocolVersion: '2025-06-18',
    })
  }, 90_000)

  it(`leaves no socket open, at the gateway or the backend, once ${STREAMS} streams are aborted`, async () => {
    const { backend, gh } = await setUp({ admin: true })
    const admin = gh.adminUrl as string
    const streams = await openStreams(`${gh.url}/mcp`, STREAMS)
    await backend.waitForStreams(STREAMS, 30_000)
    expect(await gatewayConnections(admin)).toBe(STREAMS)
    for (const s of streams) s.abort()
    await eventually(async () => backend.streams === 0, 'the backend saw every stream end', 20_000)
    await eventually(
      async () => (await backend.connections()) === 0,
      'no connection left to the backend',
      20_000,
    )
    await eventually(
      async () => (await gatewayConnections(admin)) === 0,
      'no client connection left at the gateway',
      20_000,
    )
  }, 90_000)
})
