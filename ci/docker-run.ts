/**
 * The one way the ci/docker*.ts helpers run a program: synchronously, with a time limit, and with
 * a result that says what went wrong in words (the helpers turn it into a skip reason or an error).
 */
import { type SpawnSyncOptions, spawnSync } from 'node:child_process'

/** What a finished program left behind. */
export interface RunResult {
  /** True when it exited with status 0 within its time limit. */
  ok: boolean
  /** Its standard output (empty when it was inherited). */
  stdout: string
  /** `<command> failed (exit N)` / `timed out after Ns` / `not found`, with the end of stderr. */
  problem: string
}

/** Options of {@link run}. */
export interface RunOptions {
  /** Time limit in milliseconds; default 60 000. */
  timeoutMs?: number
  /** Show the program's output on our terminal instead of capturing it; default false. */
  inherit?: boolean
  /** Extra environment variables. */
  env?: Record<string, string>
  /** Working directory; default the current one. */
  cwd?: string
  /** Text written to the program's standard input. */
  input?: string
}

/** Runs `command args` and reports how it went; never throws. */
export function run(command: string, args: string[], options: RunOptions = {}): RunResult {
  const spawnOptions: SpawnSyncOptions = {
    encoding: 'utf8',
    timeout: options.timeoutMs ?? 60_000,
    killSignal: 'SIGKILL',
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    input: options.input,
    stdio: options.inherit ? ['pipe', 'inherit', 'inherit'] : 'pipe',
    maxBuffer: 64 * 1024 * 1024,
  }
  const r = spawnSync(command, args, spawnOptions)
  const stdout = typeof r.stdout === 'string' ? r.stdout : ''
  const stderr = typeof r.stderr === 'string' ? r.stderr.trim() : ''
  const shown = `${command} ${args.slice(0, 3).join(' ')}`
  if (r.error && (r.error as NodeJS.ErrnoException).code === 'ENOENT') {
    return { ok: false, stdout, problem: `${command}: not found` }
  }
  if (r.error && (r.error as NodeJS.ErrnoException).code === 'ETIMEDOUT') {
    return { ok: false, stdout, problem: `${shown} timed out after ${spawnOptions.timeout} ms` }
  }
  if (r.status !== 0) {
    const tail = stderr.split('\n').slice(-5).join('\n')
    return {
      ok: false,
      stdout,
      problem: `${shown} failed (exit ${r.status ?? r.signal})${tail ? `: ${tail}` : ''}`,
    }
  }
  return { ok: true, stdout, problem: '' }
}

/** True when we may change the machine: root on Linux. */
export function isRoot(): boolean {
  return process.platform === 'linux' && process.getuid?.() === 0
}
