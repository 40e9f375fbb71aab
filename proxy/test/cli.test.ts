import { once } from 'node:events'
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer as createHttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { freePort, gatehouseArgs, launch, launchGatehouse, runProcess } from '@gatehouse/support'
import { describe, expect, it } from 'vitest'
import { sqliteAvailable } from '../src/store/sqlite-file.js'

/** The command from source, through tsx (the bin runs the build; scripts/test checks that). */
function gatehouse(args: string[], env: NodeJS.ProcessEnv = {}, nodeFlags: string[] = []) {
  return runProcess(process.execPath, [...nodeFlags, ...gatehouseArgs(...args)], {
    env: { ...process.env, ...env },
  })
}

function file(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-cli-'))
  const path = join(dir, 'config.yaml')
  writeFileSync(path, text)
  return path
}

describe('gatehouse CLI', () => {
  it('validates the demo configuration and exits 0', async () => {
    const example = new URL('../../examples/standalone/gatehouse.yaml', import.meta.url).pathname
    const r = await gatehouse(['--validate', '-f', example])
    expect(r.stderr).toBe('')
    expect(r.stdout).toContain(
      'configuration is valid (1 gateway(s), 1 route(s), 2 backend(s), 2 policy(ies))',
    )
    expect(r.code).toBe(0)
  })

  it("warns, and still exits 0, when the CORS filter of an MCP route has only the seed's headers", async () => {
    const example = new URL('../../examples/standalone/gatehouse.yaml', import.meta.url).pathname
    const seedCors = readFileSync(example, 'utf8').replace(
      /allowHeaders: \[[^\]]*\]/,
      'allowHeaders: [Origin, Authorization, Content-Type]',
    )
    const r = await gatehouse(['--validate', '-f', file(seedCors)])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('configuration is valid')
    expect(r.stderr).toBe(
      "gatehouse: warning: routes.mcp.rules[0].filters[0].cors.allowHeaders: lacks Mcp-Session-Id, MCP-Protocol-Version, Mcp-Method, Mcp-Name: browser MCP clients send them (2025-11-25: after initialize; 2026-07-28: Mcp-Method and Mcp-Name on every request), so their preflight is refused and their requests fail; add them (the seed's reference values omit them)\n",
    )
  })

  it('exits 1 naming the path and the kind of value of a bad field', async () => {
    const r = await gatehouse(['--validate', '-f', file('gateways: { default: { port: "abc" } }')])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(
      'gateways.default.port: expected integer 1-65535, got a string of 3 characters',
    )
  })

  it.each([
    ['an unknown log level', 'config: { logLevel: verbose, adminAddr: off }', 'config.logLevel'],
    ['an admin port out of range', 'config: { adminAddr: "127.0.0.1:99999" }', 'config.adminAddr'],
    ['an unbounded drain timeout', 'config: { drainTimeout: 99999999h }', 'config.drainTimeout'],
    [
      "an admin address on the gateway's port",
      'config: { adminAddr: "127.0.0.1:1" }',
      'config.adminAddr',
    ],
  ])('--validate rejects %s, as start does', async (_name, config, path) => {
    const f = file(`${config}\ngateways: { default: { port: 1, address: 127.0.0.1 } }\n`)
    const validate = await gatehouse(['--validate', '-f', f])
    expect(validate.code).toBe(1)
    expect(validate.stderr).toContain(`${path}: `)
    // Port 1 would need privileges: a start that got past validation would fail on the bind.
    const start = await gatehouse(['-f', f])
    expect(start.code).toBe(1)
    expect(start.stderr).toContain(`${path}: `)
  })

  it('--validate exits 1 on more routes than config.maxRoutes, naming the count and the limit', async () => {
    const route = (i: number) =>
      `  r${i}: { allowUnauthenticated: true, rules: [{ matches: [{ path: { type: PathPrefix, value: /t${i} } }], backendRefs: [{ name: b }] }] }`
    const text = `config: { maxRoutes: 2 }
gateways: { default: { port: 3000 } }
backends: { b: { static: { host: 127.0.0.1, port: 9 } } }
routes:
${[0, 1, 2].map(route).join('\n')}
`
    const r = await gatehouse(['--validate', '-f', file(text)])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('routes: 3 routes is more than config.maxRoutes (2)')
    expect(r.stderr).toContain('raise config.maxRoutes')
    expect(r.stdout).not.toContain('configuration is valid')
  })

  it('exits 1 naming the path of a CEL expression that does not type-check (docs/design/layering.md)', async () => {
    const example = new URL('../../examples/standalone/gatehouse.yaml', import.meta.url).pathname
    const typo = readFileSync(example, 'utf8')
      .replace(`'"AI-Users" in jwt.groups'`, `'"AI-Users" in jwtt.groups'`)
      .replace(`'mcp.tool.name in ["echo", "progress"]'`, `'mcp.tol.name in ["echo", "progress"]'`)
    const r = await gatehouse(['--validate', '-f', file(typo)])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(
      /policies\.[a-z-]+\.traffic\.authorization\.policy\.matchExpressions\[0\]: invalid CEL .*Unknown variable: jwtt/,
    )
    expect(r.stderr).toMatch(
      /policies\.[a-z-]+\.traffic\.mcpAuthorization\.rules\[0\]: invalid CEL .*No such key: tol/,
    )
    expect(r.stdout).not.toContain('configuration is valid')
  })

  it('exits 1 when the file does not exist', async () => {
    const r = await gatehouse(['-f', '/nonexistent/gatehouse.yaml'])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('/nonexistent/gatehouse.yaml: invalid configuration')
    expect(r.stderr).toContain('file not found')
  })

  it('exits 2 with usage when -f is missing or an option is unknown', async () => {
    const missing = await gatehouse([])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('missing -f <config.yaml>')
    const unknown = await gatehouse(['--bogus'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain("Unknown option '--bogus'")
  })

  it('refuses to start a broker on the default store without node:sqlite, saying how to fix it (no fallback to memory)', async () => {
    const example = new URL('../../examples/standalone/gatehouse.yaml', import.meta.url).pathname
    const path = file(readFileSync(example, 'utf8'))
    // This Node without node:sqlite: Node 20 as it is, Node 22+ with the module switched off.
    const r = await gatehouse(
      ['-f', path],
      {},
      sqliteAvailable() ? ['--no-experimental-sqlite'] : [],
    )
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('needs node:sqlite')
    expect(r.stderr).toContain('Node.js 22.5 or later')
    expect(r.stderr).toContain('store: {memory: {}}')
    expect(r.stderr).not.toContain('unexpected error')
    expect(r.stdout).not.toContain('gatehouse listening')
    expect(existsSync(join(dirname(path), '.gatehouse', 'state.sqlite'))).toBe(false)
  })

  it('exits 1 with a clear message when the gateway port is taken, leaving nothing running', async () => {
    const { createServer } = await import('node:net')
    const blocker = createServer()
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r))
    const port = (blocker.address() as { port: number }).port
    const r = await gatehouse([
      '-f',
      file(
        `config: { adminAddr: "off" }\ngateways: { default: { port: ${port}, address: 127.0.0.1 } }`,
      ),
    ])
    blocker.close()
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(
      `gateways.default: cannot listen on 127.0.0.1:${port}: the address is already in use`,
    )
  })

  it('starts, logs every listening address, and exits 0 on SIGTERM', async () => {
    const port = await freePort()
    const path = file(
      `config: { adminAddr: "off" }\ngateways: { default: { port: ${port}, address: 127.0.0.1 } }`,
    )
    const gh = await launchGatehouse(path)
    expect(gh.output()).toContain(`default http://127.0.0.1:${port}`)
    expect((await gh.stop('SIGTERM')).code).toBe(0)
  })

  it('exits 1 at once on a second signal while it drains an open stream', async () => {
    // A backend that holds every event stream open, so the first SIGTERM drains (drainTimeout 1h).
    const backend = createHttpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(': open\n\n')
    })
    backend.listen(0, '127.0.0.1')
    await once(backend, 'listening')
    const port = await freePort()
    const path = file(
      [
        'config: { adminAddr: "off", drainTimeout: "1h" }',
        `gateways: { default: { port: ${port}, address: 127.0.0.1 } }`,
        `backends: { b: { static: { host: 127.0.0.1, port: ${(backend.address() as AddressInfo).port} } } }`,
        'routes: { r: { allowUnauthenticated: true, rules: [{ matches: [{ path: { value: /mcp } }], backendRefs: [{ name: b }] }] } }',
      ].join('\n'),
    )
    const gh = launch(process.execPath, gatehouseArgs('-f', path))
    try {
      await gh.waitForOutput('gatehouse listening')
      const stream = await fetch(`http://127.0.0.1:${port}/mcp`, {
        headers: { accept: 'text/event-stream' },
      })
      expect(stream.status).toBe(200)
      gh.child.kill('SIGTERM')
      await gh.waitForOutput('shutting down')
      gh.child.kill('SIGTERM')
      expect((await gh.exited).code).toBe(1)
      expect(gh.output()).toContain('gatehouse: SIGTERM again, exiting now')
      await stream.body?.cancel().catch(() => {})
    } finally {
      await gh.stop('SIGKILL')
      backend.closeAllConnections()
      backend.close()
    }
  })
})

