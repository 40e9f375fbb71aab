/**
 * Reload and what the configuration paths point at: a file that is not configuration (a symlink
 * to a file of secrets) is refused without its content reaching the admin answer, `/config_dump`
 * or the log; a FIFO is refused at once and blocks no later reload (docs/reliability.md,
 * "Configuration input").
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { Gatehouse } from '../../src/index.js'
import { configDir, get, nameBackend, standalone, startFromPaths } from '../reload-harness.js'

const cleanup: Array<() => Promise<unknown>> = []
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c()
})

async function started(paths: string[]) {
  const gh = await startFromPaths(paths)
  cleanup.push(() => gh.stop('test finished'))
  return gh
}
async function backend(name: string) {
  const b = await nameBackend(name)
  cleanup.push(() => b.close())
  return b
}
const url = (gh: Gatehouse) => gh.gateways[0]?.url ?? 'no-gateway'

const SECRET_FILES = {
  'a shadow file': 'root:$6$S3CRET-1:19000:0:99999:7:::\nsvc:S3CRET-2:19000:0:99999:7:::\n',
  'secrets under known fields':
    'gateways: { default: { port: "S3CRET-3" } }\nconfig: { logLevel: [S3CRET-4] }\n',
  'a YAML syntax error': 'gateways: |x S3CRET-5\n  y\n',
  'unknown keys with values': 'apiKey: S3CRET-6\n"S3CRET 7": x\n',
}

describe('reload inputs', () => {
  it.each(Object.entries(SECRET_FILES))(
    'refuses a path symlinked to %s without echoing its content in the answer, the dump or the log',
    async (_, content) => {
      const a = await backend('a')
      const dir = configDir({ 'gatehouse.yaml': standalone(a.port) })
      const gh = await started([dir])
      const secrets = join(mkdtempSync(join(tmpdir(), 'gatehouse-secrets-')), 'secrets')
      writeFileSync(secrets, content)
      rmSync(join(dir, 'gatehouse.yaml'))
      symlinkSync(secrets, join(dir, 'gatehouse.yaml'))
      const res = await fetch(`${gh.adminUrl}/reload`, { method: 'POST' })
      expect(res.status).toBe(422)
      const answer = await res.text()
      // The refusal names the file and a line, so the operator can find what is wrong.
      expect(answer).toContain('gatehouse.yaml')
      expect(answer).toMatch(/line \d/)
      expect(answer).not.toContain('S3CRET')
      const dump = await (await fetch(`${gh.adminUrl}/config_dump`)).text()
      expect(dump).toMatch(/"result": ?"failure"/)
      expect(dump).not.toContain('S3CRET')
      expect(gh.logs.some((l) => l.code !== undefined && String(l.msg).includes('failed'))).toBe(
        true,
      )
      expect(JSON.stringify(gh.logs)).not.toContain('S3CRET')
      expect(await get(`${url(gh)}/mcp`)).toBe('a /mcp')
    },
  )

  it('refuses a FIFO in place of the configuration at once, and the next reload of a file succeeds', async () => {
    const [a, b] = [await backend('a'), await backend('b')]
    const dir = configDir({ 'gatehouse.yaml': standalone(a.port) })
    const gh = await started([dir])
    rmSync(join(dir, 'gatehouse.yaml'))
    execFileSync('mkfifo', [join(dir, 'gatehouse.yaml')])
    const refused = await gh.reload()
    expect(refused.result).toBe('failure')
    expect(refused.message).toContain('not a regular file (a FIFO)')
    rmSync(join(dir, 'gatehouse.yaml'))
    writeFileSync(join(dir, 'gatehouse.yaml'), standalone(b.port))
    expect((await gh.reload()).result).toBe('success')
    expect(await get(`${url(gh)}/mcp`)).toBe('b /mcp')
  })
})
