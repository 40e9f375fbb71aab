import { mkdtemp, readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { freePort } from '@gatehouse/support'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { run } from '../src/cli.js'
import { GWCTL_ERROR_CODES } from '../src/errors.js'
import { DUMP_FIXTURE, type LiveGatehouse, runGwctl, startLiveGatehouse } from './helpers.js'

const HINT =
  'Is gatehouse running? Use -p <port> or --admin <addr> if config.adminAddr is not localhost:15000.'

describe('gwctl version and help', () => {
  it('prints its version', async () => {
    const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string
    }
    const r = await runGwctl(['version'])
    expect(r.code).toBe(0)
    expect(r.stdout).toBe(`gwctl ${pkg.version} (node ${process.version})\n`)
  })

  it.each([
    [['--help'], 'gwctl [options] [command]'],
    [['proxy', '--help'], 'gwctl proxy [options] [command]'],
    [['proxy', 'config', 'all', '--help'], 'gwctl proxy config all [options]'],
    [['proxy', 'trace', '--help'], 'gwctl proxy trace [options]'],
    [['proxy', 'profile', 'cpu', '--help'], 'gwctl proxy profile cpu [options]'],
    [['proxy', 'profile', 'heap', '--help'], 'gwctl proxy profile heap [options]'],
    [['proxy', 'log', '--help'], 'gwctl proxy log [options]'],
  ])('prints help for %j and exits 0', async (args, usage) => {
    const r = await runGwctl(args)
    expect(r.code).toBe(0)
    expect(r.stdout).toContain(`Usage: ${usage}`)
  })
})

describe('gwctl usage errors', () => {
  it('exits 2 for an unknown command', async () => {
    const r = await runGwctl(['proxy', 'stats'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain("error: unknown command 'stats'")
  })

  it('exits 2 for a command group without a subcommand, showing its help', async () => {
    const r = await runGwctl(['proxy'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('Usage: gwctl proxy [options] [command]')
  })

  it('exits 2 for a -p that is not a port', async () => {
    const r = await runGwctl(['-p', 'http', 'proxy', 'log'])
    expect(r.code).toBe(2)
    expect(r.stderr).toBe('gwctl: --port http: expected a port number between 1 and 65535\n')
  })

  it('exits 2 for an --admin it cannot read', async () => {
    const r = await runGwctl(['--admin', 'localhost', 'proxy', 'log'])
    expect(r.code).toBe(2)
    expect(r.stderr).toBe(
      'gwctl: --admin localhost: expected host:port (e.g. 127.0.0.1:15000) or unix:/path\n',
    )
  })
})

describe('gwctl with the admin interface unreachable', () => {
  it.each([
    'proxy config all --local',
    'proxy trace --local',
    'proxy trace --local --raw',
    'proxy profile cpu --local --seconds 1',
    'proxy profile heap --local',
    'proxy log',
  ])('names the address, the cause and the hint for gwctl %s, exit 1', async (command) => {
    const port = await freePort()
    const cwd = await mkdtemp(join(tmpdir(), 'gwctl-'))
    const r = await runGwctl(['-p', String(port), ...command.split(' ')], { cwd })
    expect({ code: r.code, stderr: r.stderr }).toEqual({
      code: 1,
      stderr: `gwctl: cannot reach the admin interface at 127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}. ${HINT}\n`,
    })
  })

  it('names a unix socket that does not exist', async () => {
    const path = join(await mkdtemp(join(tmpdir(), 'gwctl-')), 'admin.sock')
    const r = await runGwctl(['--admin', `unix:${path}`, 'proxy', 'log'])
    expect(r.code).toBe(1)
    expect(r.stderr).toBe(
      `gwctl: cannot reach the admin interface at unix:${path}: connect ENOENT ${path}. ${HINT}\n`,
    )
  })

  it('tries 127.0.0.1:15000 without -p or --admin', async () => {
    const r = await runGwctl(['proxy', 'log'])
    // Only meaningful when nothing listens there, which is the case on a test host.
    expect(r.stderr).toContain(
      'cannot reach the admin interface at 127.0.0.1:15000: connect ECONNREFUSED',
    )
    expect(r.code).toBe(1)
  })
})

describe('gwctl over a unix socket admin address', () => {
  let live: LiveGatehouse
  let socket: string
  beforeAll(async () => {
    socket = join(await mkdtemp(join(tmpdir(), 'gwctl-')), 'admin.sock')
    live = await startLiveGatehouse(`unix:${socket}`)
  })
  afterAll(async () => {
    await live.close()
  })

  it('reads the config dump and the log filter through the socket', async () => {
    const dump = await runGwctl(['--admin', `unix:${socket}`, 'proxy', 'config', 'all', '--local'])
    expect(dump.code).toBe(0)
    expect((JSON.parse(dump.stdout) as { binds: Array<{ url: string }> }).binds[0]?.url).toBe(
      live.url,
    )
    const log = await runGwctl(['--admin', `unix:${socket}`, 'proxy', 'log'])
    expect(log.stdout).toBe('current log level is error\n')
  })
})

describe('gwctl error codes', () => {
  it('documents every error code in docs/gwctl.md', async () => {
    const doc = await readFile(new URL('../../docs/gwctl.md', import.meta.url), 'utf8')
    for (const code of GWCTL_ERROR_CODES) expect(doc).toContain(code)
  })
})

describe('run() as a library', () => {
  function capture() {
    const stream = new PassThrough()
    let text = ''
    stream.on('data', (c: Buffer) => {
      text += c.toString('utf8')
    })
    return { stream, text: () => text }
  }

  it('writes to the given streams and returns the exit code instead of exiting', async () => {
    const out = capture()
    const err = capture()
    const code = await run(['proxy', 'config', 'all', '--file', DUMP_FIXTURE, '-o', 'short'], {
      stdout: out.stream,
      stderr: err.stream,
    })
    expect(code).toBe(0)
    expect(out.text()).toMatch(/^mcp-auth +HTTPRoute\/mcp +True +True +True +Programmed$/m)
    expect(err.text()).toBe('')
  })

  it('reports a failure on the given stderr', async () => {
    const out = capture()
    const err = capture()
    const code = await run(['proxy', 'config', 'all', '--file', '/nonexistent.json'], {
      stdout: out.stream,
      stderr: err.stream,
    })
    expect(code).toBe(1)
    expect(err.text()).toBe('gwctl: cannot read /nonexistent.json: no such file\n')
  })
})
