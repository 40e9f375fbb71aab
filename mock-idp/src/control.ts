/**
 * The test-only control API under `/__control` (enabled in test mode only): mint tokens —
 * including hostile ones — rotate keys, inject endpoint faults, list what the IdP received.
 */
import {
  createHmac,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  randomUUID,
} from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { sendJson } from '@gatehouse/support'
import { type JWTPayload, SignJWT } from 'jose'
import type { KeyRing } from './keys.js'
import type { FaultEndpoint } from './options.js'
import { type ShapeLayout, shapeClaims } from './shapes.js'
import type { Store } from './store.js'

/** An authorization server as the control API sees it. */
export interface ControlServer {
  id: string
  audience: string
  issuer: string
  keys: KeyRing
  /** Another IdP's shape: minted tokens take its claims layout, as its flow's tokens do. */
  layout?: ShapeLayout | undefined
}

/** What the control API needs from the running IdP. */
export interface ControlContext {
  servers: Map<string, ControlServer>
  users: Map<string, { login: string; groups: string[]; email?: string }>
  faults: Map<FaultEndpoint, { mode: 'error' | 'hang' | 'slow'; status?: number; delayMs?: number }>
  hanging: Set<ServerResponse>
  requests: unknown[]
  registrations: unknown[]
  store: Store
  publicClientId: string
  serviceClient: { clientId: string; clientSecret: string }
  /** Rotates the RSA signing key of a server; returns the new `kid`. */
  rotate(serverId: string, keepOld: boolean): Promise<string>
}

/** Body of `POST /__control/token`. */
export interface TokenRequestBody {
  sub?: string
  client?: 'service'
  authServer?: string
  /** Claim overrides; `null` deletes a claim. */
  claims?: Record<string, unknown>
  /** Lifetime in seconds from now; negative gives an expired token. Default 3600. */
  expiresIn?: number
  /** `nbf` in seconds from now. */
  notBefore?: number
  alg?: 'RS256' | 'PS256' | 'ES256' | 'EdDSA'
  forge?: 'unknown-kid' | 'alg-none' | 'hs256-public-key'
}

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url')

/** Mints a token as the real flow would, then applies the request's changes. */
async function mint(
  ctx: ControlContext,
  body: TokenRequestBody,
): Promise<{ access_token: string; header: object; claims: object }> {
  const server = ctx.servers.get(body.authServer ?? 'default') ?? ctx.servers.values().next().value
  if (!server) throw new Error('no authorization server')
  const now = Math.floor(Date.now() / 1000)
  let claims: JWTPayload
  if (body.client === 'service') {
    claims = {
      sub: ctx.serviceClient.clientId,
      cid: ctx.serviceClient.clientId,
      client_id: ctx.serviceClient.clientId,
      scp: ['openid'],
      scope: 'openid',
    }
  } else {
    const login = body.sub ?? 'alice'
    const user = ctx.users.get(login)
    claims = {
      sub: login,
      uid: `00u-${login}`,
      cid: ctx.publicClientId,
      client_id: ctx.publicClientId,
      scp: ['openid', 'profile', 'email'],
      scope: 'openid profile email',
      ...(user ? { groups: user.groups } : {}),
    }
  }
  claims = {
    iss: server.issuer,
    aud: server.audience,
    iat: now,
    exp: now + (body.expiresIn ?? 3600),
    jti: randomUUID(),
    ...claims,
    ...(body.notBefore !== undefined ? { nbf: now + body.notBefore } : {}),
  }
  if (server.layout) {
    // The shape's layout, as its token endpoint issues it (entra: with the API scope, so the
    // token is for the API); the request's overrides below still apply on top.
    if (server.layout.scopes.length > 0 && body.client !== 'service')
      claims.scope = [claims.scope, ...server.layout.scopes].join(' ')
    const user = body.client === 'service' ? undefined : ctx.users.get(body.sub ?? 'alice')
    shapeClaims(server.layout, claims, user)
  }
  for (const [k, v] of Object.entries(body.claims ?? {})) {
    if (v === null) delete claims[k]
    else claims[k] = v
  }
  const alg = body.alg ?? 'RS256'
  const key = server.keys.signer(alg)
  let header: Record<string, unknown> = {
    alg,
    kid: key.kid,
    typ: 'application/okta-internal-at+jwt',
  }
  let token: string
  if (body.forge === 'alg-none') {
    header = { alg: 'none', typ: 'JWT' }
    token = `${b64(header)}.${b64(claims)}.`
  } else if (body.forge === 'hs256-public-key') {
    // Algorithm confusion: HMAC keyed with the IdP's *public* key (RFC 8725 §2.1).
    header = { alg: 'HS256', kid: key.kid, typ: 'JWT' }
    const secret = createPublicKey({ key: key.publicJwk as never, format: 'jwk' }).export({
      type: 'spki',
      format: 'pem',
    })
    const input = `${b64(header)}.${b64(claims)}`
    token = `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`
  } else if (body.forge === 'unknown-kid') {
    header = { alg: 'RS256', kid: `unknown-${randomUUID().slice(0, 8)}`, typ: 'JWT' }
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
    token = await new SignJWT(claims).setProtectedHeader(header as { alg: string }).sign(privateKey)
  } else {
    // A WebCrypto RSA key is bound to one algorithm; a KeyObject of the same key signs PS256 too.
    const signingKey =
      alg === 'PS256'
        ? createPrivateKey({ key: key.privateJwk as never, format: 'jwk' })
        : key.privateKey
    token = await new SignJWT(claims).setProtectedHeader(header as { alg: string }).sign(signingKey)
  }
  return { access_token: token, header, claims }
}

