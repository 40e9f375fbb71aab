/**
 * A user's browser for the broker checks (`broker-flow.ts`): cookies per origin, one redirect at a
 * time, HTML forms posted as a browser posts them (hidden fields, the first named button, the
 * `Origin` its referrer policy gives). It plays the person through a broker's consent page and the
 * suite's IdP sign-in form, over the recording HTTP of the check.
 */
import { type CheckContext, CheckFailure, type HttpResult } from '../types.js'

/**
 * A user's browser: cookies per origin, one hop at a time, forms as a browser posts them. Its
 * URLs are the ones the user sees (the gateway's configured host); `wire` maps each to the address
 * the suite connects to, as DNS would.
 */
export class Browser {
  readonly #jar = new Map<string, Map<string, string>>()
  constructor(
    readonly ctx: CheckContext,
    readonly wire: (url: string) => string = (url) => url,
  ) {}

  async go(url: string, init: { form?: Record<string, string>; origin?: string } = {}) {
    const u = new URL(url)
    const jar = this.#jar.get(u.origin) ?? new Map<string, string>()
    this.#jar.set(u.origin, jar)
    const headers: Record<string, string> = {}
    if (jar.size > 0) headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ')
    if (init.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded'
      if (init.origin) headers.origin = init.origin
    }
    const res = await this.ctx.http(this.wire(url), {
      method: init.form ? 'POST' : 'GET',
      headers,
      redirect: 'manual',
      ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}),
    })
    for (const line of res.headers.getSetCookie()) {
      const pair = line.split(';')[0] ?? ''
      const eq = pair.indexOf('=')
      if (eq > 0) jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim())
    }
    const loc = res.headers.get('location')
    return { url: u, res, location: loc ? new URL(loc, u) : undefined }
  }

  /** Submits the page's first form: hidden fields, the first named button, plus `fields`. */
  async submit(page: { url: URL; res: HttpResult }, fields: Record<string, string> = {}) {
    const form = /<form\b([^>]*)>([\s\S]*?)<\/form>/i.exec(page.res.text)
    if (!form) throw new CheckFailure(`a form on ${page.url.pathname}`, page.res.text.slice(0, 200))
    const values: Record<string, string> = {}
    const body = form[2] ?? ''
    for (const m of body.matchAll(/<input\b([^>]*)>/gi)) {
      const name = attr(m[1] ?? '', 'name')
      if (name && attr(m[1] ?? '', 'type') === 'hidden')
        values[name] = attr(m[1] ?? '', 'value') ?? ''
    }
    const button = /<button\b([^>]*)>/i.exec(body)
    const bname = button ? attr(button[1] ?? '', 'name') : undefined
    if (bname) values[bname] = attr(button?.[1] ?? '', 'value') ?? ''
    const target = new URL(attr(form[1] ?? '', 'action') ?? page.url.toString(), page.url)
    const policy = page.res.headers.get('referrer-policy')
    const origin = policy === 'no-referrer' ? 'null' : page.url.origin
    return this.go(target.toString(), { form: { ...values, ...fields }, origin })
  }
}

function attr(tag: string, name: string): string | undefined {
  const m = new RegExp(`\\b${name}="([^"]*)"`, 'i').exec(tag)
  return m?.[1]
    ?.replace(/&#(\d+);/g, (_, c: string) => String.fromCharCode(Number(c)))
    .replace(/&amp;/g, '&')
}

/**
 * The user's part: /authorize → allow on the consent page → sign in as `login` at the
 * suite's IdP → back at `redirect`. Returns the authorization response.
 */
export async function authorizationResponse(
  ctx: CheckContext,
  url: string,
  redirect: string,
  login: string,
  wire?: (url: string) => string,
): Promise<URL> {
  const browser = new Browser(ctx, wire)
  let page = await browser.go(url)
  for (let hop = 0; hop < 15; hop++) {
    if (page.location?.toString().startsWith(redirect)) return page.location
    if (page.location) page = await browser.go(page.location.toString())
    else if (page.res.status === 200 && /name="login"/.test(page.res.text))
      page = await browser.submit(page, { login })
    else if (page.res.status === 200 && /<form\b/i.test(page.res.text))
      page = await browser.submit(page)
    else break
  }
  throw new CheckFailure(
    `the flow to come back to ${redirect}`,
    `HTTP ${page.res.status} at ${page.url.origin}${page.url.pathname}: ${page.res.text.slice(0, 200)}`,
  )
}
