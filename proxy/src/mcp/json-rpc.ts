/**
 * The JSON-RPC 2.0 body of `POST /mcp`, read by the gateway (issue #14): one message or a batch
 * (JSON-RPC 2.0 §6; MCP 2025-03-26 allowed batches, later revisions send one message per POST),
 * reduced to what policies need — the method, the request id, and the tool, prompt or resource a
 * request names. The body itself is forwarded unchanged; nothing here re-serializes it.
 *
 * What counts as a target (MCP 2025-06-18 Server Features): `tools/call` names a tool
 * (`params.name`), `prompts/get` a prompt (`params.name`), `resources/read`, `resources/subscribe`
 * and `resources/unsubscribe` a resource (`params.uri`), and `completion/complete` the prompt
 * (`params.ref`, `ref/prompt` with a `name`) or resource (`ref/resource` with a `uri`, which may
 * be a URI template) it completes an argument of (MCP 2025-06-18 Utilities, Completion; issue #24
 * item 8). A targeted request without a string name or uri is refused: the gateway cannot
 * authorize what it cannot name.
 */

/** Bytes of a `POST /mcp` body the gateway reads; a larger body is refused with 413. */
export const MCP_MAX_BODY_BYTES = 4 * 1024 * 1024
/** Messages in one batch; a larger batch is refused with 400. */
export const MCP_MAX_BATCH = 100

/** JSON-RPC 2.0 §5.1 error codes, and the MCP ones the gateway answers with. */
export const RPC_ERROR = {
  parseError: -32700,
  invalidRequest: -32600,
  invalidParams: -32602,
  /** MCP draft (2026-07-28) Streamable HTTP, Server Validation: `HeaderMismatch`. */
  headerMismatch: -32001,
  /** MCP 2025-06-18 Resources, Error Handling: resource not found. */
  resourceNotFound: -32002,
} as const

/** A JSON-RPC id (§4: string or number; `null` only in an error answer). */
export type JsonRpcId = string | number

/** Kinds of target an MCP request can name. */
export type TargetKind = 'tool' | 'prompt' | 'resource'

/** The tool, prompt or resource one request names. */
export interface McpTarget {
  kind: TargetKind
  /** Tool or prompt name, or resource URI. */
  name: string
  /** `tools/call` arguments, when the request carries an object. */
  arguments?: Readonly<Record<string, unknown>>
}

/** One message of the body, as policies see it. */
export interface McpMessage {
  type: 'request' | 'notification' | 'response'
  /** The id of a request or response; `undefined` for a notification. */
  id: JsonRpcId | null | undefined
  /** The method; `''` for a response (the client answering a server request). */
  method: string
  target: McpTarget | undefined
}

/** The body, parsed. */
export interface McpBody {
  /** Whether the body was an array (a JSON-RPC batch). */
  batch: boolean
  messages: readonly McpMessage[]
}

/** Why a body was refused: a JSON-RPC error to answer with (HTTP 400). */
export interface McpBodyError {
  code: (typeof RPC_ERROR)[keyof typeof RPC_ERROR]
  message: string
  /** The id of the offending request, when it has one. */
  id: JsonRpcId | null
}

const TARGET_PARAM: Record<string, { kind: TargetKind; param: 'name' | 'uri' }> = {
  'tools/call': { kind: 'tool', param: 'name' },
  'prompts/get': { kind: 'prompt', param: 'name' },
  'resources/read': { kind: 'resource', param: 'uri' },
  'resources/subscribe': { kind: 'resource', param: 'uri' },
  'resources/unsubscribe': { kind: 'resource', param: 'uri' },
}

