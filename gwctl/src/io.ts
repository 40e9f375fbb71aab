/**
 * What a gwctl run reads and writes, so that tests can run commands in-process and the binary
 * passes the real process streams.
 */

/** Output stream: a Node writable, optionally a terminal. */
export type OutputStream = NodeJS.WritableStream & { isTTY?: boolean; columns?: number }

/** The environment of one {@link import('./cli.js').run} call. */
export interface CliIo {
  /** Default `process.stdout`. */
  stdout: OutputStream
  /** Default `process.stderr`. */
  stderr: OutputStream
  /** Directory for default output file names and relative `-o` paths. Default `process.cwd()`. */
  cwd: string
  /** Aborted on Ctrl-C: a waiting trace or a running profile stops. */
  signal?: AbortSignal
  /** Clock for default file names. Default `new Date()`. */
  now: () => Date
}

/** Fills the defaults of a partial {@link CliIo}. */
export function withDefaults(io: Partial<CliIo> = {}): CliIo {
  return {
    stdout: io.stdout ?? process.stdout,
    stderr: io.stderr ?? process.stderr,
    cwd: io.cwd ?? process.cwd(),
    now: io.now ?? (() => new Date()),
    ...(io.signal ? { signal: io.signal } : {}),
  }
}

/** Writes text and resolves once it is handed to the stream. */
export function write(stream: OutputStream, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.write(text, (err) => (err ? reject(err) : resolve()))
  })
}
