/**
 * Static checks of the shipped examples and the container demo (compose.yaml, Dockerfile): no
 * Docker engine runs in CI, so this is what keeps them from drifting from the code.
 */
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { checkCompilable } from '../src/config/compile.js'
import { loadConfigFile } from '../src/config/load.js'

const root = fileURLToPath(new URL('../../', import.meta.url))
const read = (file: string): string => readFileSync(`${root}${file}`, 'utf8')

interface ComposeService {
  build?: string
  command: string[]
  ports?: string[]
  expose?: string[]
}
const compose = parse(read('compose.yaml')) as { services: Record<string, ComposeService> }

describe('examples', () => {
  it.each(['examples/standalone/gatehouse.yaml', 'examples/compose/gatehouse.yaml'])(
    '%s is a valid configuration',
    async (file) => {
      const config = await loadConfigFile(`${root}${file}`)
      await expect(checkCompilable(config, file)).resolves.toBeUndefined()
    },
  )
})

describe('compose.yaml', () => {
  it('runs the three services from files that exist, built from the repository Dockerfile', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['gatehouse', 'mcp-backend', 'mock-idp'])
    for (const [name, service] of Object.entries(compose.services)) {
      expect(service.build, name).toBe('.')
      expect(service.command[0], name).toBe('node')
      for (const arg of service.command.slice(1)) {
        if (/\.(js|ya?ml)$/.test(arg))
          expect(existsSync(`${root}${arg}`), `${name}: ${arg}`).toBe(true)
      }
    }
  })

  it('publishes ports on the host loopback only', () => {
    const published = Object.values(compose.services).flatMap((s) => s.ports ?? [])
    expect(published.length).toBeGreaterThan(0)
    for (const p of published) expect(p).toMatch(/^127\.0\.0\.1:\d+:\d+$/)
  })

  it('points gatehouse at the services by name, with the issuer the IdP announces', async () => {
    const config = await loadConfigFile(`${root}examples/compose/gatehouse.yaml`)
    const hosts = Object.values(config.backends).map((b) => b.static.host)
    for (const host of hosts) expect(Object.keys(compose.services)).toContain(host)
    const publicUrl = compose.services['mock-idp']?.command
      .find((a) => a.startsWith('--public-url='))
      ?.slice('--public-url='.length)
    const issuers = Object.values(config.policies).flatMap(
      (p) => p.traffic.jwtAuthentication?.providers.map((pr) => pr.issuer) ?? [],
    )
    expect(issuers).toEqual([`${publicUrl}/oauth2/default`])
    expect(compose.services.gatehouse?.command).toContain('examples/compose/gatehouse.yaml')
  })
})

describe('Dockerfile', () => {
  it('copies every workspace manifest before npm ci, so the lockfile install succeeds', () => {
    const dockerfile = read('Dockerfile')
    const workspaces = (JSON.parse(read('package.json')) as { workspaces: string[] }).workspaces
    for (const ws of workspaces) expect(dockerfile).toContain(`COPY ${ws}/package.json ${ws}/`)
    expect(dockerfile).toMatch(/RUN npm ci\b/)
    expect(dockerfile).toContain('USER node')
  })
})
