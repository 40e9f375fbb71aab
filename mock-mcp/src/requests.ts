/**
 * The requests a test or a demo sends to an MCP endpoint by hand (without the SDK client), in one
 * place so every caller sends the same thing.
 */

/**
 * The seed's sample `initialize` request: JSON-RPC 2.0, MCP protocol version `2024-11-05`, no
 * capabilities.
 *
 * @param clientName - `clientInfo.name`, so the backend's logs tell callers apart.
 */
export function initializeBody(clientName = 'gatehouse-test'): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2024-11-05',
      capabilities: {},
      clientInfo: { name: clientName, version: '0' },
    },
  })
}

/** Options of {@link initializeRequest}. */
export interface InitializeRequestOptions {
  /** Sent as `Authorization: Bearer <token>` when given. */
  bearer?: string | undefined
  /** More request headers; they win over the defaults. */
  headers?: Record<string, string>
  /** `clientInfo.name`; see {@link initializeBody}. */
  clientName?: string
}

/**
 * `fetch` options for `POST /mcp` with {@link initializeBody}: JSON body, both response types
 * accepted as Streamable HTTP requires (MCP 2025-06-18, Transports), and the bearer token if any.
 */
export function initializeRequest(options: InitializeRequestOptions = {}): RequestInit {
  return {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(options.bearer !== undefined ? { authorization: `Bearer ${options.bearer}` } : {}),
      ...options.headers,
    },
    body: initializeBody(options.clientName),
  }
}
