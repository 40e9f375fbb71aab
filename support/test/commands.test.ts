/** The mock commands stop through onShutdownSignals: SIGTERM once, gracefully, exit 0. */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = new URL('../../', import.meta.url).pathname
const TSX = join(ROOT, 'node_modules/.bin/tsx')

describe.each([
  ['mock-idp', 'mock-idp/bin/mock-idp.ts'],
  ['mcp-backend', 'mock-mcp/bin/mcp-backend.ts'],
])('%s', (name, entry) => {
  it('stops on SIGTERM, says so on standard error, and exits 0', async () => {
    const child = spawn(TSX, [join(ROOT, entry), '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stderr.on('data', (c: Buffer) => {
      stderr += c
    })
    const exited = once(child, 'exit')
    await new Promise<void>((resolve) => {
      child.stdout.on('data', (c: Buffer) => {
        stdout += c
        if (stdout.includes(`${name} listening`)) resolve()
      })
      child.once('exit', () => resolve())
    })
    child.kill('SIGTERM')
    const [code] = await exited
    expect(stderr).toMatch(new RegExp(`^${name}: SIGTERM, stopping$`, 'm'))
    expect(code).toBe(0)
  })
})
