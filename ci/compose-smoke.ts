/**
 * `npm run test:compose` (the last step of `npm test`): the demo of the README, `docker compose up
 * --build`, for real. ci/docker.ts first gets an engine, Compose v2 and the Dockerfile's base
 * image (installing and building them as root on Debian); then the stack is built and started
 * under a project name of its own with testcontainers (Ryuk disabled: the finally block below
 * cleans up), waiting on the services' compose healthchecks, and checked from the host:
 *
 * - no token → 401 with the RFC 9728 challenge; alice → 200; bob → 403;
 * - every URL in the discovery documents (gateway and IdP) answers from the host;
 * - a browser OAuth sign-in (Chromium, the MCP SDK client in a page) through the composed stack;
 * - `docker compose exec gatehouse gwctl …` reads the admin interface; every service runs as uid 1000.
 *
 * Then `compose down -v --rmi local` removes the containers, network and the images it built.
 * Where no engine can be had it prints exactly what is missing and exits 0 ("skipped"); wherever
 * an engine runs, a failed check fails the run. Figures (base image, build, start-up, image sizes,
 * wall time) are printed at the end; ci/README.md records them.
 */
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'
import { initializeRequest } from '@gatehouse/mock-mcp'
import { type FinishResult, signIn, startWebApp } from '../proxy/test/browser/web-app.js'
import { chromiumPath, hasChromium, launchChromium } from './chromium.js'
import { ensureDocker } from './docker.js'
import { run } from './docker-run.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const GATEWAY = 'http://localhost:3000'
const IDP = 'http://localhost:9000'
/** compose.yaml lets this origin call the IdP's token endpoint (`--trusted-origin`). */
const APP_PORT = 6274
const SERVICES = ['mock-idp', 'mcp-backend', 'gatehouse'] as const
const PROJECT_PREFIX = 'gatehouse-smoke-'
const BUILD_TIMEOUT_MS = 900_000
const STARTUP_TIMEOUT_MS = 120_000
const HTTP_TIMEOUT_MS = 10_000

const started = Date.now()
const seconds = (since: number) => Math.round((Date.now() - since) / 100) / 10
let failures = 0

function check(name: string, ok: boolean, detail: string): void {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${ok ? '' : `: ${detail}`}`)
  if (!ok) failures++
}

function compose(project: string, args: string[], timeoutMs = 120_000) {
  return run('docker', ['compose', '-p', project, '-f', `${root}compose.yaml`, ...args], {
    cwd: root,
    timeoutMs,
  })
}

/** Removes what an earlier, interrupted run left behind (it would hold the ports). */
function removeLeftovers(): void {
  const ls = run('docker', ['compose', 'ls', '-a', '--format', 'json'])
  if (!ls.ok) return
  for (const p of JSON.parse(ls.stdout || '[]') as { Name: string }[]) {
    if (p.Name.startsWith(PROJECT_PREFIX)) {
      console.log(`removing the leftover project ${p.Name}`)
      compose(p.Name, ['down', '-v', '--rmi', 'local', '-t', '0'])
    }
  }
}

async function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer()
    server.once('error', () => resolve(false))
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
  })
}

function get(url: string, init: RequestInit = {}): Promise<Response> {
  return fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(HTTP_TIMEOUT_MS) })
}

/** The URL-valued fields of a discovery document. */
function urlsOf(doc: Record<string, unknown>): [string, string][] {
  return Object.entries(doc).flatMap(([k, v]) =>
    typeof v === 'string' && /^https?:\/\//.test(v) && k !== 'issuer' && k !== 'resource'
      ? [[k, v] as [string, string]]
      : [],
  )
}

/** Every endpoint a discovery document names answers from the host (any status below 500). */
async function checkReachable(doc: string, body: Record<string, unknown>): Promise<void> {
  for (const [field, url] of urlsOf(body)) {
    try {
      const res = await get(url)
      check(`${doc} ${field} answers from the host`, res.status < 500, `${url}: ${res.status}`)
    } catch (err) {
      check(`${doc} ${field} answers from the host`, false, `${url}: ${(err as Error).message}`)
    }
  }
}

async function checkHttp(): Promise<void> {
  const anonymous = await get(`${GATEWAY}/mcp`, initializeRequest({ clientName: 'smoke' }))
  check('no token → 401', anonymous.status === 401, `got ${anonymous.status}`)
  const challenge = anonymous.headers.get('www-authenticate') ?? ''
  check(
    'challenge names the resource metadata',
    challenge.includes(`resource_metadata="${GATEWAY}/.well-known/oauth-protected-resource/mcp"`),
    challenge,
  )
  for (const [user, status] of [
    ['alice', 200],
    ['bob', 403],
  ] as const) {
    // mock-idp's control API (mock-idp/README.md) mints the user's access token.
    const minted = await get(`${IDP}/__control/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sub: user }),
    })
    const { access_token } = (await minted.json()) as { access_token: string }
    const res = await get(
      `${GATEWAY}/mcp`,
      initializeRequest({ bearer: access_token, clientName: 'smoke' }),
    )
    check(`${user} → ${status}`, res.status === status, `got ${res.status}`)
  }
}

