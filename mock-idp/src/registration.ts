/**
 * Org-level Dynamic Client Registration, `POST /oauth2/v1/clients`, as the bridged IdP has it: an
 * `Authorization: SSWS <api token>` is required (401 in the provider's style without it), and no
 * CORS headers are sent, preflight included: the gaps the gateway's registration endpoint bridges.
 * With `registration: 'open'` no token is needed (RFC 7591 open registration).
 */
import { randomBytes, randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { sendJson } from '@gatehouse/support'
import { readBody } from './http.js'
import type { Store } from './store.js'

/** One registration request as received (authorization redacted). */
export interface RecordedRegistration {
  at: string
  headers: Record<string, string>
  body: unknown
  status: number
}

/** What registration needs from the running IdP. */
export interface RegistrationContext {
  apiToken: string
  /** RFC 7591 open registration: no API token needed. */
  open: boolean
  /** Every request is recorded here (the control API lists them). */
  registrations: RecordedRegistration[]
  store: Store
  /** Registered clients join the clients allowed any loopback redirect URI. */
  loopbackClients: Set<string>
  /** oidc-provider's client metadata validation; throws with a message on invalid metadata. */
  validate(metadata: Record<string, unknown>): Promise<void>
}

/** Handles a request to the org-level registration endpoint. */
export async function handleRegistration(
  ctx: RegistrationContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  // No CORS headers here, preflight included: the gap the gateway bridges.
  if (req.method === 'OPTIONS') {
    res.writeHead(204, { allow: 'POST' })
    res.end()
    return
  }
  if (req.method !== 'POST')
    return sendJson(
      res,
      405,
      { errorCode: 'E0000022', errorSummary: 'Method not allowed' },
      { allow: 'POST' },
    )
  let raw = ''
  try {
    raw = await readBody(req)
  } catch {
    return sendJson(res, 413, { errorCode: 'E0000001', errorSummary: 'Request too large' })
  }
  const headers: Record<string, string> = {}
  for (const [k, v] of Object.entries(req.headers)) {
    if (typeof v !== 'string') continue
    headers[k] = k === 'authorization' ? v.replace(/^(SSWS|Bearer)\s+.+$/i, '$1 <redacted>') : v
  }
  let body: unknown = raw
  try {
    body = raw ? JSON.parse(raw) : undefined
  } catch {}
  const record = (status: number) =>
    ctx.registrations.push({ at: new Date().toISOString(), headers, body, status })
  if (!ctx.open && req.headers.authorization !== `SSWS ${ctx.apiToken}`) {
    record(401)
    return sendJson(res, 401, {
      errorCode: 'E0000011',
      errorSummary: 'Invalid token provided',
      errorLink: 'E0000011',
      errorId: `oae${randomUUID().replace(/-/g, '').slice(0, 20)}`,
      errorCauses: [],
    })
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    record(400)
    return sendJson(res, 400, {
      error: 'invalid_client_metadata',
      error_description: 'the body must be a JSON object',
    })
  }
  const m = body as Record<string, unknown>
  const authMethod =
    typeof m.token_endpoint_auth_method === 'string'
      ? m.token_endpoint_auth_method
      : 'client_secret_basic'
  const metadata: Record<string, unknown> = {
    application_type: 'native' as const,
    grant_types: ['authorization_code'],
    response_types: ['code'] as const,
    ...m,
    token_endpoint_auth_method: authMethod,
    client_id: `0oa${randomUUID().replace(/-/g, '').slice(0, 17)}`,
    client_id_issued_at: Math.floor(Date.now() / 1000),
    ...(authMethod === 'none' ? {} : { client_secret: randomBytes(32).toString('base64url') }),
  }
  try {
    await ctx.validate(metadata)
  } catch (err) {
    record(400)
    return sendJson(res, 400, {
      error: 'invalid_client_metadata',
      error_description: (err as Error).message,
    })
  }
  await new (ctx.store.adapterClass())('Client').upsert(String(metadata.client_id), metadata)
  ctx.loopbackClients.add(String(metadata.client_id))
  record(201)
  sendJson(res, 201, metadata)
}