/** Handles a `/__control/*` request. */
export async function handleControl(
  ctx: ControlContext,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  readBody: (req: IncomingMessage) => Promise<string>,
): Promise<void> {
  const method = req.method ?? 'GET'
  const parse = async <T>(): Promise<T> => {
    const raw = await readBody(req)
    return (raw ? JSON.parse(raw) : {}) as T
  }
  try {
    if (path === '/__control/token' && method === 'POST')
      return sendJson(res, 200, await mint(ctx, await parse<TokenRequestBody>()))
    if (path === '/__control/keys/rotate' && method === 'POST') {
      const body = await parse<{ keepOld?: boolean; authServer?: string }>()
      const server =
        ctx.servers.get(body.authServer ?? 'default') ?? ctx.servers.values().next().value
      if (!server) return sendJson(res, 404, { error: 'no authorization server' })
      return sendJson(res, 200, { kid: await ctx.rotate(server.id, body.keepOld ?? true) })
    }
    if (path === '/__control/faults') {
      if (method === 'DELETE') {
        ctx.faults.clear()
        for (const r of ctx.hanging) r.destroy()
        ctx.hanging.clear()
        return sendJson(res, 200, { faults: [] })
      }
      if (method === 'POST') {
        const f = await parse<{
          endpoint: FaultEndpoint
          mode: 'error' | 'hang' | 'slow' | 'ok'
          status?: number
          delayMs?: number
        }>()
        const endpoints = [
          'jwks',
          'discovery',
          'registration',
          'token',
          'introspection',
          'userinfo',
        ]
        if (!endpoints.includes(f.endpoint)) {
          return sendJson(res, 400, {
            error:
              'endpoint must be jwks, discovery, registration, token, introspection or userinfo',
          })
        }
        if (f.mode === 'ok') ctx.faults.delete(f.endpoint)
        else if (['error', 'hang', 'slow'].includes(f.mode))
          ctx.faults.set(f.endpoint, { mode: f.mode, status: f.status, delayMs: f.delayMs })
        else return sendJson(res, 400, { error: 'mode must be error, hang, slow or ok' })
        return sendJson(res, 200, {
          faults: [...ctx.faults].map(([endpoint, v]) => ({ endpoint, ...v })),
        })
      }
    }
    if (path === '/__control/registrations' && method === 'GET')
      return sendJson(res, 200, ctx.registrations)
    if (path === '/__control/requests') {
      if (method === 'DELETE') {
        ctx.requests.length = 0
        return sendJson(res, 200, [])
      }
      return sendJson(res, 200, ctx.requests)
    }
    if (path === '/__control/reset' && method === 'POST') {
      ctx.faults.clear()
      for (const r of ctx.hanging) r.destroy()
      ctx.hanging.clear()
      ctx.requests.length = 0
      ctx.registrations.length = 0
      return sendJson(res, 200, { reset: true })
    }
    sendJson(res, 404, { error: `no control endpoint ${method} ${path}` })
  } catch (err) {
    sendJson(res, 400, { error: (err as Error).message })
  }
}
