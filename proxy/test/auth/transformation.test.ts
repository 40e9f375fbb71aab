/** Claims feed route-level request transformations (seed: "available to … transformations"). */
import { initializeRequest, type McpBackend, startMcpBackend } from '@gatehouse/mock-mcp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { GatehouseConfigInput } from '../../src/config/schema.js'
import { parseConfig } from '../../src/index.js'
import { compileOrThrow } from '../../src/lifecycle/compile.js'
import { startTestGatehouse, type TestGatehouse } from '../helpers.js'
import { authConfig } from './config.js'
import { startTinyIdp, type TinyIdp } from './tiny-idp.js'

let idp: TinyIdp
let backend: McpBackend
let gh: TestGatehouse

function withTransformations(
  set: Array<{ name: string; value: string }>,
  remove: string[] = [],
): GatehouseConfigInput {
  const config = authConfig({ idpPort: idp.port, backendPort: backend.port, issuer: idp.issuer })
  const policy = config.policies?.['mcp-auth']
  if (!policy) throw new Error('no policy')
  policy.traffic.transformations = { request: { set, remove } }
  return config
}

beforeAll(async () => {
  idp = await startTinyIdp()
  backend = await startMcpBackend()
  gh = await startTestGatehouse(
    withTransformations(
      [
        { name: 'X-User', value: 'jwt.sub' },
        { name: 'x-groups', value: 'jwt.groups' },
        { name: 'x-missing', value: 'jwt.nope' },
      ],
      ['x-remove-me'],
    ),
  )
})
afterAll(async () => {
  await gh.stop('done')
  await backend.stop()
  await idp.stop()
})

describe('request transformations from claims', () => {
  it('sets headers from CEL over the claims, removes listed ones, and skips failed expressions', async () => {
    await fetch(`${backend.origin}/__requests`, { method: 'DELETE' })
    const res = await fetch(
      `${gh.url}/mcp`,
      initializeRequest({
        bearer: await idp.sign(),
        headers: { 'x-remove-me': 'client value', 'x-user': 'spoofed-by-client' },
      }),
    )
    expect(res.status).toBe(200)
    const [seen] = (await (await fetch(`${backend.origin}/__requests`)).json()) as Array<{
      headers: Record<string, string>
    }>
    expect(seen?.headers['x-user']).toBe('alice@example.com')
    expect(seen?.headers['x-groups']).toBe('AI-Users')
    expect(seen?.headers).not.toHaveProperty('x-missing')
    expect(seen?.headers).not.toHaveProperty('x-remove-me')
  })

  it('rejects a configuration with an invalid expression or a managed header', async () => {
    const bad = parseConfig(
      JSON.stringify(withTransformations([{ name: 'x-user', value: 'jwt.sub +' }])),
      't.yaml',
    )
    await expect(compileOrThrow(bad, 't.yaml')).rejects.toThrow(
      /transformations\.request.*jwt\.sub \+/s,
    )
    expect(() =>
      parseConfig(
        JSON.stringify(withTransformations([{ name: 'Host', value: 'jwt.sub' }])),
        't.yaml',
      ),
    ).toThrow(/managed by the proxy/)
  })
})
