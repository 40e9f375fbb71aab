/**
 * OpenTelemetry traces (docs/observability.md), from the trace SDK configured by OTEL_* variables, received
 * by a real OTLP/HTTP endpoint (JSON, and protobuf, the default); the backend sees the trace context (W3C traceparent).
 * vitest runs each test file in its own process, so the variables set here stay here.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { sendJson } from '@gatehouse/support'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tracingRequested, tracingSettings } from '../../src/telemetry/otel.js'
import { simpleConfig, startTestGatehouse } from '../helpers.js'

interface OtlpSpan {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  kind: number
  attributes: Array<{ key: string; value: Record<string, unknown> }>
}

async function readAll(req: IncomingMessage): Promise<string> {
  let s = ''
  for await (const c of req) s += String(c)
  return s
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return (server.address() as AddressInfo).port
}

const spans: OtlpSpan[] = []
const traceparents: string[] = []
/** The content type of each export the collector received. */
const exports: string[] = []
let collector: Server
/** The variables this file sets, and their values before it did. */
const OTEL_ENV = [
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  'OTEL_EXPORTER_OTLP_PROTOCOL',
  'OTEL_SERVICE_NAME',
] as const
const saved: Partial<Record<(typeof OTEL_ENV)[number], string>> = {}
let backend: Server

beforeAll(async () => {
  collector = createServer(async (req, res) => {
    exports.push(String(req.headers['content-type']))
    const text = await readAll(req)
    if (req.headers['content-type'] !== 'application/json') return sendJson(res, 200, {})
    const body = JSON.parse(text) as {
      resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }>
    }
    for (const rs of body.resourceSpans) for (const ss of rs.scopeSpans) spans.push(...ss.spans)
    sendJson(res, 200, {})
  })
  backend = createServer(async (req, res) => {
    traceparents.push(String(req.headers.traceparent ?? ''))
    await readAll(req)
    sendJson(res, 200, { jsonrpc: '2.0', id: 1, result: {} })
  })
  const collectorPort = await listen(collector)
  for (const name of OTEL_ENV) saved[name] = process.env[name]
  Object.assign(process.env, {
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${collectorPort}/v1/traces`,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_SERVICE_NAME: 'gatehouse-test',
  })
})
afterAll(async () => {
  // Put back: a gatehouse a later file starts in this process (a worker shared between files,
  // `isolate: false`) must not find this file's collector in its environment.
  for (const name of OTEL_ENV) {
    if (saved[name] === undefined) delete process.env[name]
    else process.env[name] = saved[name]
  }
  await new Promise((r) => collector.close(r))
  await new Promise((r) => backend.close(r))
})

function attr(span: OtlpSpan | undefined, key: string): unknown {
  const v = span?.attributes.find((a) => a.key === key)?.value
  return v ? Object.values(v)[0] : undefined
}

describe('OpenTelemetry traces', () => {
  it('is off unless an OTEL_* variable asks for traces', () => {
    expect(tracingRequested({})).toBe(false)
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toBe(true)
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'console' })).toBe(true)
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'none' })).toBe(false)
    expect(
      tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' }),
    ).toBe(false)
  })

  it('exports a server span with MCP attributes and a client span the backend is told about', async () => {
    const config = {
      ...simpleConfig(await listen(backend)),
      policies: {
        inspect: { targetRefs: [{ name: 'main' }], traffic: { mcpAuthorization: { rules: [] } } },
      },
    }
    const gh = await startTestGatehouse(config)
    const res = await fetch(`${gh.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        // The client's own trace: the gateway's span must continue it.
        traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'echo' },
      }),
    })
    expect(res.status).toBe(200)
    await res.text()
    await gh.stop('done') // flushes the batch of spans

    const server = spans.find((s) => s.kind === 2)
    const client = spans.find((s) => s.kind === 3)
    expect(server?.traceId).toBe('0af7651916cd43dd8448eb211c80319c')
    expect(server?.parentSpanId).toBe('b7ad6b7169203331')
    expect(server?.name).toBe('tools/call echo')
    expect(attr(server, 'mcp.method.name')).toBe('tools/call')
    expect(attr(server, 'gen_ai.tool.name')).toBe('echo')
    expect(attr(server, 'jsonrpc.request.id')).toBe('7')
    expect(Number(attr(server, 'http.response.status_code'))).toBe(200)
    expect(client?.parentSpanId).toBe(server?.spanId)
    expect(traceparents).toEqual([`00-${client?.traceId}-${client?.spanId}-01`])
    const access = gh.logs.find((l) => l.module === 'proxy::access')
    expect(access?.traceId).toBe('0af7651916cd43dd8448eb211c80319c')
  })

  it('exports OTLP/HTTP protobuf by default', async () => {
    const before = exports.length
    process.env.OTEL_EXPORTER_OTLP_PROTOCOL = ''
    try {
      const port = (backend.address() as AddressInfo).port
      const gh = await startTestGatehouse(simpleConfig(port))
      await (await fetch(`${gh.url}/mcp`, { method: 'POST', body: '{}' })).text()
      await gh.stop('done')
    } finally {
      process.env.OTEL_EXPORTER_OTLP_PROTOCOL = 'http/json'
    }
    expect(exports.slice(before)).toEqual(['application/x-protobuf'])
  })

  it('reads the exporter, protocol and propagators, and names what it does not support', () => {
    expect(tracingSettings({})).toEqual({
      exporters: ['otlp'],
      protocol: 'http/protobuf',
      propagators: ['tracecontext', 'baggage'],
    })
    expect(
      tracingSettings({
        OTEL_TRACES_EXPORTER: 'console, otlp',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
        OTEL_PROPAGATORS: 'none',
      }),
    ).toEqual({ exporters: ['console', 'otlp'], protocol: 'http/json', propagators: ['none'] })
    expect(() => tracingSettings({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(
      'OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported by gatehouse; use one of http/protobuf, http/json',
    )
    expect(() => tracingSettings({ OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(
      'OTEL_TRACES_EXPORTER=zipkin is not supported by gatehouse; use one of otlp, console, none',
    )
    expect(() => tracingSettings({ OTEL_PROPAGATORS: 'tracecontext,b3' })).toThrow(
      'OTEL_PROPAGATORS=b3 is not supported',
    )
  })
})
