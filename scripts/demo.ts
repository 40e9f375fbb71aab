/**
 * `npm start`: the demo stack on loopback — mock-idp (the bridged IdP) on :9000, the MCP backend
 * `mcp-backend` on :8090, and gatehouse on :3000 with examples/standalone/gatehouse.yaml —
 * then prints what runs and copy-paste commands for each outcome. Ctrl-C stops all of it.
 */
import { spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'
import { startMockIdp } from '@gatehouse/mock-idp'
import { startMcpBackend } from '@gatehouse/mock-mcp'
import { onShutdownSignals } from '@gatehouse/support'
import { curlSteps, inspectorSteps } from './demo-banner.js'
import { demoLogLine } from './demo-log.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const PORTS = { idp: 9000, backend: 8090, gateway: 3000, admin: 15000 }

async function ensureFree(name: string, port: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const s = createServer()
    s.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        new Error(
          `port ${port} (${name}) is already in use${err.code === 'EADDRINUSE' ? '' : `: ${err.message}`}. ` +
            'Stop whatever listens there (an earlier `npm start`?) and try again.',
        ),
      ),
    )
    s.listen(port, '127.0.0.1', () => s.close(() => resolve()))
  })
}

async function main(): Promise<void> {
  for (const [name, port] of Object.entries(PORTS)) await ensureFree(name, port)
  const idp = await startMockIdp({
    port: PORTS.idp,
    testMode: true,
    // MCP Inspector's default origin may exchange codes at the token endpoint from the browser.
    trustedOrigins: ['http://localhost:6274', 'http://127.0.0.1:6274'],
  })
  const backend = await startMcpBackend({ port: PORTS.backend })
  const gatehouse = spawn(
    process.execPath,
    [`${root}proxy/bin/gatehouse.js`, '-f', `${root}examples/standalone/gatehouse.yaml`],
    { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, IDP_ISSUER: idp.issuer } },
  )
  let stopping = false
  const stopAll = async () => {
    stopping = true
    gatehouse.kill('SIGTERM')
    await new Promise((r) => (gatehouse.exitCode === null ? gatehouse.once('close', r) : r(null)))
    await Promise.allSettled([backend.stop(), idp.stop()])
  }
  // Ctrl-C stops the stack and exits 0; a second one exits at once.
  onShutdownSignals(stopAll, { name: 'demo', announce: false })
  gatehouse.once('close', (code) => {
    if (!stopping) {
      console.error(`gatehouse exited (code ${code}); stopping the demo stack`)
      void stopAll().then(() => process.exit(code ?? 1))
    }
  })
  let ready = false
  let buffered = ''
  gatehouse.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString()
    let nl = buffered.indexOf('\n')
    while (nl !== -1) {
      const line = buffered.slice(0, nl)
      buffered = buffered.slice(nl + 1)
      nl = buffered.indexOf('\n')
      console.log(demoLogLine(line))
      if (!ready && line.includes('gatehouse listening')) {
        ready = true
        printBanner(idp.orgUrl, idp.issuer, backend.url)
      }
    }
  })
}

function printBanner(orgUrl: string, issuer: string, backendUrl: string): void {
  const gw = `http://127.0.0.1:${PORTS.gateway}`
  console.log(`
Gatehouse demo stack is running (loopback only):
  gateway      ${gw}/mcp            (config: examples/standalone/gatehouse.yaml)
  admin        http://127.0.0.1:${PORTS.admin}/ui      (config dump, trace, log level, profiles)
  mcp-backend  ${backendUrl}
  mock-idp     ${issuer}   (users: alice in AI-Users, bob not; the sign-in page lets you pick one)

${curlSteps({ gateway: gw, idp: orgUrl })}

4) A real MCP client, OAuth included. The gateway runs in broker mode: it is the OAuth
   authorization server clients see (${gw}/mcp/oauth/...), and the mock IdP's client.
   ${inspectorSteps(gw)}

Discovery:  curl -s ${gw}/.well-known/oauth-protected-resource/mcp
            curl -s ${gw}/.well-known/oauth-authorization-server/mcp
Debugging:  npx gwctl proxy trace --local     (then send a request)

Ctrl-C stops everything.
`)
}

main().catch((err: Error) => {
  console.error(`npm start: ${err.message}`)
  process.exit(1)
})
