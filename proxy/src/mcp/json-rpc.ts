// Over 300 lines but one job (reading the JSON-RPC body of POST /mcp): kept whole.
/**
 * The JSON-RPC 2.0 body of `POST /mcp`, read by the gateway (docs/auth.md): one message or a batch
 * (JSON-RPC 2.0 §6; MCP 2025-03-26 allowed batches, later revisions send one message per POST),
 * reduced to what policies need — the method, the request id, and the tool, prompt or resource a
 * request names. The body itself is forwarded unchanged; nothing here re-serializes it.
 *
 * What counts as a target (MCP 2025-06-18 Server Features): `tools/call` names a tool
 * (`params.name`), `prompts/get` a prompt (`params.name`), `resources/read`, `resources/subscribe`
 * and `resources/unsubscribe` a resource (`params.uri`), and `completion/complete` the prompt
 * (`params.ref`, `ref/prompt` with a `name`) or resource (`ref/resource` with a `uri`, which may
 * be a URI template) it completes an argument of (MCP 2025-06-18 Utilities, Completion; docs/design/hardening.md
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
  /** JSON-RPC 2.0 §5.1; MCP 2026-07-28 Streamable HTTP §Protocol Version Header (with 404). */
  methodNotFound: -32601,
  /**
   * MCP 2026-07-28 Streamable HTTP §Server Validation: `HeaderMismatch`, "-32020" (changelog minor
   * 12 renumbered it from the draft's -32001).
   */
  headerMismatch: -32020,
  /** MCP 2025-06-18 Resources, Error Handling: resource not found (2026-07-28: -32602). */
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
  /** `params._meta["io.modelcontextprotocol/protocolVersion"]` (MCP 2026-07-28), when a string. */
  version?: string
  /** Read under 2026-07-28 rules (see {@link ParseOptions}). */
  modern?: boolean
  /** A method 2026-07-28 removed, in a message read under its rules (era.ts). */
  removed?: boolean
  /** `params.taskId` of `tasks/get|update|cancel` (the `io.modelcontextprotocol/tasks` extension). */
  taskId?: string
  /**
   * `subscriptions/listen` (MCP 2026-07-28 Subscriptions §Notification Filter): the resource URIs
   * of `params.notifications.resourceSubscriptions`, each judged as a read of that resource.
   */
  resourceSubscriptions?: readonly string[]
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

/** How {@link parseMcpBody} reads messages. */
export interface ParseOptions {
  /**
   * The request says 2026-07-28 or later in `MCP-Protocol-Version`: every message is read under
   * that revision's rules (a message whose `_meta` says so is, whatever the header).
   */
  modern?: boolean
}

/** `_meta` key of the request's protocol version (MCP 2026-07-28 changelog, major change 2). */
export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion'

function metaVersion(params: unknown): string | undefined {
  const meta = isObject(params) ? params._meta : undefined
  const v = isObject(meta) ? meta[META_PROTOCOL_VERSION] : undefined
  return typeof v === 'string' ? v : undefined
}

/**
 * A message read under 2026-07-28 rules: a method that revision removed names no target (its
 * `resources/subscribe` is not judged by 2025 rules; era.ts answers it), and the
 * tasks extension's `taskId` is kept for `Mcp-Name`.
 */
function readModern(
  raw: Record<string, unknown>,
  message: { type: 'request' | 'notification'; id: JsonRpcId | undefined; method: string },
  version: string | undefined,
): McpMessage | undefined {
  const base = { ...message, target: undefined, modern: true, ...(version ? { version } : {}) }
  if (REMOVED_METHODS.has(message.method)) return { ...base, removed: true }
  if (message.method === 'subscriptions/listen') {
    const filter = isObject(raw.params) ? raw.params.notifications : undefined
    const uris = isObject(filter) ? filter.resourceSubscriptions : undefined
    if (!Array.isArray(uris)) return base
    // A URI that is not a string cannot be judged: it is judged as the empty name, which no
    // allow rule names (fail closed), rather than left out.
    return { ...base, resourceSubscriptions: uris.map((u) => (typeof u === 'string' ? u : '')) }
  }
  if (TASK_METHODS.has(message.method)) {
    const taskId = isObject(raw.params) ? raw.params.taskId : undefined
    return typeof taskId === 'string' ? { ...base, taskId } : base
  }
  return undefined
}

/**
 * MCP 2026-07-28 changelog, major changes 2, 4, 5 and 6: methods removed from the core protocol
 * (`initialize`, `ping`, `logging/setLevel`, `resources/subscribe`/`unsubscribe`; the tasks
 * extension removed `tasks/result` and `tasks/list`).
 */
export const REMOVED_METHODS: ReadonlySet<string> = new Set([
  'initialize',
  'notifications/initialized',
  'notifications/roots/list_changed',
  'ping',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
  'tasks/result',
  'tasks/list',
])

/** `io.modelcontextprotocol/tasks` (SEP-2663): methods whose `Mcp-Name` is `params.taskId`. */
export const TASK_METHODS: ReadonlySet<string> = new Set([
  'tasks/get',
  'tasks/update',
  'tasks/cancel',
])

/** Whether a protocol version is 2026-07-28 or later (`YYYY-MM-DD` compares as a string). */
export function isModernVersion(version: string | undefined): boolean {
  return version !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(version) && version >= '2026-07-28'
}

function readMessage(raw: unknown, options: ParseOptions = {}): McpMessage | McpBodyError {
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
  const version = metaVersion(raw.params)
  const modern = options.modern === true || isModernVersion(version)
  if (modern) {
    const read = readModern(raw, { type, id: id as JsonRpcId | undefined, method }, version)
    if (read) return read
  }
  const era = modern ? { modern: true } : {}
  const stamp = version !== undefined ? { version, ...era } : era
  if (method === COMPLETE && type === 'request') {
    const completion = readCompletion(raw, id as JsonRpcId)
    return isMcpBodyError(completion) ? completion : { ...completion, ...stamp }
  }
  const spec = TARGET_PARAM[method]
  if (!spec || type === 'notification') return { type, id, method, target: undefined, ...stamp }
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
  return { type, id, method, target, ...stamp }
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
export function parseMcpBody(body: Buffer, options: ParseOptions = {}): McpBody | McpBodyError {
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
    const message = readMessage(raw, options)
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
    const message = readMessage(item, options)
    if (isMcpBodyError(message)) return message
    messages.push(message)
  }
  return { batch: true, messages }
}

/** Whether {@link parseMcpBody} (or one message of the body) was refused. */
export function isMcpBodyError(v: McpBody | McpMessage | McpBodyError): v is McpBodyError {
  return 'code' in v
}

/** A JSON-RPC error response (§5), with `data` when given. */
export function rpcError(
  id: JsonRpcId | null | undefined,
  code: number,
  message: string,
  data?: Readonly<Record<string, unknown>>,
): {
  jsonrpc: '2.0'
  id: JsonRpcId | null
  error: { code: number; message: string; data?: Readonly<Record<string, unknown>> }
} {
  return {
    jsonrpc: '2.0',
    id: id ?? null,
    error: data === undefined ? { code, message } : { code, message, data },
  }
}
