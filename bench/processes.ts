/**
 * Processes of a benchmark: servers started as children, waited for by a line they print, killed
 * when the benchmark ends; free loopback ports; a child's resident memory.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'

const children: ChildProcess[] = []

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const s = createServer()
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r))
  const port = (s.address() as { port: number }).port
  await new Promise((r) => s.close(r))
  return port
}

/** Starts `cmd args` and resolves with the child once its stdout matched `ready` (30 s at most). */
export function startProcess(cmd: string, args: string[], ready: RegExp): Promise<ChildProcess> {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'] })
  children.push(child)
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${args.join(' ')}: not ready after 30 s`)),
      30_000,
    )
    let out = ''
    child.stdout?.on('data', (c) => {
      out += c
      if (ready.test(out)) {
        clearTimeout(timer)
        resolve(child)
      }
    })
    child.once('exit', (code) =>
      reject(new Error(`${args.join(' ')} exited early (${code}): ${out.slice(-500)}`)),
    )
  })
}

/** Sends SIGTERM to every child started by {@link startProcess}. */
export function stopProcesses(): void {
  for (const c of children) c.kill('SIGTERM')
}

/** Resident set size of a process, in bytes (Linux `/proc/<pid>/status`, `VmRSS`). */
export function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  if (!m) throw new Error(`no VmRSS for pid ${pid}`)
  return Number(m[1]) * 1024
}