function isId(v: unknown): v is JsonRpcId {
  return typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v))
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function readMessage(raw: unknown): McpMessage | McpBodyError {
  if (!isObject(raw) || raw.jsonrpc !== '2.0') {
    return {
      code: RPC_ERROR.invalidRequest,
      message: 'Invalid Request: expected a JSON-RPC 2.0 object ("jsonrpc": "2.0")',
      id: isObject(raw) && isId(raw.id) ? raw.id : null,
    }
  }
  const id = raw.id
  if (id !== undefined && id !== null && !isId(id)) {
    return { code: RPC_ERROR.invalidRequest, message: 'Invalid Request: bad id', id: null }
  }
  if (typeof raw.method !== 'string') {
    if (('result' in raw || 'error' in raw) && id !== undefined) {
      return { type: 'response', id, method: '', target: undefined }
    }
    return {
      code: RPC_ERROR.invalidRequest,
      message: 'Invalid Request: a message needs a method, or a result or error',
      id: id ?? null,
    }
  }
  const method = raw.method
  if (id === null) {
    return { code: RPC_ERROR.invalidRequest, message: 'Invalid Request: id is null', id: null }
  }
  const type = id === undefined ? 'notification' : 'request'
  if (method === COMPLETE && type === 'request') return readCompletion(raw, id as JsonRpcId)
  const spec = TARGET_PARAM[method]
  if (!spec || type === 'notification') return { type, id, method, target: undefined }
  const params = raw.params
  const name = isObject(params) ? params[spec.param] : undefined
  if (typeof name !== 'string' || name.length === 0) {
    return {
      code: RPC_ERROR.invalidParams,
      message: `Invalid params: ${method} needs params.${spec.param} (a non-empty string)`,
      id: id ?? null,
    }
  }
  const target: McpTarget = { kind: spec.kind, name }
  if (spec.kind === 'tool' && isObject(params) && isObject(params.arguments)) {
    target.arguments = params.arguments
  }
  return { type, id, method, target }
}

/** MCP 2025-06-18 Utilities, Completion: the method that names a prompt or resource in `ref`. */
export const COMPLETE = 'completion/complete'

/** The references a completion may name, and the member that names each. */
const COMPLETION_REF: Record<string, { kind: TargetKind; param: 'name' | 'uri' }> = {
  'ref/prompt': { kind: 'prompt', param: 'name' },
  'ref/resource': { kind: 'resource', param: 'uri' },
}

/** A `completion/complete` request: its target is the prompt or resource of `params.ref`. */
function readCompletion(raw: Record<string, unknown>, id: JsonRpcId): McpMessage | McpBodyError {
  const ref = isObject(raw.params) ? raw.params.ref : undefined
  const spec = isObject(ref) && typeof ref.type === 'string' ? COMPLETION_REF[ref.type] : undefined
  const name = spec && isObject(ref) ? ref[spec.param] : undefined
  if (!spec || typeof name !== 'string' || name.length === 0) {
    return {
      code: RPC_ERROR.invalidParams,
      message: `Invalid params: ${COMPLETE} needs params.ref, {"type":"ref/prompt","name":…} or {"type":"ref/resource","uri":…}`,
      id,
    }
  }
  return { type: 'request', id, method: COMPLETE, target: { kind: spec.kind, name } }
}

/**
 * Parses a `POST /mcp` body.
 * @returns the messages, or the JSON-RPC error to refuse the body with.
 */
export function parseMcpBody(body: Buffer): McpBody | McpBodyError {
  let raw: unknown
  try {
    raw = JSON.parse(body.toString('utf8'))
  } catch (err) {
    return {
      code: RPC_ERROR.parseError,
      message: `Parse error: ${(err as Error).message}`,
      id: null,
    }
  }
  if (!Array.isArray(raw)) {
    const message = readMessage(raw)
    return isMcpBodyError(message) ? message : { batch: false, messages: [message] }
  }
  if (raw.length === 0) {
    return { code: RPC_ERROR.invalidRequest, message: 'Invalid Request: empty batch', id: null }
  }
  if (raw.length > MCP_MAX_BATCH) {
    return {
      code: RPC_ERROR.invalidRequest,
      message: `Invalid Request: a batch holds at most ${MCP_MAX_BATCH} messages, this one ${raw.length}`,
      id: null,
    }
  }
  const messages: McpMessage[] = []
  for (const item of raw) {
    const message = readMessage(item)
    if (isMcpBodyError(message)) return message
    messages.push(message)
  }
  return { batch: true, messages }
}

/** Whether {@link parseMcpBody} (or one message of the body) was refused. */
export function isMcpBodyError(v: McpBody | McpMessage | McpBodyError): v is McpBodyError {
  return 'code' in v
}

/** A JSON-RPC error response (§5). */
export function rpcError(
  id: JsonRpcId | null | undefined,
  code: number,
  message: string,
): { jsonrpc: '2.0'; id: JsonRpcId | null; error: { code: number; message: string } } {
  return { jsonrpc: '2.0', id: id ?? null, error: { code, message } }
}
