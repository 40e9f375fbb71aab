import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Gatehouse, loadConfigSources, startGatehouse } from '@gatehouse/proxy'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse, stringify } from 'yaml'
import { runGwctl, startBackend, startLiveGatehouse } from '../helpers.js'

const GROUP = 'gateway.example.dev'
const GW = 'gateway.networking.k8s.io'
const res = (apiVersion: string, kind: string, name: string, spec: Record<string, unknown>) => ({
  apiVersion,
  kind,
  metadata: { name, generation: 3 },
  spec,
})
const route = (name: string, prefix: string, backend: string) => {
  const doc = res(`${GW}/v1`, 'HTTPRoute', name, {
    parentRefs: [{ name: 'gw' }],
    rules: [
      {
        matches: [{ path: { type: 'PathPrefix', value: prefix } }],
        backendRefs: [{ group: GROUP, kind: 'GatewayBackend', name: backend }],
      },
    ],
  })
  // Public on purpose: these tests are about status, not authentication.
  return {
    ...doc,
    metadata: { ...doc.metadata, annotations: { [`${GROUP}/allow-unauthenticated`]: 'true' } },
  }
}

/** Starts gatehouse from manifests: a healthy route, and with `broken` one to a missing backend. */
async function startFromManifests(backendPort: number, broken: boolean): Promise<Gatehouse> {
  const docs = [
    { config: { adminAddr: '127.0.0.1:0', logLevel: 'error' } },
    res(`${GW}/v1`, 'Gateway', 'gw', {
      listeners: [{ name: 'http', protocol: 'HTTP', port: 3000 }],
    }),
    res(`${GROUP}/v1alpha1`, 'GatewayBackend', 'mcp-backend', {
      static: { host: '127.0.0.1', port: backendPort },
    }),
    route('mcp', '/mcp', 'mcp-backend'),
    ...(broken ? [route('other', '/other', 'missing')] : []),
  ]
  const dir = mkdtempSync(join(tmpdir(), 'gwctl-status-'))
  writeFileSync(join(dir, 'all.yaml'), docs.map((d) => stringify(d)).join('---\n'))
  const source = await loadConfigSources([dir], { env: {} })
  return startGatehouse({ config: source.config, source, ephemeralPorts: true })
}

const adminOf = (g: Gatehouse) => (g.adminUrl ?? '').replace(/^http:\/\//, '')

describe('gwctl proxy status against gatehouse started from manifests', () => {
  let backend: Awaited<ReturnType<typeof startBackend>>
  let healthy: Gatehouse
  let broken: Gatehouse
  beforeAll(async () => {
    backend = await startBackend()
    healthy = await startFromManifests(backend.port, false)
    broken = await startFromManifests(backend.port, true)
  })
  afterAll(async () => {
    await healthy.stop('test finished')
    await broken.stop('test finished')
    await backend.close()
  })

  it('shows every resource Programmed in a table and exits 0', async () => {
    const r = await runGwctl(['--admin', adminOf(healthy), 'proxy', 'status'])
    expect(r.stderr).toBe('')
    const lines = r.stdout.trim().split('\n')
    expect(lines[0]).toMatch(
      /^KIND\s+NAME\s+ACCEPTED\s+RESOLVEDREFS\s+ATTACHED\s+PROGRAMMED\s+REASON$/,
    )
    expect(lines).toContainEqual(
      expect.stringMatching(/^HTTPRoute\s+default\/mcp\s+True\s+True\s+True\s+True$/),
    )
    expect(lines).toContainEqual(
      expect.stringMatching(/^Gateway\s+default\/gw\s+True\s+True\s+True\s+True$/),
    )
    expect(r.code).toBe(0)
  })

  it('exits 1 and names the reason when a route is not Programmed', async () => {
    const r = await runGwctl(['--admin', adminOf(broken), 'proxy', 'status'])
    expect(r.code).toBe(1)
    expect(r.stdout).toMatch(
      /HTTPRoute\s+default\/other\s+True\s+False\s+False\s+False\s+BackendNotFound: GatewayBackend default\/missing not found/,
    )
  })

  it('prints Gateway API status as YAML with -o yaml: reasons, generations, transition times, parents', async () => {
    const r = await runGwctl(['--admin', adminOf(broken), 'proxy', 'status', '-o', 'yaml'])
    expect(r.code).toBe(1)
    const doc = parse(r.stdout) as { resources: Array<Record<string, unknown>> }
    const other = doc.resources.find((x) => x.name === 'other') as {
      conditions: Array<Record<string, unknown>>
      parents: Array<{
        parentRef: Record<string, string>
        conditions: Array<Record<string, unknown>>
      }>
    }
    expect(other.conditions.map((c) => c.type)).toEqual([
      'Accepted',
      'ResolvedRefs',
      'Attached',
      'Programmed',
    ])
    expect(other.conditions[1]).toMatchObject({
      status: 'False',
      reason: 'BackendNotFound',
      observedGeneration: 3,
    })
    expect(Date.parse(String(other.conditions[1]?.lastTransitionTime))).not.toBeNaN()
    expect(other.parents[0]?.parentRef).toMatchObject({
      kind: 'Gateway',
      name: 'gw',
      namespace: 'default',
    })
    expect(other.parents[0]?.conditions[1]).toMatchObject({ type: 'ResolvedRefs', status: 'False' })
  })
})

describe('gwctl proxy status against a standalone gatehouse', () => {
  it('shows each policy; no policy is nothing to fail on', async () => {
    const live = await startLiveGatehouse()
    try {
      const r = await runGwctl(['-p', live.adminPort, 'proxy', 'status'])
      expect(r.stdout).toMatch(/^KIND\s+NAME/)
      expect(r.stdout).toContain('<none>')
      expect(r.code).toBe(0)
    } finally {
      await live.close()
    }
  })
})

describe('gwctl proxy status after a reload that failed', () => {
  it('shows the configuration not Programmed, with the reason, and exits 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gwctl-status-'))
    const dump = {
      binds: [],
      routes: [],
      backends: [],
      policies: [],
      resources: [],
      reload: {
        at: '2026-11-25T17:00:00.000Z',
        trigger: 'watch',
        result: 'failure',
        message: 'a.yaml: invalid configuration (line 3)',
      },
    }
    writeFileSync(join(dir, 'dump.json'), JSON.stringify(dump))
    const r = await runGwctl(['proxy', 'status', '--file', join(dir, 'dump.json')])
    expect(r.code).toBe(1)
    expect(r.stdout).toMatch(
      /Configuration\s+last-reload\s+False\s+-\s+-\s+False\s+Invalid: reload at 2026-11-25T17:00:00.000Z refused, the previous configuration serves: a\.yaml: invalid configuration \(line 3\)/,
    )
    expect(r.stdout).toContain('last reload: failure at 2026-11-25T17:00:00.000Z')
  })
})