describe('gatehouse CLI with Kubernetes manifests', () => {
  const example = (p: string) => new URL(`../../examples/kubernetes/${p}`, import.meta.url).pathname

  it('--validate --online fails, naming the provider and the cause, when the IdP discovery names another issuer', async () => {
    const { startMockIdp } = await import('@gatehouse/mock-idp')
    const idp = await startMockIdp({ shape: 'generic' })
    try {
      const config = (issuer: string) =>
        file(`gateways: { default: { port: 3000 } }
backends: { b: { static: { host: 127.0.0.1, port: 9 } } }
routes: { r: { rules: [{ matches: [{ path: { type: PathPrefix, value: /mcp } }], backendRefs: [{ name: b }] }] } }
policies:
  p:
    targetRefs: [{ name: r }]
    traffic:
      jwtAuthentication:
        providers: [{ issuer: "${issuer}", preset: generic, discoveryUrl: "${idp.discoveryUrl}", audiences: [a] }]
`)
      const wrong = config(`${idp.issuer}/`)
      // Offline the configuration is valid: nothing says the IdP disagrees.
      expect((await gatehouse(['--validate', '-f', wrong])).code).toBe(0)
      const r = await gatehouse(['--validate', '--online', '-f', wrong])
      expect(r.code).toBe(1)
      expect(r.stderr).toContain(
        `policies.p.traffic.jwtAuthentication.providers[0]: the discovery document at ${idp.discoveryUrl} names issuer ${idp.issuer}, but issuer is ${idp.issuer}/`,
      )
      const right = await gatehouse(['--validate', '--online', '-f', config(idp.issuer)])
      expect(right.stderr).toBe('')
      expect(right.code).toBe(0)
    } finally {
      await idp.stop()
    }
  }, 120_000)

  it('validates a multi-document manifest and a directory of them', async () => {
    const one = await gatehouse(['--validate', '-f', example('mcp-auth.yaml')])
    expect(one.stderr).toBe('')
    expect(one.stdout).toContain(
      'configuration is valid (7 resource(s) -> 1 gateway(s), 1 route(s), 2 backend(s), 2 policy(ies))',
    )
    expect(one.code).toBe(0)
    const dir = await gatehouse(['--validate', '-f', example('demo/')])
    expect(dir.code).toBe(0)
    expect(dir.stdout).toContain('6 resource(s) -> 1 gateway(s)')
  })

  it('exits 1 naming the resource, field and line of a CEL expression that does not type-check', async () => {
    const typo = readFileSync(example('mcp-auth.yaml'), 'utf8').replace(
      `'"AI-Users" in jwt.groups'`,
      `'"AI-Users" in jwtt.groups'`,
    )
    const r = await gatehouse(['--validate', '-f', file(typo)])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(
      /GatewayPolicy default\/mcp-auth: spec\.traffic\.authorization\.policy\.matchExpressions\[0\]: invalid CEL .*Unknown variable: jwtt.*config\.yaml line 119\)/,
    )
  })

  it('exits 1 on a broken reference, skips a well-known kind with a warning, and refuses to start without a listener', async () => {
    // Without its Gateway (the first document), plus a kind gatehouse does not read.
    const text = readFileSync(example('mcp-auth.yaml'), 'utf8')
      .replace(/^apiVersion: gateway\.networking\.k8s\.io\/v1\nkind: Gateway\n[\s\S]*?---\n/m, '')
      .concat('---\napiVersion: v1\nkind: ConfigMap\nmetadata: { name: cm }\ndata: {}\n')
    expect(text).not.toMatch(/^kind: Gateway$/m)
    const path = file(text)
    const validate = await gatehouse(['--validate', '-f', path])
    // The route is not served as written (its Gateway is missing): that is not valid.
    expect(validate.code).toBe(1)
    expect(validate.stderr).toContain(
      "gatehouse: warning: ConfigMap default/cm (v1): not named by an HTTPS listener's certificateRefs or a BackendTLSPolicy's caCertificateRefs; skipped",
    )
    expect(validate.stderr).toContain(
      'gatehouse: error: HTTPRoute default/mcp parent gateway-system/gateway: Accepted False (NoMatchingParent): Gateway gateway-system/gateway not found',
    )
    const start = await gatehouse(['-f', path])
    expect(start.code).toBe(1)
    expect(start.stderr).toContain('Gateway: no HTTP listener to serve')
  })
})

