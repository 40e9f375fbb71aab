/**
 * A real redis-server for the tests (Debian's package, `ci/redis.ts`): started on a free port in a
 * temporary directory, with persistence off, and stopped by the test. A bind that loses the race
 * for the port is retried on another.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from '@gatehouse/support'
import { hasRedisServer, redisServerPath } from '../../../ci/redis.js'

export { hasRedisServer, redisServerPath }

/** A running redis-server. */
export interface RedisServer {
  port: number
  url: string
  /** The server's process id (for SIGSTOP/SIGCONT in stall tests). */
  pid: number
  /** Stops it (SIGTERM, then waits for the exit) and removes its directory. */
  stop(): Promise<void>
}

/** Why the Redis tests are skipped on this machine, or `undefined` when they run. */
export function redisSkipReason(): string | undefined {
  return hasRedisServer()
    ? undefined
    : `no redis-server at ${redisServerPath()}; npm run setup:test-tools installs Debian's redis-server package (or set REDIS_SERVER_PATH)`
}

/** Starts a redis-server on a free loopback port. */
export async function startRedisServer(): Promise<RedisServer> {
  let lastError: unknown
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort()
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-redis-'))
    try {
      const child = await spawnReady(port, dir)
      return {
        port,
        url: `redis://127.0.0.1:${port}`,
        pid: child.pid as number,
        stop: () => stopChild(child).finally(() => rmSync(dir, { recursive: true, force: true })),
      }
    } catch (err) {
      rmSync(dir, { recursive: true, force: true })
      lastError = err
    }
  }
  throw lastError
}

function spawnReady(port: number, dir: string): Promise<ChildProcess> {
  const child = spawn(
    redisServerPath(),
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--save',
      '',
      '--appendonly',
      'no',
      '--protected-mode',
      'yes',
      // DEBUG SLEEP stands for a slow server in the stall tests (loopback clients only).
      '--enable-debug-command',
      'local',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  return new Promise((resolve, reject) => {
    let output = ''
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8')
      if (output.includes('Ready to accept connections')) {
        child.stdout?.off('data', onData)
        child.stdout?.resume()
        child.off('exit', onExit)
        resolve(child)
      }
    }
    const onExit = (code: number | null) =>
      reject(
        new Error(`redis-server exited (${code}) before it was ready:\n${output.slice(-2000)}`),
      )
    child.stdout?.on('data', onData)
    child.stderr?.on('data', (c: Buffer) => {
      output += c.toString('utf8')
    })
    child.once('exit', onExit)
    child.once('error', reject)
  })
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    child.once('exit', () => resolve())
    child.kill('SIGTERM')
  })
}
