import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  ERROR_CODES,
  ERRORS,
  type ErrorSpec,
  GatehouseError,
  OAuthError,
  RequestError,
} from '../src/errors.js'

const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8')

/** The rows of the code table in docs/errors.md, by code: `| \`CODE\` | when | result |`. */
const rows = new Map(
  [...doc.matchAll(/^\| `(GW_ERR_[A-Z_]+)` \| (.*) \| (.*) \|$/gm)].map((m) => [
    m[1] as string,
    { when: m[2] as string, result: m[3] as string },
  ]),
)

describe('the error table (errors.ts)', () => {
  it('lists every code of the table in ERROR_CODES, in order', () => {
    expect(ERROR_CODES).toEqual(Object.keys(ERRORS))
  })

  it('documents every code of the table in a row of docs/errors.md', () => {
    expect(ERROR_CODES.filter((code) => !rows.has(code))).toEqual([])
  })

  it('documents no code that does not exist', () => {
    const documented = [...doc.matchAll(/`(GW_ERR_[A-Z_]+)`/g)].map((m) => m[1] as string)
    expect(documented.filter((c) => !(c in ERRORS))).toEqual([])
  })

  it("documents each answered code's status and wire error as the table gives them", () => {
    const wrong = ERROR_CODES.flatMap((code) => {
      const spec: ErrorSpec = ERRORS[code]
      const result = rows.get(code)?.result ?? ''
      if (spec.status === undefined) return []
      return result.startsWith(`${spec.status} \`${spec.error}\``)
        ? []
        : [`${code}: table says ${spec.status} ${spec.error}, docs say ${result.slice(0, 40)}`]
    })
    expect(wrong).toEqual([])
  })

  it('raises every code somewhere in the proxy (none is only documented)', () => {
    const src = new URL('../src/', import.meta.url).pathname
    const text = readdirSync(src, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts') && f !== 'errors.ts')
      .map((f) => readFileSync(join(src, f), 'utf8'))
      .join('\n')
    expect(ERROR_CODES.filter((code) => !text.includes(`'${code}'`))).toEqual([])
  })

  it('names no status or wire error at a call site: RequestError takes a code', () => {
    const src = new URL('../src/', import.meta.url).pathname
    const sites = readdirSync(src, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .flatMap((f) =>
        [...readFileSync(join(src, f), 'utf8').matchAll(/errorResponse\(\s*(\d{3})/g)].map(
          (m) => `${f}: errorResponse(${m[1]}`,
        ),
      )
    expect(sites).toEqual([])
  })
})

describe('RequestError', () => {
  it("takes the status and wire error from the code's row", () => {
    const err = new RequestError('GW_ERR_UPSTREAM_BUSY', 'no slot', {
      headers: { 'retry-after': '1' },
    })
    expect(err).toBeInstanceOf(GatehouseError)
    expect(err).toMatchObject({
      code: 'GW_ERR_UPSTREAM_BUSY',
      status: 503,
      error: 'upstream_busy',
      message: 'no slot',
      headers: { 'retry-after': '1' },
    })
  })
})

describe('OAuthError', () => {
  it('carries an RFC 6750 §3 challenge as WWW-Authenticate beside its other headers', () => {
    const err = new OAuthError('GW_ERR_INVALID_TOKEN', 'expired', {
      challenge: 'Bearer error="invalid_token"',
      headers: { 'cache-control': 'no-store' },
    })
    expect(err).toBeInstanceOf(RequestError)
    expect(err).toMatchObject({
      status: 401,
      error: 'invalid_token',
      headers: { 'www-authenticate': 'Bearer error="invalid_token"', 'cache-control': 'no-store' },
    })
  })
})
