import { readFileSync } from 'node:fs'
import type { MockIdp } from '@gatehouse/mock-idp'
import type { McpBackend } from '@gatehouse/mock-mcp'
import { describe, expect, it } from 'vitest'
import { DEMO_CONFIG, demoConfig } from '../src/stack.js'

const idp = {
  issuer: 'http://127.0.0.1:41001/oauth2/default',
  orgUrl: 'http://127.0.0.1:41001',
} as MockIdp
const backend = { port: 41002 } as McpBackend

describe('demoConfig', () => {
  const config = demoConfig(readFileSync(DEMO_CONFIG, 'utf8'), {
    gatewayPort: 41000,
    idp,
    backend,
  }) as unknown as Record<string, Record<string, unknown>>
  const text = JSON.stringify(config)

  it('moves the gateway, its resource URL and the backends to the running ports', () => {
    expect(config.gateways).toEqual({ default: { port: 41000, address: '127.0.0.1' } })
    expect(config.backends?.['mcp-backend']).toEqual({
      static: { host: '127.0.0.1', port: 41002 },
    })
    expect(config.backends?.idp).toEqual({ static: { host: '127.0.0.1', port: 41001 } })
    expect(text).toContain('"http://127.0.0.1:41000/mcp"')
  })

  it("names the running IdP's issuer and leaves no demo port or ${IDP_ISSUER} behind", () => {
    expect(text).toContain(`"${idp.issuer}"`)
    expect(text).not.toContain('127.0.0.1:3000')
    expect(text).not.toContain('127.0.0.1:9000')
    expect(text).not.toContain('${IDP_ISSUER')
  })

  it('turns the admin server off, so stacks can run side by side', () => {
    expect(config.config?.adminAddr).toBe('off')
  })
})