async function checkDiscovery(): Promise<void> {
  const prm = (await (await get(`${GATEWAY}/.well-known/oauth-protected-resource/mcp`)).json()) as {
    resource: string
    authorization_servers: string[]
  }
  check('protected resource is the published URL', prm.resource === `${GATEWAY}/mcp`, prm.resource)
  // RFC 8414 §3: the metadata of an issuer with a path is at the path-inserted well-known URL.
  for (const issuer of prm.authorization_servers) {
    const u = new URL(issuer)
    const res = await get(`${u.origin}/.well-known/oauth-authorization-server${u.pathname}`)
    check(`authorization server ${issuer} has metadata`, res.status === 200, `got ${res.status}`)
    if (res.status === 200) {
      await checkReachable('gateway metadata', (await res.json()) as Record<string, unknown>)
    }
  }
  const oidc = await get(`${IDP}/oauth2/default/.well-known/openid-configuration`)
  check('IdP discovery answers', oidc.status === 200, `got ${oidc.status}`)
  const body = (await oidc.json()) as Record<string, unknown>
  const foreign = urlsOf(body).filter(([, url]) => !url.startsWith(`${IDP}/`))
  check(
    'IdP discovery names only its public URL',
    foreign.length === 0,
    foreign.map(([k, v]) => `${k}=${v}`).join(', '),
  )
  await checkReachable('IdP discovery', body)
}

async function checkBrowser(): Promise<void> {
  if (!hasChromium()) {
    console.log(`skip browser sign-in: no Chromium at ${chromiumPath()} (npm run setup:test-tools)`)
    return
  }
  const app = await startWebApp({ port: APP_PORT, hostname: 'localhost' })
  const browser = await launchChromium()
  try {
    const result: FinishResult = await signIn(
      await browser.newPage(),
      app,
      `${GATEWAY}/mcp`,
      'alice',
    )
    check(
      'browser sign-in (Chromium): alice calls a tool through the stack',
      result.error === undefined &&
        result.server === 'mcp-backend' &&
        (result.tool ?? '').includes('from the browser'),
      JSON.stringify(result),
    )
  } catch (err) {
    check('browser sign-in (Chromium): alice calls a tool through the stack', false, String(err))
  } finally {
    await browser.close()
    await app.close()
  }
}

function checkContainers(project: string): void {
  const gwctl = compose(project, [
    'exec',
    '-T',
    'gatehouse',
    'gwctl',
    'proxy',
    'config',
    'all',
    '--local',
    '-o',
    'short',
  ])
  check(
    'docker compose exec gatehouse gwctl reads the admin interface',
    gwctl.ok && gwctl.stdout.includes('mcp-auth'),
    gwctl.problem || gwctl.stdout,
  )
  for (const service of SERVICES) {
    const id = compose(project, ['exec', '-T', service, 'id', '-u'])
    check(`${service} runs as uid 1000`, id.stdout.trim() === '1000', id.problem || id.stdout)
  }
}

function imageSizes(project: string): string {
  return SERVICES.map((s) => {
    const r = run('docker', ['image', 'inspect', '--format', '{{.Size}}', `${project}-${s}`])
    return `${s} ${r.ok ? Math.round(Number(r.stdout) / 1e6) : '?'} MB`
  }).join(', ')
}

async function main(): Promise<void> {
  const setup = await ensureDocker()
  if (!setup.ready) {
    console.log(`compose smoke test skipped: ${setup.missing}`)
    return
  }
  // Set before testcontainers is loaded: it reads its configuration once.
  process.env.TESTCONTAINERS_RYUK_DISABLED = 'true'
  const { DockerComposeEnvironment, Wait } = await import('testcontainers')
  const project = `${PROJECT_PREFIX}${process.pid}`
  const figures: string[] = setup.base.map(
    (b) => `base image ${b.image}: ${b.source} in ${b.seconds} s`,
  )
  try {
    removeLeftovers()
    for (const port of [3000, 9000, APP_PORT]) {
      if (!(await portFree(port))) {
        throw new Error(`127.0.0.1:${port} is in use; compose.yaml publishes the demo there`)
      }
    }
    const buildStart = Date.now()
    const build = compose(project, ['build', '--quiet'], BUILD_TIMEOUT_MS)
    if (!build.ok) throw new Error(`docker compose build failed: ${build.problem}`)
    figures.push(`image build ${seconds(buildStart)} s`, `images: ${imageSizes(project)}`)
    const upStart = Date.now()
    let environment = new DockerComposeEnvironment(root, 'compose.yaml')
      .withProjectName(project)
      .withStartupTimeout(STARTUP_TIMEOUT_MS)
    for (const service of SERVICES) {
      environment = environment.withWaitStrategy(`${service}-1`, Wait.forHealthCheck())
    }
    await environment.up()
    figures.push(`start-up to all healthy ${seconds(upStart)} s`)
    await checkHttp()
    await checkDiscovery()
    await checkBrowser()
    checkContainers(project)
  } catch (err) {
    check('the composed stack runs', false, (err as Error).message)
  } finally {
    if (failures > 0) {
      const logs = compose(project, ['logs', '--no-color', '--tail', '40'])
      console.log(logs.stdout)
    }
    const down = compose(project, ['down', '-v', '--rmi', 'local', '-t', '5'])
    if (!down.ok) check('compose down removes the stack and its images', false, down.problem)
    await setup.engine.release()
  }
  figures.push(`smoke wall time ${seconds(started)} s`)
  console.log(`figures: ${figures.join('; ')}`)
  if (failures > 0) {
    console.log(`compose smoke test: ${failures} check(s) failed`)
    process.exitCode = 1
  } else {
    console.log('compose smoke test passed')
  }
}

await main()
