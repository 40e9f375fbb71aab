/**
 * `npm run bench:scale`: what a large configuration costs the data plane (docs/reliability.md,
 * "Large configurations"). For each route count: the size of the generated standalone file, the
 * time to load it, and, while a reload of it runs, the longest event-loop stall
 * (`monitorEventLoopDelay`) and the RSS after it. Speed is measured here only, never in a test.
 *
 * Options: `--routes 1000,10000` (default), `--write` (a dated section in RESULTS.md).
 */
import { generateKeyPairSync } from 'node:crypto'
import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import { loadConfigSourcesOffThread } from '../proxy/src/config/load-thread.js'
import { loadConfigSources } from '../proxy/src/config/sources.js'
import { startGatehouse } from '../proxy/src/index.js'
import { createLogging } from '../proxy/src/telemetry/logging.js'

const { values } = parseArgs({
  options: { routes: { type: 'string', default: '1000,10000' }, write: { type: 'boolean' } },
})

/** A standalone configuration with `n` routes, one JWT policy (inline key, one CEL rule) on all. */
export function scaleConfig(n: number, maxAge = 60): string {
  const jwk = JSON.stringify({
    ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }),
    kid: 'k',
    alg: 'ES256',
  })
  const out = [
    'config: { adminAddr: "off", logLevel: warn }',
    'gateways:\n  default: { port: 3000, address: 127.0.0.1 }',
    'backends:\n  b: { static: { host: 127.0.0.1, port: 9 } }',
    'routes:',
  ]
  for (let i = 0; i < n; i++) {
    out.push(`  r${i}:
    parentRefs: [{ name: default }]
    rules:
      - matches: [{ path: { type: PathPrefix, value: /t${i}/mcp } }]
        filters: [{ type: CORS, cors: { allowOrigins: ['*'], maxAge: ${maxAge} } }]
        backendRefs: [{ name: b }]`)
  }
  out.push(`policies:
  p:
    targetRefs:
${Array.from({ length: n }, (_, i) => `      - { kind: HTTPRoute, name: r${i} }`).join('\n')}
    traffic:
      jwtAuthentication:
        mode: Strict
        providers:
          - issuer: https://idp.example
            audiences: [x]
            jwks: { inline: { keys: [${jwk}] } }
      authorization:
        action: Allow
        policy: { matchExpressions: ['"a" in jwt.groups'] }`)
  return `${out.join('\n')}\n`
}

const lines: string[] = []
for (const n of (values.routes ?? '').split(',').map(Number)) {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-scale-'))
  const file = join(dir, 'gatehouse.yaml')
  const text = scaleConfig(n)
  writeFileSync(file, text)
  // Start-up loads on the main thread (nothing to serve yet); a reload as the CLI wires it, parsed
  // and validated on a worker thread (docs/reliability.md, "Large configurations").
  const load = () => loadConfigSourcesOffThread([file], { env: {} })
  let t = performance.now()
  const source = await loadConfigSources([file], { env: {} })
  const loadMs = performance.now() - t
  const gh = await startGatehouse({
    config: source.config,
    source,
    loadConfig: load,
    ephemeralPorts: true,
    logging: createLogging({ filter: 'error' }),
  })
  writeFileSync(file, scaleConfig(n, 61))
  const stall = monitorEventLoopDelay({ resolution: 10 })
  stall.enable()
  t = performance.now()
  const record = await gh.reload()
  const reloadMs = performance.now() - t
  stall.disable()
  const rss = process.memoryUsage().rss / 1024 / 1024
  const peak = process.resourceUsage().maxRSS / 1024
  await gh.stop('bench finished')
  lines.push(
    `| ${n} | ${(text.length / 1024 / 1024).toFixed(1)} MiB | ${loadMs.toFixed(0)} ms | ${reloadMs.toFixed(0)} ms (${record.result}) | ${(stall.max / 1e6).toFixed(0)} ms | ${rss.toFixed(0)} MiB | ${peak.toFixed(0)} MiB |`,
  )
  console.log(lines.at(-1))
}

const load = loadavg()[0]?.toFixed(0)
const report = `## bench:scale — ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus().length} cores (shared machine, load average ${load})

| routes | file | load | reload | longest event-loop stall during the reload | RSS after | peak RSS so far |
|---|---|---|---|---|---|---|
${lines.join('\n')}
`
console.log(report)
if (values.write) appendFileSync(new URL('RESULTS.md', import.meta.url), `\n${report}`)
