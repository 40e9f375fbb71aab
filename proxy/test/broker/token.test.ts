/**
 * `POST <issuer>/oauth/token` in broker mode (docs/design/broker.md), against the real mock-idp: the
 * access token is the IdP's JWT (routes and `jwt.groups` rules unchanged); codes are one-time and
 * a replay revokes what they gave (RFC 6749 §4.1.2); PKCE is checked (RFC 7636 §4.6); refresh
 * tokens are the gateway's, rotated at each use; errors are RFC 6749 §5.2 JSON, never cached,
 * with CORS for browser clients.
 */
import { initializeBody } from '@gatehouse/mock-mcp'
import { decodeJwt } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pkce } from './browser.js'
import { obtainCode } from './flow.js'
import {
  authorizationUrl,
  type BrokerStack,
  DEMO_CLIENT,
  registerClient,
  startBrokerStack,
  tokenRequest,
} from './stack.js'

let stack: BrokerStack

beforeAll(async () => {
  stack = await startBrokerStack()
})
afterAll(async () => {
  await stack?.stop()
})

function redeem(
  o: { code: string; verifier?: string; redirectUri: string },
  extra: Record<string, string> = {},
) {
  return tokenRequest(stack, {
    grant_type: 'authorization_code',
    client_id: DEMO_CLIENT,
    code: o.code,
    redirect_uri: o.redirectUri,
    ...(o.verifier !== undefined ? { code_verifier: o.verifier } : {}),
    ...extra,
  })
}

function refresh(refreshToken: string) {
  return tokenRequest(stack, {
    grant_type: 'refresh_token',
    client_id: DEMO_CLIENT,
    refresh_token: refreshToken,
  })
}

