/**
 * Static checks of the shipped examples and the container demo (compose.yaml, Dockerfile,
 * .dockerignore): they keep them from drifting from the code on every machine, with or without a
 * Docker engine (`npm run test:compose`, ci/compose-smoke.ts, runs the stack where one can be had).
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import dockerignoreModule from '@balena/dockerignore'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { loadConfigFile } from '../../src/config/load.js'
import { compile } from '../../src/lifecycle/compile.js'

const root = fileURLToPath(new URL('../../../', import.meta.url))
const read = (file: string): string => readFileSync(`${root}${file}`, 'utf8')

interface ComposeService {
  build?: { context: string; target: string }
  command: string[]
  ports?: string[]
  expose?: string[]
  healthcheck?: { test: string[] }
  depends_on?: Record<string, { condition: string }>
}
const compose = parse(read('compose.yaml')) as { services: Record<string, ComposeService> }

describe('examples', () => {
  it.each(['examples/standalone/gatehouse.yaml', 'examples/compose/gatehouse.yaml'])(
    '%s is a valid configuration',
    async (file) => {
      const config = await loadConfigFile(`${root}${file}`)
      await expect(compile(config)).resolves.toMatchObject({ ok: true })
    },
  )
})

describe('examples serve the protected-resource metadata at the root form too', () => {
  it.each([
    'examples/standalone/gatehouse.yaml',
    'examples/compose/gatehouse.yaml',
    'examples/kubernetes/mcp-auth.yaml',
  ])('%s matches /.well-known/oauth-protected-resource (MCP 2025-11-25 fallback)', (file) => {
    expect(read(file)).toMatch(
      /- path: \{ type: Exact, value: \/\.well-known\/oauth-protected-resource \}/,
    )
  })
})

describe('compose.yaml', () => {
  it('runs each service from its own Dockerfile target, with files that exist', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['gatehouse', 'mcp-backend', 'mock-idp'])
    for (const [name, service] of Object.entries(compose.services)) {
      expect(service.build, name).toEqual({ context: '.', target: name })
      expect(stages(), name).toContain(name)
      expect(service.command[0], name).toBe('node')
      for (const arg of service.command.slice(1)) {
        if (/\.(js|ya?ml)$/.test(arg))
          expect(existsSync(`${root}${arg}`), `${name}: ${arg}`).toBe(true)
      }
    }
  })

  it('has a healthcheck on every service, and starts gatehouse once the others are healthy', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      expect(service.healthcheck?.test[0], name).toBe('CMD')
    }
    expect(compose.services.gatehouse?.depends_on).toEqual({
      'mock-idp': { condition: 'service_healthy' },
      'mcp-backend': { condition: 'service_healthy' },
    })
  })

  it('publishes ports on the host loopback only', () => {
    const published = Object.values(compose.services).flatMap((s) => s.ports ?? [])
    expect(published.length).toBeGreaterThan(0)
    for (const p of published) expect(p).toMatch(/^127\.0\.0\.1:\d+:\d+$/)
  })

  it("waits on gatehouse's /ready (admin interface) for its healthcheck", () => {
    const test = compose.services.gatehouse?.healthcheck?.test.join(' ') ?? ''
    expect(test).toContain("fetch('http://localhost:15000/ready')")
    expect(test).toContain('r.ok ? 0 : 1')
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

describe('the Kubernetes deployment example', () => {
  interface Probe {
    exec: { command: string[] }
  }
  interface Container {
    args: string[]
    readinessProbe: Probe
    livenessProbe: Probe
    volumeMounts: Array<{ mountPath: string }>
  }
  const docs = read('examples/kubernetes/deploy/gatehouse.yaml')
    .split(/^---$/m)
    .map(
      (d) =>
        parse(d) as { kind: string; spec: { template: { spec: { containers: Container[] } } } },
    )
  const container = docs.find((d) => d.kind === 'Deployment')?.spec.template.spec
    .containers[0] as Container

  it('probes readiness on /ready and liveness on /healthz, inside the container', () => {
    expect(container.readinessProbe.exec.command.join(' ')).toContain('localhost:15000/ready')
    expect(container.livenessProbe.exec.command.join(' ')).toContain('localhost:15000/healthz')
  })

  it('runs the image gatehouse reads its manifests with, from the ConfigMap it mounts', () => {
    expect(container.args).toEqual(['node', 'proxy/bin/gatehouse.js', '-f', '/etc/gatehouse/'])
    expect(container.volumeMounts[0]?.mountPath).toBe('/etc/gatehouse')
  })
})

const dockerfile = read('Dockerfile')
// A CommonJS module: its typed default export is the module's own `default` member.
const dockerignore = dockerignoreModule.default

/** The Dockerfile's stages: `FROM <image> AS <name>`. */
function stages(): string[] {
  return [...dockerfile.matchAll(/^FROM\s+\S+\s+AS\s+(\S+)$/gm)].map((m) => m[1] as string)
}

