/**
 * `mcpAuthorization` on prompts and resources (docs/observability.md), through gatehouse to a real MCP SDK
 * server (stateless Streamable HTTP) that has both, and back to the SDK client; plus what reaches
 * a plain HTTP backend: the body byte for byte, and nothing of a refused batch.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { sendJson } from '@gatehouse/support'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { GatehouseConfigInput } from '../../src/config/schema.js'
import { simpleConfig, startTestGatehouse, type TestGatehouse } from '../helpers.js'

/** A stateless MCP server with two prompts and two resources (one of each is secret). */
function mcpServer(): McpServer {
  const server = new McpServer({ name: 'prompts-and-resources', version: '0.0.0' })
  for (const name of ['greet', 'secret_prompt']) {
    server.registerPrompt(name, { description: name }, () => ({
      messages: [{ role: 'user', content: { type: 'text', text: `prompt ${name}` } }],
    }))
  }
  for (const uri of ['file:///public.txt', 'secret://api-key']) {
    server.registerResource(uri, uri, { mimeType: 'text/plain' }, () => ({
      contents: [{ uri, text: `content of ${uri}` }],
    }))
  }
  return server
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return (server.address() as AddressInfo).port
}

async function readAll(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const c of req) chunks.push(c as Buffer)
  return Buffer.concat(chunks)
}

let sdkBackend: Server
let rawBackend: Server
const rawBodies: Buffer[] = []
let gh: TestGatehouse
let ghRaw: TestGatehouse

function withPolicy(port: number, rules: unknown[]): GatehouseConfigInput {
  return {
    ...simpleConfig(port),
    policies: {
      tools: {
        targetRefs: [{ name: 'main' }],
        traffic: { mcpAuthorization: { rules } as never },
      },
    },
  }
}

beforeAll(async () => {
  sdkBackend = createServer(async (req, res) => {
    if (req.method !== 'POST') {
      // Stateless: no standalone stream, no session to delete (MCP 2025-06-18 Transports).
      res.writeHead(405, { allow: 'POST' }).end()
      return
    }
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined })
    const server = mcpServer()
    res.on('close', () => {
      void transport.close()
      void server.close()
    })
    await server.connect(transport)
    await transport.handleRequest(req, res, JSON.parse((await readAll(req)).toString()))
  })
  rawBackend = createServer(async (req, res) => {
    rawBodies.push(await readAll(req))
    sendJson(res, 200, { jsonrpc: '2.0', id: 1, result: {} })
  })
  gh = await startTestGatehouse(
    withPolicy(await listen(sdkBackend), [
      { deny: 'mcp.prompt.name.startsWith("secret")' },
      { deny: 'mcp.resource.uri.startsWith("secret://")' },
    ]),
  )
  ghRaw = await startTestGatehouse(
    withPolicy(await listen(rawBackend), [{ deny: 'mcp.tool.name == "drop_table"' }]),
  )
})
afterAll(async () => {
  await gh.stop('done')
  await ghRaw.stop('done')
  await new Promise((r) => sdkBackend.close(r))
  await new Promise((r) => rawBackend.close(r))
})

async function client(): Promise<Client> {
  const c = new Client({ name: 'prompts-resources-test', version: '0.0.0' })
  await c.connect(new StreamableHTTPClientTransport(new URL(`${gh.url}/mcp`)))
  return c
}

describe('mcpAuthorization on prompts and resources', () => {
  it('hides a denied prompt and a denied resource from their lists', async () => {
    const c = await client()
    expect((await c.listPrompts()).prompts.map((p) => p.name)).toEqual(['greet'])
    expect((await c.listResources()).resources.map((r) => r.uri)).toEqual(['file:///public.txt'])
    await c.close()
  })

  it('refuses prompts/get of a denied prompt and resources/read of a denied resource', async () => {
    const c = await client()
    const prompt = await c.getPrompt({ name: 'secret_prompt' }).catch((e: unknown) => e)
    expect(prompt).toMatchObject({ code: -32602 })
    const resource = await c.readResource({ uri: 'secret://api-key' }).catch((e: unknown) => e)
    expect(resource).toMatchObject({ code: -32002 })
    expect((await c.readResource({ uri: 'file:///public.txt' })).contents).toEqual([
      { uri: 'file:///public.txt', text: 'content of file:///public.txt' },
    ])
    await c.close()
  })
})

describe('what reaches the backend', () => {
  function post(body: string): Promise<Response> {
    return fetch(`${ghRaw.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body,
    })
  }

  it('receives the body exactly as the client sent it, whitespace and key order included', async () => {
    rawBodies.length = 0
    const body =
      '{ "params": {"name":"echo", "arguments": {"text":"é ☃"}},\n  "method":"tools/call","id":1,"jsonrpc":"2.0" }'
    const res = await post(body)
    expect(res.status).toBe(200)
    await res.text()
    expect(rawBodies.map((b) => b.toString('utf8'))).toEqual([body])
  })

  it('receives nothing of a batch with a denied call; the client gets an error for each request', async () => {
    rawBodies.length = 0
    const res = await post(
      JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo' } },
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'drop_table' } },
      ]),
    )
    expect(res.status).toBe(200)
    const answers = (await res.json()) as Array<{ id: number; error: { code: number } }>
    expect(answers.map((a) => [a.id, a.error.code])).toEqual([
      [1, -32000],
      [2, -32602],
    ])
    expect(rawBodies).toEqual([])
  })

  it('receives nothing of a body that is not JSON-RPC', async () => {
    rawBodies.length = 0
    const res = await post('{"jsonrpc":"2.0","id":1,"method":')
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ error: { code: -32700 } })
    expect(rawBodies).toEqual([])
  })
})
