/**
 * The one process launcher of Gatehouse's tests and harnesses: a command run to its end
 * ({@link runProcess}), or started and watched ({@link launch}) and always stopped — by the
 * caller, by {@link stopLaunched} in an `afterAll`, or, as a last resort, with SIGKILL when this
 * process exits, so no test leaves a gatehouse or an IdP behind.
 */
import { type ChildProcess, spawn } from 'node:child_process'

/** How a process ended and what it wrote. */
export interface ProcessResult {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

/** Options of {@link runProcess} and {@link launch}. */
export interface ProcessOptions {
  /** Working directory. Default: this process's. */
  cwd?: string
  /** Environment. Default: this process's. */
  env?: NodeJS.ProcessEnv
  /** Written to standard input, which is then closed (default: closed at once, as in CI). */
  input?: string
}

/**
 * Runs `command` to its end, standard input a pipe closed at once (or after `input`).
 * @returns its exit code or signal and its output; rejects only when it could not start.
 */
export function runProcess(
  command: string,
  args: readonly string[],
  options: ProcessOptions = {},
): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (s: string) => {
      stdout += s
    })
    child.stderr.setEncoding('utf8').on('data', (s: string) => {
      stderr += s
    })
    child.stdin.end(options.input)
    child.once('error', reject)
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }))
  })
}

/** A process started by {@link launch}. */
export interface Launched {
  child: ChildProcess
  /** Standard output and error so far, interleaved as they arrived. */
  output(): string
  /** Standard output so far. */
  stdout(): string
  /** Standard error so far. */
  stderr(): string
  /**
   * Resolves once the output (or only `stream`) contains `text`, or matches it; rejects, with the
   * output's tail, when the process ended first.
   */
  waitForOutput(text: string | RegExp, stream?: 'stdout' | 'stderr'): Promise<void>
  /** Settles when the process ended and its output was read to the end. */
  exited: Promise<ProcessResult>
  /** Sends `signal` (default SIGTERM) unless it already ended, and waits for the end. */
  stop(signal?: NodeJS.Signals): Promise<ProcessResult>
}

const running = new Set<ChildProcess>()
let exitHookInstalled = false

/** The last `n` characters of `text`, for an error message. */
const tail = (text: string, n = 3000) => (text.length > n ? `…${text.slice(-n)}` : text)

/** Starts `command` with its output captured; see the module's comment for its clean-up. */
export function launch(
  command: string,
  args: readonly string[],
  options: Omit<ProcessOptions, 'input'> = {},
): Launched {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  running.add(child)
  if (!exitHookInstalled) {
    exitHookInstalled = true
    process.once('exit', () => {
      for (const c of running) c.kill('SIGKILL')
    })
  }
  const text = { output: '', stdout: '', stderr: '' }
  let ended = false
  const listeners = new Set<() => void>()
  const notify = () => {
    for (const l of listeners) l()
  }
  child.stdout?.setEncoding('utf8').on('data', (s: string) => {
    text.output += s
    text.stdout += s
    notify()
  })
  child.stderr?.setEncoding('utf8').on('data', (s: string) => {
    text.output += s
    text.stderr += s
    notify()
  })
  const exited = new Promise<ProcessResult>((resolve) => {
    const end = (code: number | null, signal: NodeJS.Signals | null) => {
      if (ended) return
      ended = true
      running.delete(child)
      notify()
      resolve({ code, signal, stdout: text.stdout, stderr: text.stderr })
    }
    child.once('close', end)
    child.once('error', (err) => {
      text.output += `\n${err.message}\n`
      text.stderr += `\n${err.message}\n`
      end(null, null)
    })
  })
  return {
    child,
    output: () => text.output,
    stdout: () => text.stdout,
    stderr: () => text.stderr,
    exited,
    waitForOutput(wanted, stream) {
      const seen = () => {
        const where = text[stream ?? 'output']
        return typeof wanted === 'string' ? where.includes(wanted) : wanted.test(where)
      }
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (seen()) {
            listeners.delete(check)
            resolve()
          } else if (ended) {
            listeners.delete(check)
            reject(
              new Error(
                `${command} ended (${child.exitCode ?? child.signalCode}) before writing ${String(wanted)}:\n${tail(text.output)}`,
              ),
            )
          }
        }
        listeners.add(check)
        check()
      })
    },
    async stop(signal = 'SIGTERM') {
      if (!ended && child.exitCode === null && child.signalCode === null) child.kill(signal)
      return exited
    },
  }
}

/** Stops every process {@link launch} started that is still running (SIGKILL), and waits. */
export async function stopLaunched(): Promise<void> {
  const all = [...running]
  await Promise.all(
    all.map(
      (c) =>
        new Promise<void>((resolve) => {
          if (c.exitCode !== null || c.signalCode !== null) return resolve()
          c.once('exit', () => resolve())
          c.kill('SIGKILL')
        }),
    ),
  )
}
