/** Graceful shutdown of a command on SIGINT/SIGTERM, the same in every Gatehouse command. */

/**
 * The exit codes of {@link onShutdownSignals}: `closed` once `close` resolved, `failed` when it
 * rejected, `forced` on a second signal (the close is not waited for).
 */
export const SHUTDOWN_EXIT = { closed: 0, failed: 1, forced: 1 } as const

/** Options of {@link onShutdownSignals}. */
export interface ShutdownOptions {
  /** The command's name; its lines on standard error start with `<name>: `. */
  name: string
  /**
   * Whether the first signal is announced (`<name>: SIGTERM, stopping`). Default true; false for
   * a command that logs its own stop (the proxy). A second signal and a failed close are always
   * written.
   */
  announce?: boolean
  /**
   * Whether to exit once `close` resolved ({@link SHUTDOWN_EXIT}.closed). Default true; false for
   * a command that exits by itself once stopped (the proxy returns its exit code, after its logger
   * flushed). A rejected close exits with {@link SHUTDOWN_EXIT}.failed either way.
   */
  exit?: boolean
}

const SIGNALS = ['SIGINT', 'SIGTERM'] as const

/**
 * Installs SIGINT and SIGTERM handlers. The first signal calls `close(signal)` once; a second one,
 * while it runs, exits at once with {@link SHUTDOWN_EXIT}.forced (the Ctrl-C Ctrl-C of an
 * impatient operator). Install it before the server starts, so that a signal that arrives while
 * starting still stops gracefully rather than by the default action.
 * @returns a function that removes the handlers.
 */
export function onShutdownSignals(
  close: (signal: NodeJS.Signals) => Promise<void>,
  options: ShutdownOptions,
): () => void {
  const { name, announce = true, exit = true } = options
  let stopping = false
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping) {
      process.stderr.write(`${name}: ${signal} again, exiting now\n`)
      process.exit(SHUTDOWN_EXIT.forced)
    }
    stopping = true
    if (announce) process.stderr.write(`${name}: ${signal}, stopping\n`)
    close(signal).then(
      () => {
        if (exit) process.exit(SHUTDOWN_EXIT.closed)
      },
      (err: unknown) => {
        process.stderr.write(`${name}: stopping failed: ${(err as Error)?.message ?? err}\n`)
        process.exit(SHUTDOWN_EXIT.failed)
      },
    )
  }
  for (const s of SIGNALS) process.on(s, onSignal)
  return () => {
    for (const s of SIGNALS) process.off(s, onSignal)
  }
}
