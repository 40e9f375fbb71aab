/**
 * A small real HTTP server shaped like the bridged IdP's discovery, key and registration
 * endpoints, with keys the test controls. The auth unit tests use it to switch the key endpoint
 * on and off at will; the end-to-end tests use the full mock-idp (oidc-provider).
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { sendJson } from '@gatehouse/support'
import {
  type CryptoKey,
  exportJWK,
  generateKeyPair,
  type JWK,
  type JWTPayload,
  SignJWT,
} from 'jose'

/** A key of the tiny IdP. */
interface Key {
  kid: string
  privateKey: CryptoKey
  jwk: JWK
}

export interface TinyIdp {
  orgUrl: string
  issuer: string
  port: number
  audience: string
  /** Signs a token with the current key; claims override the defaults. */
  sign(
    claims?: JWTPayload,
    options?: { kid?: string; alg?: string; key?: CryptoKey },
  ): Promise<string>
  /** Adds a new current key; the old one stays published unless `dropOld`. */
  rotate(dropOld?: boolean): Promise<string>
  /** Makes the key endpoint answer 500 (true) or normally (false). */
  keysDown(down: boolean): void
  /** Replaces the key endpoint's answer (undefined: the normal one). */
  keysAnswer(answer: RawAnswer | undefined): void
  /** Makes discovery answer 500 (true) or normally (false). */
  discoveryDown(down: boolean): void
  /** Replaces the discovery document (undefined: the normal one). */
  discoveryDocument(doc: unknown): void
  /** Replaces discovery's whole answer, headers included (undefined: the normal one). */
  discoveryAnswer(answer: RawAnswer | undefined): void
  /** Requests received, by path. */
  hits: Array<{
    method: string
    path: string
    authorization?: string
    body?: string
    /** The request's Accept header. */
    accept?: string
    /** The request's Content-Type header. */
    contentType?: string
  }>
  publicJwks(): { keys: JWK[] }
  currentKey(): Key
  stop(): Promise<void>
}

/** An answer given as it is: status (200), headers and body text. */
export interface RawAnswer {
  status?: number
  headers?: Record<string, string>
  body: string
}

async function newKey(n: number): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true })
  const jwk = { ...(await exportJWK(publicKey)), kid: `key-${n}`, alg: 'RS256', use: 'sig' }
  return { kid: `key-${n}`, privateKey, jwk }
}

export async function startTinyIdp(opts: { keysInitiallyDown?: boolean } = {}): Promise<TinyIdp> {
  const keys: Key[] = [await newKey(1)]
  let keysDown = opts.keysInitiallyDown ?? false
  let discoveryDown = false
  let discoveryDoc: unknown
  let keysAnswer: RawAnswer | undefined
  let discoveryAnswer: RawAnswer | undefined
  const hits: TinyIdp['hits'] = []
  let orgUrl = ''
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname
    let body = ''
    req.on('data', (c: Buffer) => {
      body += c.toString()
    })
    req.on('end', () => {
      hits.push({
        method: req.method ?? 'GET',
        path,
        authorization: req.headers.authorization,
        body,
        accept: req.headers.accept,
        contentType: req.headers['content-type'],
      })
      const json = (status: number, value: unknown) => sendJson(res, status, value)
      const issuer = `${orgUrl}/oauth2/default`
      if (path === '/oauth2/default/v1/keys') {
        if (keysDown) return json(500, { error: 'down' })
        if (keysAnswer) {
          res.writeHead(keysAnswer.status ?? 200, keysAnswer.headers ?? {})
          return res.end(keysAnswer.body)
        }
        return json(200, { keys: keys.map((k) => k.jwk) })
      }
      if (path === '/oauth2/default/.well-known/openid-configuration') {
        if (discoveryDown) return json(500, { error: 'down' })
        if (discoveryAnswer) {
          res.writeHead(discoveryAnswer.status ?? 200, discoveryAnswer.headers ?? {})
          return res.end(discoveryAnswer.body)
        }
        if (discoveryDoc !== undefined) return json(200, discoveryDoc)
        return json(200, {
          issuer,
          authorization_endpoint: `${issuer}/v1/authorize`,
          token_endpoint: `${issuer}/v1/token`,
          jwks_uri: `${issuer}/v1/keys`,
          registration_endpoint: `${orgUrl}/oauth2/v1/clients`,
          response_types_supported: ['code'],
          code_challenge_methods_supported: ['S256'],
        })
      }
      if (path === '/oauth2/v1/clients' && req.method === 'POST') {
        // A token without the right to create clients is refused with 403.
        if (req.headers.authorization === 'SSWS read-only-token') {
          return json(403, { errorCode: 'E0000006', errorSummary: 'You do not have permission' })
        }
        if (req.headers.authorization !== 'SSWS test-api-token') {
          return json(401, { errorCode: 'E0000011', errorSummary: 'Invalid token provided' })
        }
        return json(201, { client_id: 'registered-by-idp', ...JSON.parse(body || '{}') })
      }
      json(404, { errorCode: 'E0000022', errorSummary: 'The endpoint does not exist.' })
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as AddressInfo
  orgUrl = `http://127.0.0.1:${port}`
  const issuer = `${orgUrl}/oauth2/default`
  const current = () => keys[keys.length - 1] as Key
  return {
    orgUrl,
    issuer,
    port,
    audience: 'api://default',
    hits,
    async sign(claims = {}, options = {}) {
      const key = current()
      const now = Math.floor(Date.now() / 1000)
      return new SignJWT({
        iss: issuer,
        aud: 'api://default',
        sub: 'alice@example.com',
        uid: 'u-alice',
        cid: 'gatehouse-demo-client',
        scp: ['openid'],
        groups: ['AI-Users'],
        iat: now,
        exp: now + 3600,
        ...claims,
      })
        .setProtectedHeader({ alg: options.alg ?? 'RS256', kid: options.kid ?? key.kid })
        .sign(options.key ?? key.privateKey)
    },
    async rotate(dropOld = false) {
      const key = await newKey(keys.length + 1)
      if (dropOld) keys.length = 0
      keys.push(key)
      return key.kid
    },
    keysDown(down) {
      keysDown = down
    },
    keysAnswer(answer) {
      keysAnswer = answer
    },
    discoveryDocument(doc) {
      discoveryDoc = doc
    },
    discoveryDown(down) {
      discoveryDown = down
    },
    discoveryAnswer(answer) {
      discoveryAnswer = answer
    },
    publicJwks: () => ({ keys: keys.map((k) => k.jwk) }),
    currentKey: current,
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections()
        server.close(() => r())
      }),
  }
}
