/**
 * A scripted browser for the broker tests: real HTTP, a cookie jar (per origin, honouring
 * Max-Age=0 deletions), redirects followed one hop at a time, and HTML forms submitted as a
 * browser submits them (hidden fields kept, the button's name/value added). It plays the user
 * through the gateway's consent page and mock-idp's sign-in form.
 */
import { createHash, randomBytes } from 'node:crypto'
import { Agent, fetch as undiciFetch } from 'undici'

/** A PKCE pair (RFC 7636, S256). */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url')
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') }
}

/** A response with its body read. */
export interface Page {
  url: URL
  status: number
  headers: Headers
  text: string
  /** The redirect target, resolved, for a 3xx. */
  location: URL | undefined
}

/** A browser with cookies. */
export class TestBrowser {
  /** origin → name → value */
  readonly jar = new Map<string, Map<string, string>>()
  readonly #dispatcher: Agent | undefined

  /**
   * @param options.localAddress the loopback address this browser connects from (e.g.
   *   `127.0.0.2`, another client address than the tests' 127.0.0.1)
   */
  constructor(options: { localAddress?: string } = {}) {
    this.#dispatcher = options.localAddress
      ? new Agent({ localAddress: options.localAddress })
      : undefined
  }

  cookies(origin: string): Map<string, string> {
    let m = this.jar.get(origin)
    if (!m) {
      m = new Map()
      this.jar.set(origin, m)
    }
    return m
  }

  /** One request, no redirect followed. */
  async request(
    url: string | URL,
    init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {},
  ): Promise<Page> {
    const u = new URL(url)
    const jar = this.cookies(u.origin)
    const headers: Record<string, string> = { ...init.headers }
    if (jar.size > 0) headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ')
    let body: string | undefined
    if (init.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded'
      body = new URLSearchParams(init.form).toString()
    }
    const request = { method: init.method ?? 'GET', headers, body, redirect: 'manual' } as const
    const res = this.#dispatcher
      ? ((await undiciFetch(u, {
          ...request,
          dispatcher: this.#dispatcher,
        })) as unknown as Response)
      : await fetch(u, request)
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';')
      const eq = pair?.indexOf('=') ?? -1
      if (!pair || eq <= 0) continue
      const name = pair.slice(0, eq).trim()
      const deleted = attrs.some((a) => /^\s*max-age\s*=\s*0\s*$/i.test(a))
      if (deleted) jar.delete(name)
      else jar.set(name, pair.slice(eq + 1).trim())
    }
    const loc = res.headers.get('location')
    return {
      url: u,
      status: res.status,
      headers: res.headers,
      text: await res.text(),
      location: loc ? new URL(loc, u) : undefined,
    }
  }

  /**
   * Follows redirects from `url` until a page that is not a redirect, or a redirect to a URL for
   * which `stop` says true (returned unfollowed, like a native client's loopback listener).
   */
  async follow(url: string | URL, stop: (to: URL) => boolean = () => false): Promise<Page> {
    let page = await this.request(url)
    for (let hop = 0; hop < 20; hop++) {
      if (!page.location || page.status < 300 || page.status >= 400 || stop(page.location))
        return page
      page = await this.request(page.location)
    }
    throw new Error('too many redirects')
  }

  /** Submits the page's first form with its hidden fields plus `fields`, then follows. */
  async submit(
    page: Page,
    fields: Record<string, string>,
    stop?: (to: URL) => boolean,
  ): Promise<Page> {
    const form = /<form\b([^>]*)>([\s\S]*?)<\/form>/i.exec(page.text)
    if (!form)
      throw new Error(`no form on ${page.url} (HTTP ${page.status}): ${page.text.slice(0, 300)}`)
    const action = attr(form[1] ?? '', 'action')
    const values: Record<string, string> = {}
    for (const m of (form[2] ?? '').matchAll(/<input\b([^>]*)>/gi)) {
      const name = attr(m[1] ?? '', 'name')
      if (name && attr(m[1] ?? '', 'type') === 'hidden')
        values[name] = attr(m[1] ?? '', 'value') ?? ''
    }
    const target = new URL(action ?? page.url.toString(), page.url)
    const res = await this.request(target, {
      method: 'POST',
      form: { ...values, ...fields },
      headers: { origin: formOrigin(page, target) },
    })
    if (!res.location || stop?.(res.location)) return res
    return this.follow(res.location, stop)
  }
}

/**
 * The `Origin` a browser sends with a form POST (Fetch, "append a request Origin header"): the
 * page's origin, or `null` when the page's referrer policy is `no-referrer`, or `same-origin`
 * and the form posts to another origin.
 */
function formOrigin(page: Page, target: URL): string {
  const policy = page.headers.get('referrer-policy')?.split(',').pop()?.trim()
  if (policy === 'no-referrer') return 'null'
  if (policy === 'same-origin' && target.origin !== page.url.origin) return 'null'
  return page.url.origin
}

function attr(tag: string, name: string): string | undefined {
  const m = new RegExp(`\\b${name}="([^"]*)"`, 'i').exec(tag)
  return m?.[1]
    ?.replace(/&#(\d+);/g, (_, c: string) => String.fromCharCode(Number(c)))
    .replace(/&amp;/g, '&')
}

/**
 * The user's part of the broker flow: open the client's authorization URL, allow on the consent
 * page (unless consent is remembered), sign in at mock-idp's form as `login`, and come back.
 * @returns the redirect to the client (`redirect_uri?code=…&state=…&iss=…`), unfollowed
 */
export async function signInThroughBroker(
  browser: TestBrowser,
  authorizeUrl: string | URL,
  login: string,
  redirectUri: string,
): Promise<URL> {
  const toClient = (to: URL) => to.toString().startsWith(redirectUri)
  let page = await browser.follow(authorizeUrl, toClient)
  if (page.status === 200 && page.text.includes('name="decision"')) {
    page = await browser.submit(page, { decision: 'approve' }, toClient)
  }
  if (page.status === 200 && page.text.includes('name="login"')) {
    page = await browser.submit(page, { login }, toClient)
  }
  if (!page.location || !toClient(page.location)) {
    throw new Error(
      `the flow did not return to the client (HTTP ${page.status} at ${page.url}): ${page.text.slice(0, 400)}`,
    )
  }
  return page.location
}
