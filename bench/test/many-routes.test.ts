import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { manyRoutesYaml } from '../many-routes.js'

describe('manyRoutesYaml', () => {
  it('writes n routes and one JWT policy that targets every one of them', () => {
    const doc = parse(`routes:\n${manyRoutesYaml(3, 61)}\n`)
    expect(Object.keys(doc.routes)).toEqual(['r0', 'r1', 'r2'])
    expect(doc.routes.r2.parentRefs).toBeUndefined()
    expect(doc.routes.r2.rules[0].matches[0].path.value).toBe('/t2/mcp')
    expect(doc.routes.r2.rules[0].filters[0].cors.maxAge).toBe(61)
    expect(doc.policies.p.targetRefs.map((r: { name: string }) => r.name)).toEqual([
      'r0',
      'r1',
      'r2',
    ])
    expect(doc.policies.p.traffic.jwtAuthentication.providers[0].jwks.inline.keys[0]).toMatchObject(
      { kty: 'EC', crv: 'P-256', kid: 'k', alg: 'ES256' },
    )
  })

  it('attaches every route to the gateway it names', () => {
    const doc = parse(`routes:\n${manyRoutesYaml(2, 60, 'default')}\n`)
    expect(doc.routes.r1.parentRefs).toEqual([{ name: 'default' }])
  })
})