describe('gwctl proxy status of routes that serve without authentication', () => {
  const dumpOf = (doc: Record<string, unknown>) => {
    const file = join(mkdtempSync(join(tmpdir(), 'gwctl-status-')), 'dump.json')
    writeFileSync(
      file,
      JSON.stringify({ binds: [], backends: [], resources: [], policies: [], routes: [], ...doc }),
    )
    return file
  }
  const mcp = { name: 'mcp', rules: [] }

  it('exits 1 naming a route that no policy authenticates and that never said it may be public', async () => {
    // A dump of an older proxy: no `authentication` field, no policy targets the route.
    const r = await runGwctl(['proxy', 'status', '--file', dumpOf({ routes: [mcp] })])
    expect(r.code).toBe(1)
    expect(r.stdout).toMatch(
      /Route\s+mcp\s+False\s+-\s+-\s+False\s+Unauthenticated: route mcp serves without authentication/,
    )
    const none = await runGwctl([
      'proxy',
      'status',
      '--file',
      dumpOf({ routes: [{ ...mcp, authentication: 'None' }] }),
    ])
    expect(none.code).toBe(1)
  })

  it('exits 0 for a route a policy authenticates, or that says allowUnauthenticated', async () => {
    const policy = {
      name: 'auth',
      targetRefs: [{ name: 'mcp' }],
      traffic: { jwtAuthentication: { providers: [] } },
    }
    const covered = await runGwctl([
      'proxy',
      'status',
      '--file',
      dumpOf({ routes: [mcp], policies: [policy] }),
    ])
    expect(covered.stdout).not.toContain('Unauthenticated')
    const open = await runGwctl([
      'proxy',
      'status',
      '--file',
      dumpOf({ routes: [{ ...mcp, authentication: 'AllowUnauthenticated' }] }),
    ])
    expect(open.code).toBe(0)
  })

  it('gives the reason of a reload refused for a route without authentication', async () => {
    const reload = {
      at: '2026-11-28T07:00:00.000Z',
      trigger: 'watch',
      result: 'failure',
      reason: 'Unauthenticated',
      message:
        'g.yaml: invalid configuration\n  routes.mcp: no policy with traffic.jwtAuthentication targets this route',
    }
    const r = await runGwctl(['proxy', 'status', '--file', dumpOf({ reload })])
    expect(r.code).toBe(1)
    expect(r.stdout).toMatch(
      /Configuration\s+last-reload\s+False\s+-\s+-\s+False\s+Unauthenticated: /,
    )
  })
})

describe('gwctl proxy status of a proxy with several workers', () => {
  const dumpWith = (workers: unknown[]) => {
    const dir = mkdtempSync(join(tmpdir(), 'gwctl-status-'))
    const file = join(dir, 'dump.json')
    writeFileSync(
      file,
      JSON.stringify({ binds: [], routes: [], backends: [], policies: [], resources: [], workers }),
    )
    return file
  }
  const ready = (id: number, policies = {}) => ({
    id,
    pid: 100 + id,
    state: 'ready',
    restarts: 0,
    policies,
  })

  it('shows each worker Programmed when ready with every policy programmed, and exits 0', async () => {
    const r = await runGwctl(['proxy', 'status', '--file', dumpWith([ready(1), ready(2)])])
    expect(r.stdout).toMatch(/Worker\s+worker-1\s+-\s+-\s+-\s+True/)
    expect(r.stdout).toMatch(/Worker\s+worker-2\s+-\s+-\s+-\s+True/)
    expect(r.code).toBe(0)
  })

  it('exits 1 naming a worker that is restarting or lacks a policy', async () => {
    const exited = { id: 2, pid: null, state: 'exited', restarts: 3 }
    const r = await runGwctl([
      'proxy',
      'status',
      '--file',
      dumpWith([ready(1, { auth: { programmed: false, reason: 'JwksUnavailable' } }), exited]),
    ])
    expect(r.code).toBe(1)
    expect(r.stdout).toMatch(
      /worker-1\s+-\s+-\s+-\s+False\s+JwksUnavailable: policy auth is not programmed on worker 1 \(pid 101\)/,
    )
    expect(r.stdout).toMatch(
      /worker-2 .*False\s+Restarting: worker 2 is exited, restarted 3 time\(s\)/,
    )
  })
})
