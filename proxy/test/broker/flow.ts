/** Steps of the broker flow the tests share: obtain a gateway code as a user would. */
import { expect } from 'vitest'
import { pkce, signInThroughBroker, TestBrowser } from './browser.js'
import { authorizationUrl, type BrokerStack } from './stack.js'

/** What a client holds after the authorization response. */
export interface Obtained {
  code: string
  state: string
  verifier: string
  redirectUri: string
  /** The whole redirect back to the client. */
  back: URL
  browser: TestBrowser
}

/** Runs authorize → consent → mock-idp sign-in → callback for `login`; returns the code. */
export async function obtainCode(
  stack: BrokerStack,
  login: string,
  options: { clientId?: string; redirectUri?: string; browser?: TestBrowser; scope?: string } = {},
): Promise<Obtained> {
  const { verifier, challenge } = pkce()
  const state = `st-${Math.random().toString(36).slice(2)}`
  const redirectUri = options.redirectUri ?? 'http://127.0.0.1:33418/callback'
  const browser = options.browser ?? new TestBrowser()
  const url = authorizationUrl(stack, {
    ...(options.clientId ? { client_id: options.clientId } : {}),
    redirect_uri: redirectUri,
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...(options.scope ? { scope: options.scope } : {}),
  })
  const back = await signInThroughBroker(browser, url, login, redirectUri)
  expect(back.searchParams.get('error'), back.toString()).toBeNull()
  const code = back.searchParams.get('code')
  if (!code) throw new Error(`no code in ${back}`)
  return { code, state, verifier, redirectUri, back, browser }
}
