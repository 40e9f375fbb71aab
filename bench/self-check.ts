/**
 * `npm run bench:check` (and the start of every `npm run bench`): installs nginx and HAProxy
 * when missing (bench/peers.ts) and has each accept the configurations the benchmark generates —
 * `nginx -t -c`, `haproxy -c -f` — so that a generator change that a binary refuses fails here,
 * with the binary's message, rather than as a benchmark target that never starts.
 */
import { spawnSync } from 'node:child_process'
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ensurePeers, haproxyConfig, nginxConfig } from './peers.js'
import { BENCH_ISSUER, benchSigner } from './token.js'

/** Checks every generated configuration with its binary; throws with the binary's output. */
export function selfCheck(): void {
  const { nginx, haproxy } = ensurePeers()
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-check-'))
  chmodSync(dir, 0o755)
  const keyFile = join(dir, 'jwt.pem')
  writeFileSync(keyFile, benchSigner().publicKeyPem)
  const checks: Array<[string, string, string[]]> = []
  for (const unbuffered of [false, true]) {
    const file = join(dir, `nginx-${unbuffered ? 'unbuffered' : 'buffered'}.conf`)
    writeFileSync(file, nginxConfig({ dir, port: 1, upstreamPort: 2, unbuffered }))
    checks.push([
      `nginx (${unbuffered ? 'proxy_buffering off' : 'buffered'})`,
      nginx,
      ['-t', '-q', '-c', file],
    ])
  }
  const cfg = join(dir, 'haproxy.cfg')
  writeFileSync(
    cfg,
    haproxyConfig({
      port: 1,
      jwtPort: 2,
      upstreamPort: 3,
      publicKeyFile: keyFile,
      issuer: BENCH_ISSUER,
      audience: 'api://default',
    }),
  )
  checks.push(['haproxy (plain + jwt_verify)', haproxy, ['-c', '-q', '-f', cfg]])
  for (const [name, bin, args] of checks) {
    const r = spawnSync(bin, args, { encoding: 'utf8' })
    if (r.status !== 0) {
      throw new Error(
        `${name}: ${bin} ${args.join(' ')} refused the configuration (exit ${r.status}):\n${r.stderr}${r.stdout}`,
      )
    }
    console.error(`bench:check: ${name} configuration accepted by ${bin}`)
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    selfCheck()
  } catch (err) {
    console.error(`bench:check: ${(err as Error).message}`)
    process.exitCode = 1
  }
}
