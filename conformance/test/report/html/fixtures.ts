/**
 * Recorded traffic for the HTML report's unit tests: a short OAuth flow whose requests carry
 * credentials in every place a careless client puts them, and a hostile answer.
 */
import type { Recorded } from '../../../src/client/traffic.js'

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url')

/** A JWT-shaped access token (compact JWS, RFC 7515 §7.1). */
export const JWT = `${b64({ alg: 'RS256', kid: 'k1' })}.${b64({ sub: 'alice', aud: 'api://default' })}.${Buffer.from('signature-bytes-of-the-test').toString('base64url')}`
/** An opaque refresh token and client secret, recognisable in output. */
export const REFRESH = 'opaque-refresh-Zq81Lm0Pw2'
export const SECRET = 'client-secret-Xv93Tt7Yh1'
export const CODE = 'auth-code-Hh52Rr8Kk3'

const GW = 'http://127.0.0.1:41001'
const IDP = 'http://127.0.0.1:41002'

function entry(
  seq: number,
  e: Partial<Recorded> & Pick<Recorded, 'side' | 'method' | 'url'>,
): Recorded {
  return {
    seq,
    requestHeaders: {},
    requestBody: '',
    status: 200,
    responseHeaders: {},
    responseBody: '',
    ...e,
  }
}

/** Seven steps: 401, discovery, authorize, token (secret, code), MCP with a JWT, one with it in the query. */
export function flow(): Recorded[] {
  return [
    entry(1, {
      side: 'gateway',
      method: 'POST',
      url: new URL(`${GW}/mcp`),
      requestHeaders: { 'content-type': 'application/json' },
      requestBody: '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}',
      status: 401,
      responseHeaders: { 'www-authenticate': 'Bearer resource_metadata="x"' },
    }),
    entry(2, {
      side: 'gateway',
      method: 'GET',
      url: new URL(`${GW}/.well-known/oauth-protected-resource/mcp`),
    }),
    entry(3, {
      side: 'idp',
      method: 'GET',
      url: new URL(`${IDP}/authorize?client_id=c&state=s&code_challenge=x`),
      status: 303,
      responseHeaders: { location: `http://127.0.0.1:3000/cb?code=${CODE}&state=s` },
      reshaped: 'iss as the gateway',
    }),
    entry(4, {
      side: 'idp',
      method: 'POST',
      url: new URL(`${IDP}/token`),
      requestHeaders: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`c:${SECRET}`).toString('base64')}`,
      },
      requestBody: `grant_type=authorization_code&code=${CODE}&client_secret=${SECRET}`,
      responseBody: JSON.stringify({ access_token: JWT, refresh_token: REFRESH }),
    }),
    entry(5, {
      side: 'gateway',
      method: 'POST',
      url: new URL(`${GW}/mcp`),
      requestHeaders: { 'content-type': 'application/json', authorization: `Bearer ${JWT}` },
      requestBody: '{"jsonrpc":"2.0","id":2,"method":"tools/list"}',
    }),
    entry(6, {
      side: 'gateway',
      method: 'POST',
      url: new URL(`${GW}/mcp?access_token=${JWT}`),
      requestHeaders: { 'content-type': 'application/json' },
      requestBody: '{"jsonrpc":"2.0","id":3,"method":"tools/call"}',
      status: 0,
    }),
    entry(7, {
      side: 'gateway',
      method: 'GET',
      url: new URL(`${GW}/<script>alert(1)</script>?q="'&x=<b>`),
      status: 404,
    }),
  ]
}
