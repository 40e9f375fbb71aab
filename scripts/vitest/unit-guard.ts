/**
 * The unit tier's guard, which its setup file (scripts/vitest/unit-setup.ts) installs: a unit test
 * runs in-process, so there opening a socket or starting a process throws, saying which tier the
 * test belongs in (CONTRIBUTING, "Tests"). It patches `net.Server.prototype.listen` (every `http`, `https`, `tls`
 * and `net` server), `net.Socket.prototype.connect` (`fetch`, `http.request`, Redis clients) and
 * every `node:child_process` launcher, in the test's worker process only — vitest's own workers
 * are started by its main process, which this file never runs in.
 */
import childProcess from 'node:child_process'
import { syncBuiltinESMExports } from 'node:module'
import net from 'node:net'

/** The functions of `node:child_process` that start a process. */
export const LAUNCHERS = [
  'spawn',
  'spawnSync',
  'fork',
  'exec',
  'execSync',
  'execFile',
  'execFileSync',
] as const

/** The error a unit test gets for `what` (`net.Server.listen`, `child_process.spawn`, …). */
export class UnitTierError extends Error {
  constructor(what: string) {
    super(
      `${what} in a unit-tier test: unit tests run in-process (no sockets, no processes). A test that starts real servers or processes belongs in the integration tier (or e2e for whole stacks, browsers, peers): add its path to INTEGRATION or E2E in scripts/vitest/tiers.ts (CONTRIBUTING, "Tests")`,
    )
    this.name = 'UnitTierError'
  }
}

function refuse(what: string): () => never {
  return () => {
    throw new UnitTierError(what)
  }
}

/** Makes sockets and processes throw {@link UnitTierError} in this process. */
export function installUnitGuard(): void {
  net.Server.prototype.listen = refuse('net.Server.listen (a server)')
  net.Socket.prototype.connect = refuse('net.Socket.connect (a connection)')
  const launchers = childProcess as unknown as Record<string, unknown>
  for (const name of LAUNCHERS) launchers[name] = refuse(`child_process.${name} (a process)`)
  // `import { spawn } from 'node:child_process'` reads the ES module's bindings: bring them in step.
  syncBuiltinESMExports()
}