describe('gatehouse --validate fails closed', () => {
  const example = (p: string) => new URL(`../../examples/kubernetes/${p}`, import.meta.url).pathname
  const seed = () => readFileSync(example('mcp-auth.yaml'), 'utf8')

  it('exits 1 on a misspelled policy kind (GatewayPolicyy), naming it and the kind meant', async () => {
    const text = seed().replace(/^kind: GatewayPolicy$/m, 'kind: GatewayPolicyy')
    expect(text).toContain('kind: GatewayPolicyy')
    const r = await gatehouse(['--validate', '-f', file(text)])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(
      /GatewayPolicyy default\/mcp-auth: kind: GatewayPolicyy of gateway\.example\.dev .* did you mean GatewayPolicy \(gateway\.example\.dev\)\? \(.*config\.yaml line \d+\)/,
    )
  })

  it('exits 1 when a policy targets a route that does not exist (and the route has none)', async () => {
    const text = seed().replace(
      /(targetRefs:\n\s+- group: gateway\.networking\.k8s\.io\n\s+kind: HTTPRoute\n\s+name:) mcp/,
      '$1 mcpp',
    )
    expect(text).toContain('name: mcpp')
    const r = await gatehouse(['--validate', '-f', file(text)])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(
      'HTTPRoute default/mcp: spec: no policy with traffic.jwtAuthentication targets this route',
    )
  })

  it('exits 1 on a policy reference to nothing even when the route stays covered', async () => {
    // A second policy on a route that does not exist: what is served differs from what is written.
    const extra = `---
apiVersion: gateway.example.dev/v1alpha1
kind: GatewayPolicy
metadata: { name: stray, namespace: default }
spec:
  targetRefs: [{ group: gateway.networking.k8s.io, kind: HTTPRoute, name: gone }]
  traffic: { authorization: { policy: { matchExpressions: ['true'] } } }
`
    const r = await gatehouse(['--validate', '-f', file(seed() + extra)])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(
      'gatehouse: error: GatewayPolicy default/stray: Accepted False (TargetNotFound): HTTPRoute default/gone not found',
    )
  })

  it('exits 1 with --strict on a warning (0 without: see "warns, and still exits 0"), 0 on a clean file', async () => {
    const example = new URL('../../examples/standalone/gatehouse.yaml', import.meta.url).pathname
    const seedCors = readFileSync(example, 'utf8').replace(
      /allowHeaders: \[[^\]]*\]/,
      'allowHeaders: [Origin, Authorization, Content-Type]',
    )
    const path = file(seedCors)
    const strict = await gatehouse(['--validate', '--strict', '-f', path])
    expect(strict.code).toBe(1)
    expect(strict.stderr).toContain('1 warning(s), refused by --strict')
    const clean = await gatehouse(['--validate', '--strict', '-f', example])
    expect(clean.code).toBe(0)
  })
})

