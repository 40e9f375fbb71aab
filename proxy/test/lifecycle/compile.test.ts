/**
 * compile.ts: one `compile(config)` that `gatehouse --validate`, start-up and reload call. It
 * returns the compiled configuration or every issue with its path, reads what the checks need
 * (CA bundles) once and opens nothing; `buildSnapshot` builds the runtime from its result only.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { CelCompiler } from '../../src/config/cel.js'
import { parseConfig } from '../../src/config/load.js'
import { ConfigError } from '../../src/errors.js'
import {
  buildSnapshot,
  compile,
  compileOrThrow,
  retireSnapshot,
} from '../../src/lifecycle/compile.js'
import { createLogging } from '../../src/telemetry/logging.js'
import { TaskRegistry } from '../../src/telemetry/tasks.js'
import { manyRoutes } from '../config/many-routes.js'
import { turnsDuring } from '../event-loop-turns.js'

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-compile-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A file with one TLS backend whose CA bundle is `ca`, and a policy with one CEL rule. */
function configWith(ca: string, rule = 'jwt.sub == "alice"') {
  return parseConfig(
    `gateways: { default: { port: 3000 } }
backends:
  b: { static: { host: 127.0.0.1, port: 8443 }, tls: { hostname: localhost, caCertificates: [ '${ca}' ] } }
routes:
  r:
    allowUnauthenticated: true
    rules:
      - matches: [ { path: { type: PathPrefix, value: / } } ]
        backendRefs: [ { name: b } ]
policies:
  p:
    targetRefs: [ { name: r } ]
    traffic:
      authorization:
        policy: { matchExpressions: [ '${rule}' ] }
`,
    'compile.yaml',
    {},
  )
}

describe('compile', () => {
  it('returns every issue with its path instead of throwing: a CEL error and an unreadable CA bundle', async () => {
    const result = await compile(configWith(join(dir, 'missing.pem'), 'jwtt.sub == "alice"'))
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.issues.map((i) => i.path)).toEqual([
      'policies.p.traffic.authorization.policy.matchExpressions[0]',
      'backends.b.tls.caCertificates',
    ])
    expect(result.issues[1]?.message).toContain('missing.pem')
  })

  it('holds what it read (the CA bundle) and compiled (the CEL programs), and no pool', async () => {
    const ca = join(dir, 'ca.pem')
    writeFileSync(ca, 'not checked here: read as text\n')
    const result = await compile(configWith(ca))
    expect(result.ok).toBe(true)
    if (!result.ok) return
    expect(Object.keys(result.compiled).sort()).toEqual([
      'caBundles',
      'cel',
      'certificates',
      'config',
    ])
    expect(result.compiled.caBundles.get('b')).toEqual(['not checked here: read as text\n'])
    expect(result.compiled.cel).toBeInstanceOf(CelCompiler)
  })
})

describe('compileOrThrow', () => {
  it('throws a ConfigError listing the issues, each passed through locate', async () => {
    const err = await compileOrThrow(
      configWith(join(dir, 'missing.pem')),
      'compile.yaml',
      (issue) => ({ ...issue, message: `${issue.message} (line 3)` }),
    ).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ConfigError)
    expect((err as ConfigError).file).toBe('compile.yaml')
    expect((err as ConfigError).issues[0]?.message).toMatch(/\(line 3\)$/)
  })
})

