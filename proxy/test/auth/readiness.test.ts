/** policyProblems (proxy/src/auth/readiness.ts): one sentence per policy that cannot serve. */
import { describe, expect, it } from 'vitest'
import { policyProblems } from '../../src/auth/readiness.js'
import type { AuthPolicy, PolicyStatus } from '../../src/auth/types.js'

const policy = (name: string, status: PolicyStatus) =>
  ({ name, status: () => status }) as AuthPolicy
const programmed = { accepted: true, programmed: true, reason: 'Programmed', message: 'enforced' }

describe('policyProblems', () => {
  it('says nothing of a policy that is programmed and whose keys are fresh', () => {
    expect(policyProblems([policy('a', programmed)])).toEqual([])
  })

  it('names a policy without keys, with its reason and message', () => {
    const missing = {
      accepted: true,
      programmed: false,
      reason: 'JwksUnavailable',
      message: 'JWKS keyset is not available at http://idp/keys: HTTP 500',
    }
    expect(policyProblems([policy('a', programmed), policy('b', missing)])).toEqual([
      'policy b: JwksUnavailable: JWKS keyset is not available at http://idp/keys: HTTP 500',
    ])
  })

  it('names a policy whose refresh fails although its last-known-good keys still serve', () => {
    const failing = {
      ...programmed,
      refreshError: 'JWKS refresh failed at http://idp/keys: HTTP 503',
    }
    expect(policyProblems([policy('a', failing)])).toEqual([
      'policy a: JwksRefreshFailing: JWKS refresh failed at http://idp/keys: HTTP 503 (the last-known-good keys still verify tokens)',
    ])
  })
})
