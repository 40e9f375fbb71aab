/**
 * Every example manifest compiles to the same policies as its standalone equivalent: the
 * `/config_dump` policies section (targets, traffic, the compiled policy's own view and status)
 * is the same whichever form the configuration was written in. Also: the manifests the
 * conformance harness prints for `--target` load.
 */
import { fileURLToPath } from 'node:url'
import { kubernetesFiles } from '@gatehouse/conformance/internal/kubernetes-config'
import { gatehouseConfig, kubernetesManifests } from '@gatehouse/conformance/internal/stack'
import { describe, expect, it } from 'vitest'
import { stringify } from 'yaml'
import { buildConfigDump } from '../../../src/admin/config-dump.js'
import type { AdminContext } from '../../../src/admin/context.js'
import { buildSnapshot, compileOrThrow } from '../../../src/compile.js'
import { parseConfig } from '../../../src/config/load.js'
import { type ConfigSource, loadConfigSources } from '../../../src/config/sources.js'
import { createLogging } from '../../../src/telemetry/logging.js'
import { TaskRegistry } from '../../../src/telemetry/tasks.js'
import { TraceBus } from '../../../src/telemetry/trace-bus.js'
import { findingsOf, writeDir } from './manifests.js'

const root = fileURLToPath(new URL('../../../../', import.meta.url))

/** The policies of the dump of a compiled (not started) configuration. */
async function dumpedPolicies(source: ConfigSource) {
  const logging = createLogging({ filter: 'error' })
  const tasks = new TaskRegistry()
  const snapshot = await buildSnapshot(await compileOrThrow(source.config), { logging, tasks })
  try {
    const ctx: AdminContext = {
      config: () => source.config,
      policies: () => snapshot.policies,
      gateways: () => [],
      traceBus: new TraceBus(),
      logging,
      tasks,
      startedAt: new Date(0),
      version: 'test',
      shutdown: async () => {},
    }
    return buildConfigDump(ctx).policies
  } finally {
    for (const p of snapshot.policies.values()) p.stop()
    await Promise.all([...snapshot.upstreams.values()].map((u) => u.close()))
  }
}

const EXAMPLES: Array<[string, string]> = [
  ['examples/kubernetes/mcp-auth.yaml', 'examples/kubernetes/mcp-auth.gatehouse.yaml'],
  ['examples/kubernetes/demo/', 'examples/standalone/gatehouse.yaml'],
]

describe('example manifests', () => {
  it.each(EXAMPLES)('%s shows the same compiled policies as %s', async (manifest, standalone) => {
    const env = {}
    const k8s = await loadConfigSources([`${root}${manifest}`], { env })
    const plain = await loadConfigSources([`${root}${standalone}`], { env })
    expect(k8s.format).toBe('kubernetes')
    expect(plain.format).toBe('standalone')
    const policies = await dumpedPolicies(k8s)
    expect(policies.length).toBeGreaterThan(0)
    expect(policies).toEqual(await dumpedPolicies(plain))
    // The rest of the configuration is the same too.
    expect(k8s.config.routes).toEqual(plain.config.routes)
    expect(k8s.config.backends).toEqual(plain.config.backends)
    expect(k8s.config.gateways).toEqual(plain.config.gateways)
  })

  it('reports every resource of the examples Accepted', async () => {
    for (const [manifest] of EXAMPLES) {
      const s = await loadConfigSources([`${root}${manifest}`], { env: {} })
      for (const r of s.resources) {
        expect(
          r.conditions.filter((c) => c.status !== 'True'),
          `${manifest} ${r.kind} ${r.name}`,
        ).toEqual([])
      }
    }
  })
})

describe('the manifests conformance --target prints', () => {
  const fixtures = {
    idp: {
      orgUrl: 'http://127.0.0.1:9000',
      issuer: 'http://127.0.0.1:9000/oauth2/default',
      audience: 'api://default',
      publicClientId: 'gatehouse-demo-client',
    },
    backend: { port: 8090 },
  } as unknown as Parameters<typeof kubernetesManifests>[0]
  const printed = kubernetesManifests(fixtures, 'http://gateway.example:3000/mcp')

  it('load on their own, the route reporting that its Gateway is elsewhere', async () => {
    const dir = writeDir({ 'target.yaml': printed })
    const s = await loadConfigSources([dir], { env: {} })
    expect(findingsOf(s, 'HTTPRoute', 'mcp').parents?.[0]?.conditions[0]?.reason).toBe(
      'NoMatchingParent',
    )
  })

  it('are, for the harness configuration (--config-format kubernetes), the same configuration', async () => {
    const config = gatehouseConfig(fixtures as unknown as Parameters<typeof gatehouseConfig>[0], {
      gateway: 3000,
      proxied: 3001,
      scoped: 3002,
      admin: 15000,
    })
    const s = await loadConfigSources([writeDir(kubernetesFiles(config))], { env: {} })
    expect(s.format).toBe('kubernetes')
    expect(s.config).toEqual(parseConfig(stringify(config), 'harness.yaml', {}))
  })

  it('run with a standalone document that gives their Gateway a port', async () => {
    const dir = writeDir({
      'gateway.yaml': 'config: { adminAddr: off }\ngateways: { gateway: { port: 3000 } }\n',
      'target.yaml': printed,
    })
    const s = await loadConfigSources([dir], { env: {} })
    expect(s.config.routes.mcp?.parentRefs).toEqual([{ name: 'gateway' }])
    expect(Object.keys(s.config.policies).sort()).toEqual(['mcp-auth', 'mcp-tools'])
    expect(s.config.config.adminAddr).toBe('off')
  })
})