/** The instructions of one stage, up to the next FROM. */
function stage(name: string): string {
  const start = dockerfile.search(new RegExp(`^FROM\\s+\\S+\\s+AS\\s+${name}$`, 'm'))
  const rest = dockerfile.slice(start + 1)
  const end = rest.search(/^FROM\s/m)
  return end < 0 ? rest : rest.slice(0, end)
}

/** Every file under `dir`, relative to the root. */
function filesUnder(dir: string): string[] {
  return readdirSync(`${root}${dir}`, { recursive: true, encoding: 'utf8' })
    .map((f) => `${dir}/${f}`)
    .filter((f) => statSync(`${root}${f}`).isFile())
}

describe('Dockerfile', () => {
  it('copies every workspace manifest before npm ci, so the lockfile install succeeds', () => {
    const workspaces = (JSON.parse(read('package.json')) as { workspaces: string[] }).workspaces
    for (const ws of workspaces) expect(dockerfile).toContain(`COPY ${ws}/package.json ${ws}/`)
    expect(stage('build')).toMatch(/RUN npm ci\b/)
    expect(stage('prod-deps')).toMatch(/RUN npm ci --omit=dev\b/)
  })

  it('runs every service image as the unprivileged node user, from the build, without tsx', () => {
    for (const name of Object.keys(compose.services)) {
      const s = stage(name)
      expect(s, name).toMatch(/^USER node$/m)
      expect(s, name).toContain('--from=build')
      expect(s, name).toContain('--from=prod-deps')
      expect(s, name).not.toMatch(/\btsx\b/)
    }
  })

  // Regression: lru-cache@11, a proxy dependency installed under proxy/node_modules because the
  // root holds another major for dev tools, was filtered out of the gatehouse image, which then
  // failed to start (ERR_MODULE_NOT_FOUND) in the compose demo.
  it('keeps every production package of each image, hoisted or nested under a workspace', () => {
    const prod = stage('prod-deps')
    const filter = /sed -n '([^']+)'/.exec(prod)?.[1]
    const specs = /for spec in ([^;]+); do/.exec(prod)?.[1]?.trim().split(/\s+/) ?? []
    expect(filter).toBeDefined()
    expect(specs.length).toBe(Object.keys(compose.services).length)
    for (const spec of specs) {
      const [image, list] = spec.split(':') as [string, string]
      const flags = list.split(',').flatMap((w) => ['-w', w])
      const ls = spawnSync('npm', ['ls', '--omit=dev', '--all', '--parseable', ...flags], {
        cwd: root,
        encoding: 'utf8',
      })
      // The paths as the image's build stage sees them (WORKDIR /app).
      const paths = ls.stdout
        .split('\n')
        .filter(Boolean)
        .map((p) => `/app/${p.slice(root.length)}`)
      const own = (p: string) => p.includes('node_modules/@gatehouse/')
      const packages = paths
        .filter((p) => p.includes('/node_modules/') && !own(p))
        .map((p) => p.slice('/app/'.length))
      expect(packages.length, image).toBeGreaterThan(0)
      const kept = spawnSync('sed', ['-n', filter as string], {
        input: `${paths.join('\n')}\n`,
        encoding: 'utf8',
      })
        .stdout.split('\n')
        .filter((p) => p && !own(p))
      expect(new Set(kept), image).toEqual(new Set(packages))
    }
  })

  // Regression: .dockerignore excluded bench/package.json, which the Dockerfile copies, so the
  // image could not be built at all.
  it('copies only files that .dockerignore sends to the engine', () => {
    const ignore = dockerignore().add(read('.dockerignore').split('\n'))
    const sources = [...dockerfile.matchAll(/^COPY\s+(?!--from)(.+)\s+\S+$/gm)].flatMap((m) =>
      (m[1] as string).split(/\s+/),
    )
    expect(sources.length).toBeGreaterThan(0)
    for (const source of sources) {
      expect(existsSync(`${root}${source}`), source).toBe(true)
      const files = statSync(`${root}${source}`).isDirectory() ? filesUnder(source) : [source]
      // Tests, builds and installed packages are left out on purpose.
      const needed = files.filter((f) => !/(^|\/)(test|dist|node_modules)\//.test(f))
      expect(needed.length, source).toBeGreaterThan(0)
      for (const file of needed) expect(ignore.ignores(file), file).toBe(false)
    }
  })
})
