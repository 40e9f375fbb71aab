/**
 * What MCP revisions a target announces, for the default of `--spec-version` (spec-version.ts):
 * the `supportedVersions` of a 2026-07-28 `server/discover` (MCP 2026-07-28 Versioning: "Servers
 * MUST implement server/discover") and the `protocolVersion` its `initialize` answers to a
 * 2025-11-25 client (MCP 2025-11-25 Lifecycle, version negotiation). Both with a token of the
 * suite's IdP, as a client would send them.
 */
import { initializeBody, modernRequest } from '@gatehouse/mock-mcp'
import { messagesOf } from './catalogue/modern.js'
import type { Target } from './types.js'

const TIMEOUT_MS = 10_000

/**
 * The revisions `target` announces, or `undefined` when neither probe got an answer that names
 * one (then the run judges every selectable revision).
 */
export async function announcedRevisions(target: Target): Promise<string[] | undefined> {
  let bearer: string
  try {
    bearer = (await target.idp.control.token({ sub: 'alice' })).access_token
  } catch {
    return undefined
  }
  const url = `${target.base}/mcp`
  const found = new Set<string>()
  const answer = async (init: RequestInit) => {
    try {
      const res = await fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) })
      const messages = messagesOf(res.headers.get('content-type'), await res.text())
      return { res, result: messages.find((m) => 'result' in m)?.result }
    } catch {
      return undefined
    }
  }
  const discovered = await answer(modernRequest('server/discover', { bearer }))
  const supported = discovered?.result?.supportedVersions
  if (Array.isArray(supported)) {
    for (const v of supported) if (typeof v === 'string') found.add(v)
  }
  const body = JSON.parse(initializeBody('gatehouse-conformance'))
  body.params.protocolVersion = '2025-11-25'
  const initialized = await answer({
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${bearer}`,
    },
    body: JSON.stringify(body),
  })
  const version = initialized?.result?.protocolVersion
  if (typeof version === 'string') found.add(version)
  const session = initialized?.res.headers.get('mcp-session-id')
  if (session) {
    // The probe's session is ended at once (MCP 2025-11-25 Transports, Session Management).
    await fetch(url, {
      method: 'DELETE',
      headers: {
        authorization: `Bearer ${bearer}`,
        'mcp-session-id': session,
        'mcp-protocol-version': typeof version === 'string' ? version : '2025-11-25',
      },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    }).catch(() => undefined)
  }
  return found.size > 0 ? [...found] : undefined
}