describe('gatehouse CLI reload triggers', () => {
  it('reloads when its file changes and on SIGHUP, logging each', async () => {
    const [port, admin] = [await freePort(), await freePort()]
    const text = (level: string) =>
      `config: { adminAddr: "127.0.0.1:${admin}", logLevel: ${level} }\ngateways: { default: { port: ${port}, address: 127.0.0.1 } }\n`
    const path = file(text('info'))
    const gh = launch(process.execPath, gatehouseArgs('-f', path))
    const seen = (text: string) => gh.waitForOutput(text)
    try {
      await seen('for configuration changes')
      // A change the watcher sees: the gateway's port moves.
      const moved = await freePort()
      writeFileSync(path, text('info').replace(`port: ${port}`, `port: ${moved}`))
      await seen('configuration reloaded (watch)')
      expect((await fetch(`http://127.0.0.1:${moved}/x`)).status).toBe(404)
      gh.child.kill('SIGHUP')
      const dump = async () =>
        (await (await fetch(`http://127.0.0.1:${admin}/config_dump`)).json()) as {
          reload?: { trigger: string; result: string }
        }
      for (let i = 0; i < 200 && (await dump()).reload?.trigger !== 'SIGHUP'; i++) {
        await new Promise((r) => setTimeout(r, 50))
      }
      expect((await dump()).reload).toMatchObject({ trigger: 'SIGHUP', result: 'unchanged' })
    } finally {
      await gh.stop('SIGTERM')
    }
  })
})

describe('gatehouse CLI memory', () => {
  it('gives memory back once it is idle after start-up (telemetry/memory-trim.ts runs in its process)', async () => {
    const port = await freePort()
    const path = file(
      `config: { adminAddr: off, logLevel: "info,proxy::dataplane=debug" }\ngateways: { default: { port: ${port}, address: 127.0.0.1 } }\n`,
    )
    const gh = launch(process.execPath, gatehouseArgs('-f', path))
    try {
      await gh.waitForOutput('idle: memory given back')
      const line = gh
        .stdout()
        .split('\n')
        .find((l) => l.includes('idle: memory given back'))
      expect(JSON.parse(line ?? '{}')).toMatchObject({
        rssBefore: expect.any(Number),
        rssAfter: expect.any(Number),
      })
    } finally {
      await gh.stop('SIGTERM')
    }
  })
})
