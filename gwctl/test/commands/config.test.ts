import { readFile } from 'node:fs/promises'
import { sendJson } from '@gatehouse/support'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse as parseYaml } from 'yaml'
import {
  DUMP_FIXTURE,
  fixture,
  type LiveGatehouse,
  runGwctl,
  startLiveGatehouse,
  startScriptedAdmin,
} from '../helpers.js'

const saved = JSON.parse(await readFile(DUMP_FIXTURE, 'utf8')) as Record<string, unknown>

describe('gwctl proxy config all --file', () => {
  it('prints the saved dump as indented JSON by default', async () => {
    const r = await runGwctl(['proxy', 'config', 'all', '--file', DUMP_FIXTURE])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual(saved)
    expect(r.stdout).toContain('\n  "binds": [')
  })

  it('renders -o yaml that parses back to the same document', async () => {
    const r = await runGwctl(['proxy', 'config', 'all', '--file', DUMP_FIXTURE, '-o', 'yaml'])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('policies:\n  - name: mcp-auth')
    expect(parseYaml(r.stdout)).toEqual(saved)
  })

  it('renders -o short as tables with each policy status and the reason it is not programmed', async () => {
    const r = await runGwctl(['proxy', 'config', 'all', '--file', DUMP_FIXTURE, '-o', 'short'])
    expect(r.code).toBe(0)
    const lines = r.stdout.split('\n')
    expect(lines).toContain('gatehouse 0.1.0, admin 127.0.0.1:15000')
    expect(r.stdout).toMatch(/^GATEWAY +ADDRESS +PORT +URL +LISTENERS$/m)
    expect(r.stdout).toMatch(/^default +127\.0\.0\.1 +3000 +http:\/\/127\.0\.0\.1:3000 +default$/m)
    expect(r.stdout).toMatch(/^default +default +HTTP +mcp$/m)
    expect(r.stdout).toMatch(
      /^mcp +0 +PathPrefix \/mcp, .* +mcp-backend +CORS +mcp-auth, broken-jwks$/m,
    )
    expect(r.stdout).toMatch(/^idp +idp\.example\.com:443 +yes \(idp\.example\.com\)$/m)
    expect(r.stdout).toMatch(/^POLICY +TARGETS +ACCEPTED +ATTACHED +PROGRAMMED +REASON$/m)
    expect(r.stdout).toMatch(/^mcp-auth +HTTPRoute\/mcp +True +True +True +Programmed$/m)
    expect(r.stdout).toMatch(
      /^broken-jwks +HTTPRoute\/mcp +True +True +False +JwksUnavailable: the JWKS key set is not available: GET https:\/\/idp\.example\.com\/oauth2\/default\/v1\/keys answered 404$/m,
    )
    // Aligned: every POLICY row starts its ACCEPTED column at the same offset.
    const header = lines.find((l) => l.startsWith('POLICY')) ?? ''
    const col = header.indexOf('ACCEPTED')
    for (const l of lines.filter((x) => /^(mcp-auth|broken-jwks) /.test(x))) {
      expect(l.slice(col, col + 4)).toBe('True')
    }
  })

  it('reads back its own -o yaml output as a dump', async () => {
    const yaml = await runGwctl(['proxy', 'config', 'all', '--file', DUMP_FIXTURE, '-o', 'yaml'])
    const { writeFile, mkdtemp } = await import('node:fs/promises')
    const { tmpdir } = await import('node:os')
    const { join } = await import('node:path')
    const dir = await mkdtemp(join(tmpdir(), 'gwctl-'))
    await writeFile(join(dir, 'dump.yaml'), yaml.stdout)
    const r = await runGwctl([
      'proxy',
      'config',
      'all',
      '--file',
      join(dir, 'dump.yaml'),
      '-o',
      'json',
    ])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual(saved)
  })
})

