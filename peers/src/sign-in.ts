/**
 * The person at the browser, for every peer: in Chromium, approves the gateway's consent page
 * (broker mode; MCP security best practices, "Confused Deputy") and signs in at mock-idp's form by
 * picking a user — the pages a person sees, clicked as a person would — until the browser is sent
 * back to the client.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Page } from 'playwright-core'

/** Options of {@link completeSignIn}. */
export interface SignInOptions {
  /** The mock-idp user to sign in as (`alice` is in AI-Users, `bob` is not). */
  user: string
  /** Whether the browser is back at the client (its redirect URI, or its own UI). */
  done(url: URL): boolean
  /** Pages to get through before giving up (consent, IdP form, and redirects between). */
  maxSteps?: number
}

/** Where the sign-in could not go on: the page's URL and text say why. */
export class SignInError extends Error {
  override readonly name = 'SignInError'
  constructor(
    message: string,
    readonly url: string,
    readonly pageText: string,
  ) {
    super(`${message} at ${url}: ${pageText.replace(/\s+/g, ' ').trim().slice(0, 300)}`)
  }
}

/** Clicks `button` and waits for the navigation it starts (the form posts, then redirects). */
async function submit(page: Page, click: () => Promise<void>): Promise<void> {
  await Promise.all([page.waitForNavigation({ waitUntil: 'domcontentloaded' }), click()])
}

/**
 * Drives the sign-in from the page's current URL (already at the authorization endpoint) until
 * {@link SignInOptions.done}: on the gateway's consent page it clicks "Allow"
 * (`button[name=decision][value=approve]`), on mock-idp's page it picks the user and submits.
 * Any other page ends it with a {@link SignInError} carrying that page's text (an error page of
 * the gateway or the IdP).
 */
export async function completeSignIn(page: Page, options: SignInOptions): Promise<void> {
  const maxSteps = options.maxSteps ?? 8
  for (let step = 0; step < maxSteps; step++) {
    await page.waitForLoadState('domcontentloaded')
    if (options.done(new URL(page.url()))) return
    const approve = page.locator('button[name="decision"][value="approve"]')
    const login = page.locator('select[name="login"]')
    if ((await approve.count()) > 0) {
      await submit(page, () => approve.first().click())
    } else if ((await login.count()) > 0) {
      await login.selectOption(options.user)
      await submit(page, () => page.locator('form button[type="submit"]').first().click())
    } else {
      throw new SignInError(
        'sign-in stopped on a page with neither consent nor sign-in',
        page.url(),
        await page
          .locator('body')
          .innerText({ timeout: 5_000 })
          .catch(() => ''),
      )
    }
  }
  throw new SignInError(
    `sign-in did not return to the client within ${maxSteps} pages`,
    page.url(),
    '',
  )
}

/** A client's loopback redirect URI that a browser really reaches (RFC 8252 §7.3). */
export interface LoopbackCallback {
  /** `http://127.0.0.1:<port>/callback`. */
  redirectUri: string
  /** The next request's full URL (code, state, iss), once the browser arrives. */
  next(): Promise<URL>
  close(): Promise<void>
}

/**
 * Listens on a free loopback port for the authorization response, as a native app does
 * (RFC 8252 §7.3), and answers the browser with a short page.
 */
export async function startLoopbackCallback(): Promise<LoopbackCallback> {
  const waiting: Array<(url: URL) => void> = []
  const arrived: URL[] = []
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host ?? '127.0.0.1'}`)
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    res.end('<!doctype html><title>Signed in</title><p>You can close this window.</p>')
    if (url.pathname !== '/callback') return
    const resolve = waiting.shift()
    if (resolve) resolve(url)
    else arrived.push(url)
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as AddressInfo
  return {
    redirectUri: `http://127.0.0.1:${port}/callback`,
    next() {
      const first = arrived.shift()
      return first ? Promise.resolve(first) : new Promise((resolve) => waiting.push(resolve))
    },
    close() {
      server.closeAllConnections()
      return new Promise((resolve) => server.close(() => resolve()))
    },
  }
}
