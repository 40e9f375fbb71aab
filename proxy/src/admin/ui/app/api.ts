/**
 * What the page reads and calls, in one place. On the admin address: the existing endpoints
 * (`/config_dump`, `/debug/trace?follow=1`, `/metrics`, `/logging`, `/reload`, `/debug/pprof/*`)
 * and the debugger's relay; on a gateway: the read-only view's own documents under its path.
 * Every request is same-origin, so the admin's browser guard lets it through. No DOM here.
 */
import type { RelayAnswer, RelayAsk } from './oauth-flow.js'

/** How the page was served (the `data-` attributes of its body, assets.ts). */
export interface PageInfo {
  mode: 'admin' | 'gateway' | 'callback'
  /** The page's path, `/ui` or `ui.path`. */
  base: string
  version: string
  /** Gateway view: the trace is offered. */
  trace: boolean
}

/** An answer that was not 2xx: its status and body text. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`${status}: ${body.trim().slice(0, 300)}`)
  }
}

/** GET (or another method) and the body as text; throws {@link HttpError} on a non-2xx. */
export async function call(url: string, init: RequestInit = {}): Promise<string> {
  const res = await fetch(url, init)
  const body = await res.text()
  if (!res.ok) throw new HttpError(res.status, body)
  return body
}

/** GET and parse JSON. */
export async function getJson<T>(url: string): Promise<T> {
  return JSON.parse(await call(url)) as T
}

/** Sends one request through the admin's relay (relay.ts) and returns the exchange. */
export async function relayed(base: string, ask: RelayAsk): Promise<RelayAnswer> {
  const res = await fetch(`${base}/relay`, {
    method: 'POST',
    headers: { 'content-type': 'application/vnd.gatehouse.relay+json' },
    body: JSON.stringify({ headers: {}, ...ask }),
  })
  const text = await res.text()
  if (!res.ok) throw new HttpError(res.status, text)
  return JSON.parse(text) as RelayAnswer
}