describe('gwctl proxy config all errors', () => {
  it('says a missing file cannot be read and exits 1', async () => {
    const r = await runGwctl(['proxy', 'config', 'all', '--file', '/nonexistent/dump.json'])
    expect(r.code).toBe(1)
    expect(r.stderr).toBe('gwctl: cannot read /nonexistent/dump.json: no such file\n')
    expect(r.stdout).toBe('')
  })

  it('says a directory cannot be read as a file and exits 1', async () => {
    const dir = fixture('')
    const r = await runGwctl(['proxy', 'config', 'all', '--file', dir])
    expect(r.code).toBe(1)
    expect(r.stderr).toBe(`gwctl: cannot read ${dir}: it is a directory\n`)
  })

  it('says a JSON file without the dump sections is not a config dump and exits 1', async () => {
    const path = fixture('not-a-dump.json')
    const r = await runGwctl(['proxy', 'config', 'all', '--file', path])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(
      `gwctl: ${path} is not a config dump: binds, routes, backends, policies are missing or not a list.`,
    )
  })

  it('says a file that is neither JSON nor YAML is not a config dump and exits 1', async () => {
    const path = fixture('garbage.txt')
    const r = await runGwctl(['proxy', 'config', 'all', '--file', path])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(
      new RegExp(`^gwctl: ${path} is not a config dump: it is neither JSON nor YAML`),
    )
  })

  it('exits 2 when neither --file nor --local is given', async () => {
    const r = await runGwctl(['proxy', 'config', 'all'])
    expect(r.code).toBe(2)
    expect(r.stderr).toBe('gwctl: proxy config all: give --file <path> or --local\n')
  })

  it('exits 2 when both --file and --local are given', async () => {
    const r = await runGwctl(['proxy', 'config', 'all', '--file', DUMP_FIXTURE, '--local'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain("option '--file <path>' cannot be used with option '--local'")
  })

  it('exits 2 for an unknown output format', async () => {
    const r = await runGwctl(['proxy', 'config', 'all', '--file', DUMP_FIXTURE, '-o', 'xml'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('Allowed choices are yaml, json, short.')
  })

  it('says a live answer that is not a dump is not a config dump', async () => {
    const admin = await startScriptedAdmin({
      '/config_dump': (_req, res) => {
        sendJson(res, 200, { hello: 'world' })
      },
    })
    try {
      const r = await runGwctl(['--admin', admin.admin, 'proxy', 'config', 'all', '--local'])
      expect(r.code).toBe(1)
      expect(r.stderr).toContain(
        `gwctl: the /config_dump answer of ${admin.admin} is not a config dump: binds, routes, backends, policies are missing`,
      )
    } finally {
      await admin.close()
    }
  })
})

describe('gwctl proxy config all --local against a running gatehouse', () => {
  let live: LiveGatehouse
  beforeAll(async () => {
    live = await startLiveGatehouse()
  })
  afterAll(async () => {
    await live.close()
  })

  it('prints the live dump as JSON with the running gateway and route', async () => {
    const r = await runGwctl([
      '-p',
      live.adminPort,
      'proxy',
      'config',
      'all',
      '--local',
      '-o',
      'json',
    ])
    expect(r.code).toBe(0)
    const dump = JSON.parse(r.stdout) as {
      binds: Array<{ name: string; url: string }>
      routes: Array<{ name: string }>
      backends: Array<{ name: string }>
    }
    expect(dump.binds[0]?.url).toBe(live.url)
    expect(dump.routes.map((r) => r.name)).toEqual(['mcp'])
    expect(dump.backends.map((b) => b.name)).toEqual(['mcp-backend'])
  })

  it('prints the live dump as YAML', async () => {
    const r = await runGwctl([
      '--admin',
      live.admin,
      'proxy',
      'config',
      'all',
      '--local',
      '-o',
      'yaml',
    ])
    expect(r.code).toBe(0)
    const dump = parseYaml(r.stdout) as { binds: Array<{ url: string }> }
    expect(dump.binds[0]?.url).toBe(live.url)
  })

  it('prints the live dump as the short table', async () => {
    const r = await runGwctl([
      'proxy',
      'config',
      'all',
      '--local',
      '-o',
      'short',
      '-p',
      live.adminPort,
    ])
    expect(r.code).toBe(0)
    const port = new URL(live.url).port
    expect(r.stdout).toMatch(new RegExp(`^default +127\\.0\\.0\\.1 +${port} +${live.url} +`, 'm'))
    expect(r.stdout).toMatch(/^mcp +0 +PathPrefix \/mcp +mcp-backend +- +-$/m)
    expect(r.stdout).toMatch(/^POLICY .*\n<none>$/m)
  })
})
