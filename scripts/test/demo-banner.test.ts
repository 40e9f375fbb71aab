/**
 * scripts/demo-banner.ts: one source for `npm start`'s banner and README.md's compose block, and
 * MCP Inspector 2.x's steps.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import {
  COMPOSE_URLS,
  composeReadmeBlock,
  curlSteps,
  inspectorSteps,
  readmeWithComposeBlock,
} from '../demo-banner.js'

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')

describe('demo banner', () => {
  it('gives the 401, 200 and 403 commands against the URLs it is given', () => {
    const steps = curlSteps({ gateway: 'http://gw.test:1', idp: 'http://idp.test:2' })
    expect(steps).toMatch(/^1\) No token -> 401/m)
    expect(steps).toMatch(/^2\) alice .* -> 200/m)
    expect(steps).toMatch(/^3\) bob .* -> 403/m)
    expect(steps).toContain('curl -i -X POST http://gw.test:1/mcp')
    expect(steps).toContain('http://idp.test:2/__control/token')
  })

  it("walks Inspector 2.x's UI: Servers, + Add manually, streamable-http, URL, Add, Connect switch", () => {
    const steps = inspectorSteps('http://127.0.0.1:3000')
    const order = [
      'Servers',
      '"+ Add manually"',
      'streamable-http',
      'http://127.0.0.1:3000/mcp',
      'Add,',
      'Connect switch',
    ]
    const at = order.map((s) => steps.indexOf(s))
    expect(at.every((i) => i >= 0)).toBe(true)
    expect([...at].sort((a, b) => a - b)).toEqual(at)
  })

  it("README.md's compose block is the generated one (run `tsx scripts/demo-banner.ts --readme`)", () => {
    expect(readmeWithComposeBlock(readme)).toBe(readme)
    expect(composeReadmeBlock()).toContain(`${COMPOSE_URLS.gateway}/mcp`)
  })
})
