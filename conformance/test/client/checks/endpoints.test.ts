import { describe, expect, it } from 'vitest'
import { endpoints } from '../../../src/client/checks/endpoints.js'
import type { ClientCheckContext } from '../../../src/client/checks/types.js'
import type { ClientScenario } from '../../../src/client/scenarios.js'
import type { Recorded } from '../../../src/client/traffic.js'
import { CheckFailure, CheckSkipped } from '../../../src/types.js'

const ISSUER = 'http://127.0.0.1:9000'
const AUTHORIZE = `${ISSUER}/o/oauth2/v2/auth`
const TOKEN = 'http://127.0.0.1:9001/token'

const [authorization, token] = endpoints as [(typeof endpoints)[number], (typeof endpoints)[number]]

let seq = 0
function entry(method: string, url: string, body = '', status = 200): Recorded {
  seq += 1
  return {
    seq,
    side: 'idp',
    method,
    url: new URL(url),
    requestHeaders: {},
    requestBody: body,
    status,
    responseHeaders: {},
    responseBody: '',
  } as Recorded
}

const authorize = (base: string, status = 302) =>
  entry('GET', `${base}?response_type=code&client_id=c1&state=s`, '', status)
const tokenAt = (url: string, status = 200) =>
  entry('POST', url, 'grant_type=authorization_code&code=x', status)

/** Runs one check over the recorded traffic; returns its verdict and the evidence it named. */
function judge(
  requirement: (typeof endpoints)[number],
  entries: Recorded[],
  cause?: string,
): { verdict: 'passed' | 'failed' | 'skipped'; message: string; evidence?: Recorded } {
  let evidence: Recorded | undefined
  const ctx = {
    facts: { authorizeUrl: AUTHORIZE, tokenUrl: TOKEN },
    flow: { entries },
    progress: { reached: new Set(), cause, conformantRefusal: false },
    evidence: (e: Recorded | undefined) => {
      evidence = e
    },
  } as unknown as ClientCheckContext
  try {
    requirement.check(ctx)
    return { verdict: 'passed', message: '', evidence }
  } catch (error) {
    if (error instanceof CheckSkipped) return { verdict: 'skipped', message: error.message }
    if (error instanceof CheckFailure)
      return { verdict: 'failed', message: `${error.expected} | ${error.actual}`, evidence }
    throw error
  }
}

const scenario = (over: Partial<ClientScenario>) =>
  ({ name: 's', idp: {}, ...over }) as unknown as ClientScenario

describe('CLI-ASM-002/003: requests go to the endpoints the metadata names', () => {
  it('apply only where the IdP is shaped (endpoints not under the issuer) and not in 2025-03-26 scenarios', () => {
    for (const r of endpoints) {
      expect(r.level).toBe('MUST')
      expect(r.appliesTo(scenario({ idp: { shape: 'google' } } as never))).toBe(true)
      expect(r.appliesTo(scenario({ idp: { shape: 'auth0' } } as never))).toBe(true)
      expect(r.appliesTo(scenario({ idp: {} } as never))).toBe(false)
      expect(r.appliesTo(scenario({ idp: { shape: 'okta' } } as never))).toBe(false)
      expect(r.appliesTo(scenario({ idp: { shape: 'google' }, legacy: {} } as never))).toBe(false)
    }
  })

  it('pass a client that sends each request to the metadata URL (query ignored)', () => {
    const traffic = [authorize(AUTHORIZE), tokenAt(TOKEN)]
    expect(judge(authorization, traffic).verdict).toBe('passed')
    expect(judge(token, traffic).verdict).toBe('passed')
  })

  it('fail an authorization request built from the issuer, naming it as evidence', () => {
    const astray = authorize(`${ISSUER}/authorize`, 404)
    const result = judge(authorization, [astray, authorize(AUTHORIZE), tokenAt(TOKEN)])
    expect(result.verdict).toBe('failed')
    expect(result.message).toContain(AUTHORIZE)
    expect(result.message).toContain(`GET ${ISSUER}/authorize → 404`)
    expect(result.evidence).toBe(astray)
    // The token check is not concerned with it.
    expect(judge(token, [astray, tokenAt(TOKEN)]).verdict).toBe('passed')
  })

  it('fail a token request posted to the issuer origin instead of the token host', () => {
    const astray = tokenAt(`${ISSUER}/token`, 404)
    const result = judge(token, [authorize(AUTHORIZE), astray])
    expect(result.verdict).toBe('failed')
    expect(result.message).toContain(`POST ${ISSUER}/token → 404`)
    expect(result.evidence).toBe(astray)
  })

  it('do not count other traffic: a GET without response_type, a POST without grant_type', () => {
    const traffic = [
      entry('GET', `${ISSUER}/.well-known/openid-configuration`),
      entry('POST', `${ISSUER}/register`, '{"redirect_uris":[]}'),
      authorize(AUTHORIZE),
      tokenAt(TOKEN),
    ]
    expect(judge(authorization, traffic).verdict).toBe('passed')
    expect(judge(token, traffic).verdict).toBe('passed')
  })

  it('are skipped, with the run cause, when the client never sent the request', () => {
    const none = judge(token, [authorize(AUTHORIZE)], 'the client exited 1: no browser')
    expect(none).toMatchObject({ verdict: 'skipped' })
    expect(none.message).toBe('not reached: the client exited 1: no browser')
    expect(judge(authorization, []).message).toBe(
      'not reached: the client sent no authorization request',
    )
  })
})