describe('buildSnapshot', () => {
  it('builds the pools from the bundles compile read, without reading the files again', async () => {
    const ca = join(dir, 'gone.pem')
    writeFileSync(ca, 'read once\n')
    const compiled = await compileOrThrow(configWith(ca))
    rmSync(ca)
    const snapshot = await buildSnapshot(compiled, {
      logging: createLogging({ filter: 'off' }),
      tasks: new TaskRegistry(),
    })
    try {
      expect(snapshot.upstreams.get('b')?.origin).toBe('https://127.0.0.1:8443')
      expect(snapshot.routesOf.get('default')).toEqual(['r'])
    } finally {
      await retireSnapshot(snapshot, undefined)
    }
  })

  it('gives the event loop a turn every 250 routes in each walk over 10,000 routes under one policy, every 50 in the route-table walk', async () => {
    const n = 10_000
    const config = manyRoutes(n)
    const compiled = await compileOrThrow(config)
    const { result: snapshot, turns } = await turnsDuring(() =>
      buildSnapshot(compiled, {
        logging: createLogging({ filter: 'off' }),
        tasks: new TaskRegistry(),
      }),
    )
    try {
      // The policy's 10,000 references (indexed twice: the attached policies, the compiled
      // ones) and the gateway's route list: three walks, a turn per 250 in each; the walk that
      // compiles each route's rules into the router, a turn per 50 (250 there were the longest
      // busy run left). One of them in one go was a stall of the whole walk (docs/reliability.md).
      expect(turns).toBeGreaterThanOrEqual((3 * n) / 250 + n / 50)
      expect(snapshot.routesOf.get('default')).toHaveLength(n)
    } finally {
      await retireSnapshot(snapshot, undefined)
    }
  })

  it('on a reload, compares a policy naming 10,000 routes with the previous one a turn every 250 references, and keeps it only when equal', async () => {
    const n = 10_000
    const config = manyRoutes(n)
    const services = { logging: createLogging({ filter: 'off' }), tasks: new TaskRegistry() }
    const previous = await buildSnapshot(await compileOrThrow(config), services)
    const p = config.policies.p as (typeof config.policies)[string]
    // The same policy, as a reload reads it: equal, not the same objects.
    const again = { ...config, policies: { p: structuredClone(p) } } as typeof config
    const { result: kept, turns } = await turnsDuring(async () =>
      buildSnapshot(await compileOrThrow(again), services, previous),
    )
    // One reference changed (the last): the comparison must read every one.
    const moved = {
      ...config,
      policies: {
        p: {
          ...p,
          targetRefs: p.targetRefs.map((r, i) => (i === n - 1 ? { ...r, name: 'r0' } : r)),
        },
      },
    } as typeof config
    const changed = await buildSnapshot(await compileOrThrow(moved), services, previous)
    try {
      // The four walks of the first build, and the comparison of the 10,000 references: compared
      // in one call, it was a stall of its own (docs/reliability.md).
      expect(turns).toBeGreaterThanOrEqual((5 * n) / 250)
      expect(kept.policies.get('p')).toBe(previous.policies.get('p'))
      expect(changed.policies.get('p')).not.toBe(previous.policies.get('p'))
    } finally {
      await retireSnapshot(changed, previous)
      await retireSnapshot(kept, previous)
      await retireSnapshot(previous, undefined)
    }
  })

  it("on a reload, keeps a route's MCP stage (its rate-limit buckets) exactly when its policy is equal, targetRefs included", async () => {
    const read = () =>
      parseConfig(
        `gateways: { default: { port: 3000 } }
backends: { b: { static: { host: 127.0.0.1, port: 9 } } }
routes:
  r: { allowUnauthenticated: true, rules: [ { matches: [ { path: { type: PathPrefix, value: /r } } ], backendRefs: [ { name: b } ] } ] }
  s: { allowUnauthenticated: true, rules: [ { matches: [ { path: { type: PathPrefix, value: /s } } ], backendRefs: [ { name: b } ] } ] }
policies:
  p:
    targetRefs: [ { name: r } ]
    traffic: { localRateLimit: [ { name: calls, maxTokens: 1, fillInterval: 1m, key: jwt.sub } ] }
`,
        'compile.yaml',
        {},
      )
    const config = read()
    const services = { logging: createLogging({ filter: 'off' }), tasks: new TaskRegistry() }
    const previous = await buildSnapshot(await compileOrThrow(config), services)
    const p = config.policies.p as (typeof config.policies)[string]
    // The same file read again: equal, not the same objects (`Duration`s included).
    const equal = read()
    const retargeted = {
      ...config,
      policies: { p: { ...p, targetRefs: [...p.targetRefs, { ...p.targetRefs[0], name: 's' }] } },
    } as typeof config
    const kept = await buildSnapshot(await compileOrThrow(equal), services, previous)
    const changed = await buildSnapshot(await compileOrThrow(retargeted), services, previous)
    try {
      const stage = previous.mcpOfRoute.get('r')?.stage
      expect(stage).toBeDefined()
      expect(kept.mcpOfRoute.get('r')?.stage).toBe(stage)
      expect(changed.mcpOfRoute.get('r')?.stage).not.toBe(stage)
    } finally {
      await retireSnapshot(changed, previous)
      await retireSnapshot(kept, previous)
      await retireSnapshot(previous, undefined)
    }
  })
})
