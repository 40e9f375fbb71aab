import { describe, expect, it } from 'vitest'
import { publicStatus } from '../../../src/admin/ui/public-status.js'
import { fakeContext, fakePolicy, SECRETS } from '../context.js'

const UNPROGRAMMED = {
  accepted: true,
  programmed: false,
  reason: 'JwksUnavailable',
  message: 'JWKS keyset is not available at https://idp.example/oauth2/default/v1/keys',
}

describe('publicStatus', () => {
  const ctx = {
    ...fakeContext({ policies: new Map([['object', fakePolicy('object', UNPROGRAMMED)]]) }),
    lastReload: () => ({
      at: '2026-11-28T07:00:00Z',
      trigger: 'admin' as const,
      result: 'failure' as const,
      message: '/etc/gatehouse.yaml:12: policies.x: bad',
    }),
  }

  it('holds names and conditions only: no address, issuer, key, message or file', () => {
    const doc = publicStatus(ctx)
    const text = JSON.stringify(doc)
    for (const value of [
      '127.0.0.1',
      '3000',
      'idp.example',
      'api://default',
      '/etc/gatehouse.yaml',
      ...Object.values(SECRETS),
    ]) {
      expect(text, value).not.toContain(value)
    }
    expect(doc.policies[0]?.status.conditions).toContainEqual({
      type: 'Programmed',
      status: 'False',
      reason: 'JwksUnavailable',
    })
    expect(doc.policies[1]).toMatchObject({ name: 'string', status: { reason: 'NotCompiled' } })
    expect(doc.reload).toEqual({ at: '2026-11-28T07:00:00Z', trigger: 'admin', result: 'failure' })
    expect(doc.binds).toEqual([
      { name: 'default', listeners: [{ name: 'default', routes: ['main'] }] },
    ])
  })

  it('adds the messages when ui.showMessages says so', () => {
    const doc = publicStatus(ctx, { messages: true })
    expect(doc.reload?.message).toContain('/etc/gatehouse.yaml:12')
    expect(doc.policies[0]?.status.message).toContain('JWKS keyset is not available')
  })
})
