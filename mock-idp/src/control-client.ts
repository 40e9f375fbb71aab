/** A typed client of mock-idp's control API (test mode). */
import type { TokenRequestBody } from './control.js'

/** What `POST /__control/token` accepts (see the README's control API). */
export type TokenRequest = TokenRequestBody

async function call<T>(url: string, method: string, body?: unknown): Promise<T> {
  const res = await fetch(url, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  if (!res.ok) throw new Error(`mock-idp control ${method} ${url}: HTTP ${res.status} ${text}`)
  return JSON.parse(text) as T
}

/** Control API bound to a `controlUrl` (`<org>/__control`). */
export function controlClient(controlUrl: string) {
  return {
    token: (req: TokenRequest = {}) =>
      call<{
        access_token: string
        header: Record<string, unknown>
        claims: Record<string, unknown>
      }>(`${controlUrl}/token`, 'POST', req),
    rotateKeys: (opts: { keepOld?: boolean; authServer?: string } = {}) =>
      call<{ kid: string }>(`${controlUrl}/keys/rotate`, 'POST', opts),
    setFault: (f: {
      endpoint: 'jwks' | 'discovery' | 'registration' | 'token' | 'introspection' | 'userinfo'
      mode: 'error' | 'hang' | 'slow' | 'ok'
      status?: number
      delayMs?: number
    }) => call<unknown>(`${controlUrl}/faults`, 'POST', f).then(() => undefined),
    clearFaults: () => call<unknown>(`${controlUrl}/faults`, 'DELETE').then(() => undefined),
    registrations: () =>
      call<Array<{ at: string; headers: Record<string, string>; body: unknown; status: number }>>(
        `${controlUrl}/registrations`,
        'GET',
      ),
    requests: () =>
      call<Array<{ method: string; path: string; query: string; at: string }>>(
        `${controlUrl}/requests`,
        'GET',
      ),
    clearRequests: () => call<unknown>(`${controlUrl}/requests`, 'DELETE').then(() => undefined),
    reset: () => call<unknown>(`${controlUrl}/reset`, 'POST').then(() => undefined),
  }
}