async function mcpStatus(accessToken: string): Promise<number> {
  const res = await fetch(`${stack.issuer}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${accessToken}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: initializeBody('broker-test'),
  })
  await res.body?.cancel()
  return res.status
}

describe('broker /token, authorization_code', () => {
  it('gives the IdP’s access token for the user, which the route accepts for alice', async () => {
    const got = await obtainCode(stack, 'alice')
    const res = await redeem(got)
    expect(res.status).toBe(200)
    expect(res.headers.get('cache-control')).toBe('no-store')
    expect(res.body.token_type).toBe('Bearer')
    expect(res.body.expires_in).toBeGreaterThan(0)
    expect(res.body.refresh_token).toMatch(/^[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43}$/)
    const claims = decodeJwt(String(res.body.access_token))
    expect(claims.iss).toBe(stack.idp.issuer)
    expect(claims.aud).toBe('api://default')
    expect(claims.sub).toBe('alice')
    expect(claims.groups).toContain('AI-Users')
    expect(await mcpStatus(String(res.body.access_token))).toBe(200)
  })

  it('bob gets tokens too, and the route refuses them (403: not in AI-Users)', async () => {
    const got = await obtainCode(stack, 'bob')
    const res = await redeem(got)
    expect(res.status).toBe(200)
    expect(await mcpStatus(String(res.body.access_token))).toBe(403)
  })

  it('a replayed code is refused and revokes the refresh token it gave (RFC 6749 §4.1.2)', async () => {
    const got = await obtainCode(stack, 'alice')
    const first = await redeem(got)
    expect(first.status).toBe(200)
    const replay = await redeem(got)
    expect(replay.status).toBe(400)
    expect(replay.body.error).toBe('invalid_grant')
    expect(replay.headers.get('cache-control')).toBe('no-store')
    const refreshed = await refresh(String(first.body.refresh_token))
    expect(refreshed.status).toBe(400)
    expect(refreshed.body.error).toBe('invalid_grant')
  })

  it('of two concurrent redemptions of one code, at most one gets tokens', async () => {
    const got = await obtainCode(stack, 'alice')
    const results = await Promise.all([redeem(got), redeem(got), redeem(got)])
    expect(results.filter((r) => r.status === 200)).toHaveLength(1)
  })

  it('refuses a wrong code_verifier, and the code is spent by the try', async () => {
    const got = await obtainCode(stack, 'alice')
    const wrong = await redeem({ ...got, verifier: 'w'.repeat(43) })
    expect(wrong.status).toBe(400)
    expect(wrong.body.error).toBe('invalid_grant')
    const right = await redeem(got)
    expect(right.status).toBe(400)
    expect(right.body.error).toBe('invalid_grant')
  })

  it('refuses a missing code_verifier (PKCE required)', async () => {
    const got = await obtainCode(stack, 'alice')
    const res = await redeem({ code: got.code, redirectUri: got.redirectUri })
    expect(res.status).toBe(400)
    expect(res.body.error).toBe('invalid_grant')
    expect(String(res.body.error_description)).toContain('code_verifier')
  })

  it('refuses a redirect_uri other than the authorization request’s', async () => {
    const got = await obtainCode(stack, 'alice')
    const res = await redeem({ ...got, redirectUri: 'http://127.0.0.1:40000/other' })
    expect(res.status).toBe(400)
    expect(res.body.error).toBe('invalid_grant')
  })

  it('guessing codes gets one uniform invalid_grant and leaves real codes working', async () => {
    const got = await obtainCode(stack, 'alice')
    const guesses = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        redeem({
          code: `${got.code.slice(0, 40)}${String(i).padStart(3, '0')}`,
          verifier: got.verifier,
          redirectUri: got.redirectUri,
        }),
      ),
    )
    const shapes = new Set(
      guesses.map((g) => `${g.status} ${g.body.error} ${g.body.error_description}`),
    )
    expect([...shapes]).toEqual(['400 invalid_grant the authorization code is invalid or expired'])
    expect((await redeem(got)).status).toBe(200)
  })
})

describe('broker /token, refresh_token', () => {
  it('refreshes through the IdP, rotates the refresh token, and revokes the grant when an old one comes back', async () => {
    const got = await obtainCode(stack, 'alice')
    const first = await redeem(got)
    const r1 = String(first.body.refresh_token)
    const second = await refresh(r1)
    expect(second.status).toBe(200)
    const r2 = String(second.body.refresh_token)
    expect(r2).not.toBe(r1)
    expect(r2.split('.')[0]).toBe(r1.split('.')[0])
    expect(decodeJwt(String(second.body.access_token)).sub).toBe('alice')
    expect(await mcpStatus(String(second.body.access_token))).toBe(200)
    // The superseded token again: someone holds a copy, the whole grant goes.
    expect((await refresh(r1)).body.error).toBe('invalid_grant')
    expect((await refresh(r2)).body.error).toBe('invalid_grant')
  })

  it('refuses a malformed or unknown refresh token', async () => {
    for (const t of ['nonsense', `${'a'.repeat(43)}.${'b'.repeat(43)}`, 'a.b.c']) {
      const res = await refresh(t)
      expect(res.status, t).toBe(400)
      expect(res.body.error).toBe('invalid_grant')
    }
  })
})

describe('broker /token, requests', () => {
  it('answers RFC 6749 §5.2 errors as JSON, never cached', async () => {
    const unsupported = await tokenRequest(stack, {
      grant_type: 'password',
      client_id: DEMO_CLIENT,
    })
    expect(unsupported.status).toBe(400)
    expect(unsupported.body.error).toBe('unsupported_grant_type')
    expect(unsupported.headers.get('cache-control')).toBe('no-store')
    const noClient = await tokenRequest(stack, { grant_type: 'authorization_code', code: 'x' })
    expect(noClient.body.error).toBe('invalid_request')
    const unknown = await tokenRequest(stack, {
      grant_type: 'authorization_code',
      code: 'x',
      client_id: 'nobody',
    })
    expect(unknown.status).toBe(401)
    expect(unknown.body.error).toBe('invalid_client')
    const json = await fetch(stack.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'authorization_code' }),
    })
    expect(json.status).toBe(400)
    expect(((await json.json()) as { error: string }).error).toBe('invalid_request')
  })

  it('refuses a public client that authenticates with a secret it does not have', async () => {
    const basic = Buffer.from(`${DEMO_CLIENT}:guessed-secret`).toString('base64')
    const res = await tokenRequest(
      stack,
      { grant_type: 'authorization_code', code: 'x' },
      { authorization: `Basic ${basic}` },
    )
    expect(res.status).toBe(401)
    expect(res.body.error).toBe('invalid_client')
    expect(res.headers.get('www-authenticate')).toContain('Basic')
  })

  it('answers browser clients with CORS (MCP Inspector’s web UI calls it from its own origin)', async () => {
    const preflight = await fetch(stack.tokenUrl, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:6274',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('access-control-allow-origin')).toBeTruthy()
    const res = await tokenRequest(
      stack,
      { grant_type: 'password', client_id: DEMO_CLIENT },
      { origin: 'http://localhost:6274' },
    )
    expect(res.headers.get('access-control-allow-origin')).toBeTruthy()
  })
})

describe('broker flow with registered clients', () => {
  const exact = 'http://127.0.0.1:45001/cb'

  it('a registered client must use its redirect URI exactly: another loopback port is refused with a page', async () => {
    const { clientId } = await registerClient(stack, {
      redirect_uris: [exact],
      token_endpoint_auth_method: 'none',
      client_name: 'Exact <b>Client</b>',
    })
    for (const other of [
      'http://127.0.0.1:45002/cb',
      `${exact}/`,
      `${exact}?x=1`,
      'http://localhost:45001/cb',
    ]) {
      const res = await fetch(
        authorizationUrl(stack, {
          client_id: clientId,
          redirect_uri: other,
          state: 's',
          code_challenge: pkce().challenge,
          code_challenge_method: 'S256',
        }),
        { redirect: 'manual' },
      )
      expect(res.status, other).toBe(400)
      expect(res.headers.get('location'), other).toBeNull()
    }
    const ok = await fetch(
      authorizationUrl(stack, {
        client_id: clientId,
        redirect_uri: exact,
        state: 's',
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
      }),
      { redirect: 'manual' },
    )
    expect(ok.status).toBe(200)
    const page = await ok.text()
    expect(page).toContain('Exact &#60;b&#62;Client&#60;/b&#62;')
  })

  it('a code issued to one client is refused to another, and is spent', async () => {
    const a = await registerClient(stack, {
      redirect_uris: [exact],
      token_endpoint_auth_method: 'none',
    })
    const b = await registerClient(stack, {
      redirect_uris: [exact],
      token_endpoint_auth_method: 'none',
    })
    const got = await obtainCode(stack, 'alice', { clientId: a.clientId, redirectUri: exact })
    const stolen = await tokenRequest(stack, {
      grant_type: 'authorization_code',
      client_id: b.clientId,
      code: got.code,
      redirect_uri: exact,
      code_verifier: got.verifier,
    })
    expect(stolen.status).toBe(400)
    expect(stolen.body.error).toBe('invalid_grant')
    const own = await tokenRequest(stack, {
      grant_type: 'authorization_code',
      client_id: a.clientId,
      code: got.code,
      redirect_uri: exact,
      code_verifier: got.verifier,
    })
    expect(own.status).toBe(400)
  })

  it('client_secret_basic: the registered secret in Basic works; none, post or a wrong secret do not', async () => {
    const c = await registerClient(stack, {
      redirect_uris: [exact],
      token_endpoint_auth_method: 'client_secret_basic',
    })
    expect(c.clientSecret).toBeTruthy()
    const basic = (secret: string) => ({
      authorization: `Basic ${Buffer.from(`${encodeURIComponent(c.clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`,
    })
    const got = await obtainCode(stack, 'alice', { clientId: c.clientId, redirectUri: exact })
    const form = {
      grant_type: 'authorization_code',
      code: got.code,
      redirect_uri: exact,
      code_verifier: got.verifier,
    }
    const wrong = await tokenRequest(stack, form, basic('wrong'))
    expect(wrong.status).toBe(401)
    expect(wrong.headers.get('www-authenticate')).toContain('Basic')
    const asPost = await tokenRequest(stack, {
      ...form,
      client_id: c.clientId,
      client_secret: c.clientSecret ?? '',
    })
    expect(asPost.status).toBe(401)
    const asNone = await tokenRequest(stack, { ...form, client_id: c.clientId })
    expect(asNone.status).toBe(401)
    // Client authentication failed before the code was looked at: it is still good.
    const ok = await tokenRequest(stack, form, basic(c.clientSecret ?? ''))
    expect(ok.status).toBe(200)
    const refreshed = await tokenRequest(
      stack,
      { grant_type: 'refresh_token', refresh_token: String(ok.body.refresh_token) },
      basic(c.clientSecret ?? ''),
    )
    expect(refreshed.status).toBe(200)
  })

  it('client_secret_post: the registered secret in the body works; Basic does not', async () => {
    const c = await registerClient(stack, {
      redirect_uris: [exact],
      token_endpoint_auth_method: 'client_secret_post',
    })
    const got = await obtainCode(stack, 'alice', { clientId: c.clientId, redirectUri: exact })
    const form = {
      grant_type: 'authorization_code',
      code: got.code,
      redirect_uri: exact,
      code_verifier: got.verifier,
    }
    const basic = {
      authorization: `Basic ${Buffer.from(`${c.clientId}:${c.clientSecret}`).toString('base64')}`,
    }
    expect((await tokenRequest(stack, form, basic)).status).toBe(401)
    const ok = await tokenRequest(stack, {
      ...form,
      client_id: c.clientId,
      client_secret: c.clientSecret ?? '',
    })
    expect(ok.status).toBe(200)
  })
})
