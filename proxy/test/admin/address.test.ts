import { existsSync, linkSync, mkdtempSync, statSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Agent, fetch as undiciFetch } from 'undici'
import { describe, expect, it } from 'vitest'
import { isLoopback, parseAdminAddr } from '../../src/admin/address.js'
import { logsWith, startAdminGatehouse, startBackend } from './helpers.js'

async function withGatehouse(
  options: Parameters<typeof startAdminGatehouse>[1],
  body: (gh: Awaited<ReturnType<typeof startAdminGatehouse>>) => Promise<void>,
): Promise<void> {
  const backend = await startBackend()
  const gh = await startAdminGatehouse(backend.port, options)
  try {
    await body(gh)
  } finally {
    await gh.stop()
    await backend.close()
  }
}

describe('parseAdminAddr', () => {
  it('reads ip:port, [v6]:port and unix:/path', () => {
    expect(parseAdminAddr('127.0.0.1:15000')).toEqual({
      kind: 'tcp',
      host: '127.0.0.1',
      port: 15000,
    })
    expect(parseAdminAddr('[::1]:0')).toEqual({ kind: 'tcp', host: '::1', port: 0 })
    expect(parseAdminAddr('unix:/run/gh.sock')).toEqual({ kind: 'unix', path: '/run/gh.sock' })
    expect(() => parseAdminAddr('127.0.0.1')).toThrow(/not "ip:port"/)
  })

  it('knows loopback addresses', () => {
    expect(['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1'].map(isLoopback)).toEqual([
      true,
      true,
      true,
      true,
    ])
    expect(['0.0.0.0', '10.0.0.1', '::'].map(isLoopback)).toEqual([false, false, false])
  })
})

describe('admin address', () => {
  it('leaves no admin listener when off', async () => {
    await withGatehouse({ adminAddr: 'off' }, async (gh) => {
      expect(gh.adminUrl).toBeUndefined()
      expect(logsWith(gh.logs, 'admin interface on')).toEqual([])
      expect(logsWith(gh.logs, 'admin off').length).toBe(1)
    })
  })

  it('resolves localhost to a loopback address without a warning', async () => {
    await withGatehouse({ adminAddr: 'localhost:0' }, async (gh) => {
      expect(gh.admin).toMatch(/^http:\/\/(127\.0\.0\.1|\[::1\]):\d+$/)
      expect((await fetch(`${gh.admin}/memory`)).status).toBe(200)
      expect(logsWith(gh.logs, 'SECURITY WARNING')).toEqual([])
    })
  })

  it('warns prominently when bound to a non-loopback address', async () => {
    await withGatehouse({ adminAddr: '0.0.0.0:0' }, async (gh) => {
      const [warning] = logsWith(gh.logs, 'SECURITY WARNING')
      expect(warning?.level).toBe('warn')
      expect(warning?.msg).toContain('/quitquitquit')
      expect(warning?.msg).toContain('/config_dump')
      const port = new URL(gh.admin).port
      expect((await fetch(`http://127.0.0.1:${port}/memory`)).status).toBe(200)
    })
  })

  it('serves every endpoint over a unix socket with mode 0600 and removes it on stop', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gh-admin-'))
    const path = join(dir, 'admin.sock')
    const backend = await startBackend()
    const gh = await startAdminGatehouse(backend.port, { adminAddr: `unix:${path}` })
    const dispatcher = new Agent({ connect: { socketPath: path } })
    try {
      expect(gh.admin).toBe(`unix:${path}`)
      expect(statSync(path).mode & 0o777).toBe(0o600)
      const dump = await undiciFetch('http://localhost/config_dump', { dispatcher })
      expect(dump.status).toBe(200)
      expect(((await dump.json()) as { binds: unknown[] }).binds).toHaveLength(1)
      const logging = await undiciFetch('http://localhost/logging?level=debug', {
        method: 'POST',
        dispatcher,
      })
      expect(await logging.text()).toBe('current log level is debug\n')
      expect((await undiciFetch('http://localhost/memory', { dispatcher })).status).toBe(200)
      expect((await undiciFetch('http://localhost/debug/tasks', { dispatcher })).status).toBe(200)
      expect((await undiciFetch('http://localhost/ui', { dispatcher })).status).toBe(200)
      const quit = await undiciFetch('http://localhost/quitquitquit', {
        method: 'POST',
        dispatcher,
      })
      expect(quit.status).toBe(200)
      expect(await gh.stopped).toBe('quitquitquit')
      expect(existsSync(path)).toBe(false)
    } finally {
      await dispatcher.close()
      await gh.stop()
      await backend.close()
    }
  })

  it('replaces a stale socket file left by a previous run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gh-admin-'))
    const path = join(dir, 'admin.sock')
    // A hard link keeps the socket inode after its server closed: a socket nobody serves.
    const old = createServer()
    await new Promise<void>((r) => old.listen(join(dir, 'old.sock'), r))
    linkSync(join(dir, 'old.sock'), path)
    await new Promise<void>((r) => old.close(() => r()))
    expect(statSync(path).isSocket()).toBe(true)
    await withGatehouse({ adminAddr: `unix:${path}` }, async (gh) => {
      const dispatcher = new Agent({ connect: { socketPath: path } })
      const res = await undiciFetch('http://localhost/logging', { dispatcher })
      expect(await res.text()).toBe('current log level is info\n')
      await dispatcher.close()
      expect(gh.admin).toBe(`unix:${path}`)
    })
  })

  it('refuses a socket path another process serves', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gh-admin-'))
    const path = join(dir, 'admin.sock')
    const other = createServer()
    await new Promise<void>((r) => other.listen(path, r))
    const backend = await startBackend()
    try {
      await expect(
        startAdminGatehouse(backend.port, { adminAddr: `unix:${path}` }),
      ).rejects.toThrow(/another process serves/)
    } finally {
      other.close()
      await backend.close()
    }
  })
})
