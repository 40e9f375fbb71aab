/**
 * The headless side of an authorization-code flow: what a browser does between the client's
 * authorize URL and the redirect back to the client, for scripted tests. Follows redirects while
 * they stay on the IdP's origin, keeping its cookies (the login and consent interactions are
 * cookie-bound, as in a browser), and stops at the first redirect elsewhere.
 */
import { createHash, randomBytes } from 'node:crypto'

/**
 * @param authorizeUrl - the URL the client sent the user to
 * @param options.loginHint - a test user (added as `login_hint`; the IdP must be in test mode)
 * @returns the URL the IdP redirected to (the client's `redirect_uri?code=…&state=…`)
 * @throws Error when the IdP answers anything but a redirect (an error page, a login form)
 */
export async function authorizeHeadless(
  authorizeUrl: string | URL,
  options: { loginHint?: string } = {},
): Promise<URL> {
  let url = new URL(authorizeUrl)
  if (options.loginHint) url.searchParams.set('login_hint', options.loginHint)
  const origin = url.origin
  const cookies = new Map<string, string>()
  for (let hop = 0; hop < 10; hop++) {
    const res = await fetch(url, {
      redirect: 'manual',
      headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
    })
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';')
      const eq = pair?.indexOf('=') ?? -1
      if (pair && eq > 0) cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim())
    }
    const location = res.headers.get('location')
    if (res.status < 300 || res.status >= 400 || !location) {
      throw new Error(
        `authorize did not redirect (HTTP ${res.status}): ${(await res.text()).slice(0, 300)}`,
      )
    }
    const next = new URL(location, url)
    if (next.origin !== origin) return next
    url = next
  }
  throw new Error('too many redirects at the IdP')
}

/**
 * A whole authorization-code flow with PKCE (RFC 7636, S256) at one of the IdP's issuers, headless
 * ({@link authorizeHeadless}): the access token a public client gets for `loginHint`.
 * @param issuer - the authorization server's issuer (`<issuer>/v1/authorize`, `<issuer>/v1/token`)
 * @throws Error when the IdP gives no code or no access token
 */
export async function accessTokenHeadless(
  issuer: string,
  client: { clientId: string; redirectUri: string; scope: string; loginHint: string },
): Promise<string> {
  const verifier = randomBytes(32).toString('base64url')
  const authorize = new URL(`${issuer}/v1/authorize`)
  authorize.search = new URLSearchParams({
    client_id: client.clientId,
    response_type: 'code',
    redirect_uri: client.redirectUri,
    scope: client.scope,
    state: randomBytes(8).toString('hex'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString()
  const back = await authorizeHeadless(authorize, { loginHint: client.loginHint })
  const code = back.searchParams.get('code')
  if (!code) throw new Error(`no code in ${back}`)
  const res = await fetch(`${issuer}/v1/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: client.redirectUri,
      client_id: client.clientId,
      code_verifier: verifier,
    }),
  })
  const body = (await res.json()) as { access_token?: string }
  if (!body.access_token) throw new Error(`no access token: ${JSON.stringify(body)}`)
  return body.access_token
}
